/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JVMTI heap walk's shared state, struct walk (private to sources/heapdump/heap_*.c;
 * each file declares its functions in its own header). Its files, each calling only
 * those above it in this list:
 *   heap_names.c      who is who: objects' IDs (tags), marks, sites, classes, threads
 *   heap_classes.c    the dump's view of every loaded class, and its field layout
 *   heap_roots.c      ROOT records: the walk's roots, owned monitors
 *   heap_objects.c    the record of the object being visited; objects read through JNI
 *   heap_unvisited.c  objects the walk named and never visited
 *   heap_walk.c       the walk itself: its callbacks, and one whole dump
 *   heap_times.c      HPROF_HEAP_TIMES: the phases of a dump on stderr (both dumpers)
 *
 * Tags (in the dump's own JVMTI environment): below SITE_TAG_END a site id the
 * allocation tracker set; odd above it an object's ID (tags.h), an array's length in its
 * high bits; even above it a class (walk_class_tag).
 */
#ifndef HPROF_HEAP_WALK_STATE_H
#define HPROF_HEAP_WALK_STATE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/heapdump/dump_threads.h"
#include "tables/heap_records.h"
#include "tables/ids.h"
#include "tables/tags.h"

struct host;
struct site_table;

/* The high bits of an object's tag: an array's length (bits 33..63). */
#define TAG_ID_MASK   0x1FFFFFFFFLL
#define TAG_LEN_SHIFT 33
/* A class's tag: its index in the dump's classes, in bits 34.. (never a pointer, so that
 * a site id taken for a class tag cannot be followed). */
#define CLASS_TAG_SHIFT 34
/* The tracker's site ids are below every object tag of the dump (IDs start above
 * ID_OBJECT_BASE): billions of sites would be needed to reach it. */
#define SITE_TAG_END ((jlong)ID_OBJECT_BASE << 1)

/* The two marks an object ID carries in a dump. */
#define MARK_NAMED   1u /* referred to */
#define MARK_WRITTEN 2u /* its record written */

/* What the walk knows of a class beyond what the writers see. */
struct cls_extra {
    jclass ref;          /* local reference while the classes are read */
    uint32_t nall;       /* fields GetClassFields returned, statics included */
    uint8_t *all_static; /* per field: static? */
    uint8_t *all_type;   /* per field: enum hd_type */
    uint32_t *all_off;   /* per field: offset among its kind (instance/static) */
    jfieldID *fids;      /* per field: its ID (for objects read through JNI) */
    uint32_t chain;      /* fields of this class and its supers (JVMTI index space) */
    int state;           /* 0 not laid out, 1 in progress, 2 done */
    int64_t pending;     /* its objects named and not written yet */
    uint32_t stamp;
};

enum cur_kind { CUR_NONE, CUR_INSTANCE, CUR_OBJ_ARRAY, CUR_PRIM_ARRAY, CUR_CLASS };

struct walk {
    struct host *h;
    jvmtiEnv *tj; /* this dump's own JVMTI environment: its tags */
    JNIEnv *jni;
    const struct heap_dump_writer *wr;
    struct hd_session *s; /* the sink's */
    double t0;            /* when the dump began */
    bool oom;

    /* heap_classes.c */
    struct hd_class *cls;
    struct cls_extra *ext;
    uint32_t ncls;
    uint32_t stamp;
    struct hd_class *object_class; /* java.lang.Object */

    /* heap_names.c */
    struct dump_threads dthreads; /* the dump's threads (heap_walk.c takes them) */
    struct {
        uint32_t id, serial, trace, site;
    } * threads; /* by object ID */
    uint32_t nthreads;
    uint8_t *marks; /* two bits per object ID (MARK_*) */
    size_t marks_cap;
    uint64_t named_unwritten; /* objects named since, and not written */
    int64_t pending_unknown;  /* see walk_count_pending */
    struct site_table *sites; /* heap=sites on: objects carry their sites */
    uint32_t id_first;        /* the first object ID this dump could hand out */
    uint32_t *site_of;        /* [ID - id_first]: the object's site id, 0 none */
    size_t site_cap;

    /* heap_roots.c */
    uint32_t gref;      /* JNI global refs numbered from 1 */
    uint32_t *monitors; /* objects whose monitor a thread owns */
    uint32_t nmonitors;

    /* heap_objects.c: the object being visited */
    jlong cur;  /* its tag (an object's: the ID part); 0 none */
    jlong done; /* the object written last */
    enum cur_kind cur_kind;
    struct hd_class *cur_cls;
    uint32_t cur_len;
    uint8_t *vals;
    size_t vals_cap;
    uint32_t *elems;
    size_t elems_cap;
    uint8_t *pbuf;
    size_t pbuf_cap;
    int arr_base, ref_size; /* object array size = align8(base + n*ref) */

    /* heap_unvisited.c */
    jlong *pending; /* tags of objects named but not visited */
    size_t npending, pending_cap;
    jlong *pending_size; /* their sizes */
    size_t pending_size_cap;
    uint32_t *fetch_order;
    size_t fetch_seen;
    bool fetch_bad;

    /* heap_walk.c */
    uint64_t nobjects, nbytes; /* text header counts */
};

#endif
