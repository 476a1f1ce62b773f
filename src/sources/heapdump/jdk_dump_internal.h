/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reader of the JDK's heap dump (sources/heapdump/jdk_dump_reader.h), private to its files,
 * each calling only those above it in this list:
 *   jdk_dump_records.c  the file's records and sub-records, every bound checked; ID maps
 *   jdk_dump_reader.c   pass 1: the index (jdr_open), what the caller says of it, new IDs
 *   jdk_dump_classes.c  hprof's view of the dump's classes: field order, value layout
 *   jdk_dump_rewrite.c  pass 2: every record rewritten into the writer (jdr_write)
 * Pure C, no JVMTI.
 */
#ifndef HPROF_JDK_DUMP_INTERNAL_H
#define HPROF_JDK_DUMP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tables/heap_records.h"
#include "util/buf.h"
#include "util/hprof_format.h"
#include "util/idmap.h"

struct jdr_order;

#define ID_BYTES        8                 /* the JDK's IDs; the only size read */
#define CHUNK_SHIFT     20                /* 1 MiB chunks */
#define SLOT_BITS       (CHUNK_SHIFT - 3) /* 8-byte slots per chunk: 2^17 */
#define ADDR_BITS       48                /* user-space addresses */
#define MAX_SPAN_CHUNKS (1u << 24)        /* 16 TiB between the lowest and highest object */
#define RANK_SPECIAL    0x80000000u       /* chunk holds a class mirror or thread object */
#define MAX_CANDIDATES  64

/* One step of turning the JDK's instance values into hprof's: a value at `src`. */
struct op {
    uint32_t src;
    uint8_t type;
};

struct cls {
    uint64_t id;
    uint64_t name_id;    /* LOAD CLASS: its name's STRING ID */
    char *name;          /* that name, NUL-terminated */
    const uint8_t *dump; /* CLASS DUMP body (after the class ID), or NULL */
    const struct jdr_order *order;
    int64_t super;          /* index of its super class, -1 none */
    struct op *own;         /* own instance values, hprof's order, offsets from */
    uint32_t nown, own_src; /* the start of its own part (own_src bytes) */
    struct op *ops;         /* a whole instance's values, built at first use */
    uint32_t nops, src_bytes;
    int ops_state; /* 0 not built, 1 built, -1 cannot be */
};

struct jdr {
    const uint8_t *data;
    size_t len;
    size_t body;     /* where the records start */
    bool release;    /* madvise pages done with (jdr_open's `mapped`) */
    int discard_fd;  /* >= 0: free the file's blocks behind the writing pass */
    bool discarding; /* in that pass */
    const char *why;
    struct idmap strings;  /* STRING ID -> offset of its record */
    struct idmap class_ix; /* class object ID -> index in cls */
    struct cls *cls;
    struct hd_class *out; /* what the writer sees, index for index */
    uint32_t ncls;
    size_t cls_cap;
    struct {
        uint64_t id;
        uint32_t serial, trace;
    } * troots; /* ROOT THREAD OBJECT: the JDK's serials */
    uint32_t ntroots;
    size_t troots_cap;
    struct idmap special;       /* dump ID -> hprof's ID (classes, threads) */
    struct idmap thread_serial; /* dump thread object ID -> hprof's serial */
    struct idmap thread_trace;  /* dump thread object ID -> hprof's trace serial */
    struct idmap stack_traces;  /* the JDK's STACK TRACE serial -> offset of its record */
    struct idmap stack_frames;  /* the JDK's STACK FRAME ID -> offset of its record */
    struct idmap class_serial;  /* the JDK's class serial -> index in cls */
    uint32_t *serial_of;        /* the JDK's thread serial -> hprof's */
    uint32_t *trace_of;         /* the JDK's thread serial -> hprof's trace serial */
    uint32_t nserials;
    /* chunks */
    struct idmap chunk_ix; /* chunk number + 1 (address >> 20) -> index in bits */
    uint8_t **bits;        /* per used chunk: a bit per 8-byte slot, set where an
                                        object of the dump starts; by rank once ranked */
    uint32_t nbits;
    size_t bits_cap;
    uint64_t mark_chunk; /* the chunk marked last, and its bits */
    uint8_t *mark_bits;
    uint64_t lo, hi; /* lowest and highest used chunk */
    uint32_t *rank;  /* [chunk - lo]: 1 + rank, 0 unused; | RANK_SPECIAL */
    uint32_t nused;
    uint32_t base;
    uint32_t gref;          /* JNI global roots numbered */
    int64_t prim_class[12]; /* class of the arrays of each basic type, -1 none */
    int64_t object_class;   /* java/lang/Object, -1 none */
    int64_t class_class;    /* java/lang/Class, -1 none */
    uint64_t last_cid;      /* the class looked up last, and its index */
    int64_t last_k;
    /* marker */
    uint64_t nonce[2];
    uint32_t marker_len;
    uint64_t nonce_id, marker_id;
    const uint8_t *marker_elems;
    const uint8_t *cand[MAX_CANDIDATES];
    uint32_t ncand;
    uint64_t objects, left_out;
    struct idmap missing; /* objects referred to and not in the dump */
    /* pass 2: where it writes, and its buffers */
    const struct heap_dump_writer *wr;
    struct hd_session *s;
    uint8_t *vals;
    size_t vals_cap;
    uint32_t *elems;
    size_t elems_cap;
};

