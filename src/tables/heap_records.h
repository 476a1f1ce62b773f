/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records a heap dump is made of, and the interface that receives them: a heap
 * source (the JVMTI walk, sources/heapdump/heap_walk.c; the reader of the JDK's own dump,
 * sources/heapdump/jdk_dump_reader.c) builds the class views and hands the records to the struct
 * heap_sink it is given; the struct heap_dump_writer the sink carries is the text or
 * binary heap dump writer.
 *
 * Values are kept the way the binary format lays them out: an instance's field values
 * big-endian, its own class's fields first, then its super's, and so on (4-byte IDs for
 * references). The text writer reads object IDs back out of the same bytes.
 */
#ifndef HPROF_HEAP_RECORDS_H
#define HPROF_HEAP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hprof_format.h" /* enum hd_type, the basic types */

struct class_info;
struct hd_session; /* one dump being written: the writer's own */

/* Heap dump sub-record tags (the manual's numbers). */
enum hd_root {
    HD_ROOT_UNKNOWN = 0xFF,
    HD_ROOT_JNI_GLOBAL = 0x01,
    HD_ROOT_JNI_LOCAL = 0x02,
    HD_ROOT_JAVA_FRAME = 0x03,
    HD_ROOT_NATIVE_STACK = 0x04,
    HD_ROOT_STICKY_CLASS = 0x05,
    HD_ROOT_THREAD_BLOCK = 0x06,
    HD_ROOT_MONITOR_USED = 0x07,
    HD_ROOT_THREAD_OBJECT = 0x08,
};
#define HD_CLASS_DUMP      0x20
#define HD_INSTANCE_DUMP   0x21
#define HD_OBJ_ARRAY_DUMP  0x22
#define HD_PRIM_ARRAY_DUMP 0x23

/* Size in the binary format of a value of a basic type (IDs are 4 bytes). */
static inline unsigned hd_type_size(int t)
{
    switch (t) {
    case HD_BOOLEAN:
    case HD_BYTE: return 1;
    case HD_CHAR:
    case HD_SHORT: return 2;
    case HD_LONG:
    case HD_DOUBLE: return 8;
    default: return 4;
    }
}

struct hd_field {
    char *name;
    uint8_t type;     /* enum hd_type */
    uint32_t name_id; /* binary: STRING id */
};

/* One class as the dump sees it (built by the heap source at the start of each dump). */
struct hd_class {
    struct class_info *info;
    struct hd_class *super;
    bool is_array;
    uint8_t elem_type; /* arrays: enum hd_type of the elements */
    bool is_interface;
    uint32_t loader_id, signers_id, domain_id;
    uint32_t inst_bytes;        /* bytes of an instance's values, supers' included */
    uint32_t own_bytes;         /* of those, this class's own fields */
    uint32_t obj_size;          /* an instance's size in the heap (text sz=), 0 unknown */
    uint32_t nfields, nstatics; /* own instance fields, own static fields */
    struct hd_field *fields, *statics;
    uint8_t *static_values; /* statics' values, packed, big-endian */
    uint32_t static_bytes;
    /* JVMTI field index -> where its value goes (-1: not here). Instance indexes for
     * the instance view, static indexes for the class's own statics. */
    int32_t *inst_slot_off, *static_slot_off;
    uint8_t *inst_slot_type, *static_slot_type;
    uint32_t nslots, nstatic_slots;
};

/* Frees what a class's view owns (names, fields, statics, slots), not the view itself. */
void hd_class_free(struct hd_class *c);

struct hd_root_info {
    int kind; /* enum hd_root */
    uint32_t id;
    uint32_t thread_serial;
    uint32_t trace_serial;
    int32_t frame;    /* JAVA_FRAME, JNI_LOCAL */
    uint32_t gref;    /* JNI_GLOBAL: the reference's number */
    const char *name; /* STICKY_CLASS: the class's name (text) */
};

/* What receives a heap dump; every call with the output lock held. */
struct heap_dump_writer {
    /* Before the dump: names and classes the dump will use. */
    void (*prepare)(struct hd_session *s, struct hd_class *classes, uint32_t n);
    void (*begin)(struct hd_session *s, uint64_t nobjects, uint64_t nbytes);
    void (*root)(struct hd_session *s, const struct hd_root_info *r);
    void (*class_dump)(struct hd_session *s, const struct hd_class *c);
    /* `trace`: the serial of the object's allocation site trace (written before), or
     * SERIAL_TRACE_BASE when it has none. */
    /* `size`: the object's size in the heap in bytes (an array's may pass 4 GiB), 0 when
     * not known. */
    void (*instance)(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                     const uint8_t *values);
    void (*obj_array)(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                      uint32_t n, const uint32_t *elems);
    /* elements big-endian already */
    void (*prim_array)(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                       uint32_t n, int type, const uint8_t *elems);
    void (*end)(struct hd_session *s);
};

/* A heap dump on its way out: the records' receiver, and the two calls around them
 * (the report layer's) that a source makes once its preparation is done: open takes the
 * output (and writes the traces the dump names), close gives it back. */
struct heap_sink {
    const struct heap_dump_writer *wr;
    struct hd_session *s;
    void (*open)(struct heap_sink *k);
    void (*close)(struct heap_sink *k);
    void *ctx;
};

#endif
