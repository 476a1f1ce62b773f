/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classes hprof has named: serial number, object ID, name and source file.
 *
 * sources/resolve.c names a class through JVMTI on first sight and tags the class
 * object with its entry's address (see tags.h), so a class is found from its jclass
 * by one tag lookup. Two classes of the same name loaded at once (by two loaders) have
 * an entry each, as a heap dump needs; reports name both by the first one's (canonical).
 */
#ifndef HPROF_CLASSES_H
#define HPROF_CLASSES_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct class_info {
    uint32_t serial;                /* 100001 ... */
    uint32_t object_id;             /* the class object's ID */
    char *signature;                /* "Ljava/lang/String;" */
    char *name;                     /* "java.lang.String" */
    char *source_file;              /* "String.java", or NULL when the class has none */
    bool load_written;              /* binary LOAD CLASS written (output lock held) */
    _Atomic int64_t instance_size;  /* bytes of every instance, once measured; 0: not yet
                                       (never set for arrays and java.lang.Class) */
    _Atomic(jweak) mirror;          /* the class, weakly (sources/resolve.c): heap=sites
                                       compares classes with it, far cheaper than a tag, and
                                       the sweeper sees the class unloaded when it clears */
    _Atomic uint8_t clone_override; /* heap=sites: 0 not asked yet, 1 its clone() is
                                       Object's, 2 it has its own */
    /*
     * A class that loaders define again and again (a plugin reloaded, a class loader per
     * request) would need an entry each time. Instead, once a class is unloaded its entry
     * is vacant and the next class of the same signature and source file takes it: the
     * entries of a name are as many as of its classes loaded at once. Stale pointers to
     * an entry (a cache of a thread) still name a class of that name.
     */
    struct class_info *canonical;         /* the first entry of this signature: reports name
                                       every class of that name by it (one row, not one a loader) */
    struct class_info *_Atomic next_same; /* the other entries of this signature */
    _Atomic uint32_t generation;          /* +1 each time its class is unloaded: a note made
                                       for one of its classes (a method's alias) is stale
                                       once this differs */
    bool vacant;                          /* its class is unloaded (naming lock) */
    struct class_info *next_vacant;       /* the other vacant entries of its signature (naming lock) */
};

/* The signature map's entry: the first class of a signature. */
struct by_signature_node {
    struct cmap_node node;
    struct class_info *canonical;
    struct class_info *vacant; /* entries free for the next class (naming lock) */
};

struct class_table {
    /* Held by sources/resolve.c from its check that a class has no entry yet to its
     * tagging with the new one, so a class is entered once; also over an entry's
     * vacancy and its reuse. Nothing slow runs under it. */
    pthread_mutex_t naming;
    struct registry all;
    struct cmap by_signature;  /* signature -> its canonical entry */
    struct class_info unknown; /* stands in when JVMTI cannot tell */
};

struct ids;

void classes_init(struct class_table *t);
/* Numbers a class named by the caller: its serial and object ID, and its canonical
 * entry. -1 when the table is full (c is still the caller's then). */
int classes_add(struct class_table *t, struct class_info *c, struct ids *ids);
uint32_t classes_count(struct class_table *t);
/* The entry reports name c by: the first of its signature (c itself when it is; NULL for NULL). */
static inline struct class_info *classes_canonical(struct class_info *c)
{
    return c && c->canonical ? c->canonical : c;
}
/* The canonical entry of a signature ("Lp/C;", "[I"), or NULL when no class of it was named. */
struct class_info *classes_by_signature(struct class_table *t, const char *signature);
struct class_info *classes_at(struct class_table *t, uint32_t i);
/* A vacant entry for a class of this signature and source file (NULL: none), taken:
 * no longer vacant, measurements forgotten. Naming lock held. */
struct class_info *classes_reuse(struct class_table *t, const char *signature, const char *source_file);
/* The signature with the most entries (*most of them), and how many entries are vacant. */
const char *classes_most_entries(struct class_table *t, uint32_t *most, uint32_t *vacant);
/* The entry's class was unloaded: vacant from now on, its generation moved on. Returns
 * the mirror it held (the caller disposes of it). Naming lock held. */
jweak classes_vacate(struct class_table *t, struct class_info *c);

#endif