/* ---- jdk_dump_records.c ---- */
/* Notes why the dump cannot be read (the first reason); false. */
bool jd_fail(struct jdr *r, const char *why);
/* The record at *p: its tag, body and body's length; moves *p past it. false when it is
 * cut short. */
bool jd_next_record(struct jdr *r, const uint8_t **p, const uint8_t *end, unsigned *tag, const uint8_t **body,
                    uint32_t *n);
/* Calls fn on every sub-record of every HEAP DUMP (SEGMENT) record; false when one
 * cannot be read or fn says stop. */
bool jd_each_sub(struct jdr *r, bool (*fn)(struct jdr *r, const uint8_t *p));
/* A STRING's text, NUL-terminated (the caller frees it); "?" when there is none. */
char *jd_string(const struct jdr *r, uint64_t id);

/* ---- jdk_dump_reader.c ---- */
/* The index of the dump's class with this ID, -1 if none. */
int64_t jd_class_index(const struct jdr *r, uint64_t id);

/* ---- jdk_dump_classes.c ---- */
/* Every set class's view, from its CLASS DUMP; a class that cannot be laid out (no
 * memory) is unset. */
void jd_lay_out_classes(struct jdr *r);
/* c->ops: an instance's values, own class first, as steps (see struct op). */
void jd_build_ops(struct jdr *r, struct cls *c);

/* ---- per value: inline, since pass 2 calls them for every field, element and object ---- */

/* Size of a value of basic type t in the JDK's dump; 0 for a type that is none. */
static inline unsigned jd_src_size(unsigned t)
{
    switch (t) {
    case HD_OBJECT: return ID_BYTES;
    case HD_BOOLEAN:
    case HD_BYTE: return 1;
    case HD_CHAR:
    case HD_SHORT: return 2;
    case HD_FLOAT:
    case HD_INT: return 4;
    case HD_DOUBLE:
    case HD_LONG: return 8;
    default: return 0;
    }
}

/* hprof's ID of the dump's object `a` (0 for null and for what is no object of it). */
static inline uint32_t jd_map_id(const struct jdr *r, uint64_t a)
{
    uint64_t c = a >> CHUNK_SHIFT;
    if (!a || !r->rank || c < r->lo || c > r->hi) return 0;
    uint32_t k = r->rank[c - r->lo];
    if (!k) return 0;
    if (k & RANK_SPECIAL) {
        uint64_t v;
        if (idmap_get(&r->special, a, &v)) return (uint32_t)v;
        k &= ~RANK_SPECIAL;
    }
    return r->base + ((k - 1) << SLOT_BITS) + (uint32_t)((a & ((1u << CHUNK_SHIFT) - 1)) >> 3);
}

/* hprof's ID of an object a value refers to. One the dump does not hold is noted, to
 * be written at the end: HotSpot's dumper leaves out the Class objects of classes that
 * are not loaded (the class-data-sharing archive holds those of every archived class),
 * and references to them would not resolve. */
static inline uint32_t jd_map_ref(struct jdr *r, uint64_t a)
{
    uint32_t id = jd_map_id(r, a);
    if (!id || id < r->base) return id; /* null, or a class or thread of hprof's */
    uint32_t slot = (id - r->base) & ((1u << SLOT_BITS) - 1);
    const uint8_t *bits = r->bits[(id - r->base) >> SLOT_BITS];
    if (!(bits[slot >> 3] & (1u << (slot & 7)))) idmap_put(&r->missing, a, id);
    return id;
}

/* A value of the dump, as hprof writes it, to d; returns the byte after it. */
static inline uint8_t *jd_put_value(struct jdr *r, uint8_t *d, unsigned type, const uint8_t *v)
{
    if (type == HD_OBJECT) {
        be_store_u4(d, jd_map_ref(r, be_load_u8(v)));
        return d + 4;
    }
    memcpy(d, v, jd_src_size(type));
    return d + jd_src_size(type);
}

#endif
