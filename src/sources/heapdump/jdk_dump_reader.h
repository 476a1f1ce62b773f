/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reads a binary heap dump written by the JDK's own dumper (HotSpot: 8-byte IDs, the
 * objects' addresses) and hands what it holds to a heap dump writer (struct
 * heap_dump_writer, tables/heap_records.h) in hprof's terms: objects renamed to 4-byte
 * IDs, classes and threads to the IDs and serial numbers hprof gave them, instance
 * fields in hprof's order. Pure C, no JVMTI: the caller (sources/heapdump/jdk_dumper.c) says
 * which class and thread each of the dump's is.
 *
 * The caller finds its own objects in the dump through a marker it made before the dump:
 * an Object[] whose element 0 is a long[4] starting with a 128-bit nonce; the other
 * elements are the objects it needs the dump's IDs of (class mirrors, thread objects,
 * owned monitors). The marker and its long[] are left out of what is written, and so are
 * the roots that held them.
 */
#ifndef HPROF_JDK_DUMP_READER_H
#define HPROF_JDK_DUMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tables/heap_records.h"

struct jdr;
struct class_info;

/* The order a class's fields take in hprof's output (the JVM's declaration order): names
 * of its own instance fields, and of its static fields. A field the dump has and the order
 * does not name goes after those named. */
struct jdr_order {
    const char *const *inst;
    uint32_t ninst;
    const char *const *statics;
    uint32_t nstatics;
};

/*
 * Checks and indexes the dump in data[0..len) (which must stay mapped while the reader
 * lives). `marker_len` is the length of the marker array. `mapped`: the data is a private
 * read-only mapping of a file, and the pages each pass is done with are handed back
 * (madvise), so that the agent's resident memory does not grow by the file's size. NULL
 * when the dump cannot be read (a format this reader does not know, a bound passed);
 * *why then says what.
 */
struct jdr *jdr_open(const uint8_t *data, size_t len, bool mapped, const uint64_t nonce[2], uint32_t marker_len,
                     const char **why);
void jdr_close(struct jdr *r);
/* fd: the mapped file, open for writing. jdr_write then frees its blocks behind the pass
 * (the data must not be read again after jdr_write). */
void jdr_discard_behind(struct jdr *r, int fd);

/* The dump's ID of element i of the marker; 0 when the marker was not found. */
uint64_t jdr_marker_element(const struct jdr *r, uint32_t i);

/* The dump's classes: ID of the class object, name as LOAD CLASS gives it ("[I",
 * "java/lang/String"; NUL-terminated copy, NULL if it had none). */
uint32_t jdr_class_count(const struct jdr *r);
uint64_t jdr_class_id(const struct jdr *r, uint32_t k);
const char *jdr_class_name(const struct jdr *r, uint32_t k);
/* The dump's class k is hprof's `info`, its fields in `order` (kept by the caller until
 * jdr_write returns). Objects of classes not set are left out. */
void jdr_set_class(struct jdr *r, uint32_t k, struct class_info *info, const struct jdr_order *order);
bool jdr_class_is_set(const struct jdr *r, uint32_t k);
/* hprof's class set for the dump's class k, NULL if none. */
struct class_info *jdr_class_info(const struct jdr *r, uint32_t k);
/* The dump's object `id` is the thread hprof knows by this object ID and serial. */
void jdr_set_thread(struct jdr *r, uint64_t id, uint32_t object_id, uint32_t serial);
/* That thread's ROOT THREAD OBJECT names hprof's trace `trace_serial` (its stack). A
 * thread of the dump not set (the agent's own, one that started while the JVM dumped)
 * has its roots written as ROOT UNKNOWN. */
void jdr_set_thread_trace(struct jdr *r, uint64_t id, uint32_t trace_serial);

/* One frame of a thread's stack as the JDK's dump gives it (STACK FRAME). */
struct jdr_frame {
    uint32_t class_k;         /* the dump's class index (see jdr_class_id), UINT32_MAX unknown */
    char *method, *signature; /* malloc'd, NULL when the dump does not say */
    int32_t line;             /* > 0 a line; -1 unknown, -2 compiled, -3 native */
};
/* The frames of the stack the JDK wrote for the thread whose object is `id` (the dump's
 * ID), top first, at most max of them into out; returns how many the stack has (0: none
 * written). Free with jdr_frames_free. The dump's Java frame roots number these frames. */
uint32_t jdr_thread_frames(const struct jdr *r, uint64_t id, struct jdr_frame *out, uint32_t max);
void jdr_frames_free(struct jdr_frame *f, uint32_t n);

/* The dump's object `id` is left out, and references to it are null (objects of the
 * agent's own that the dump holds). */
void jdr_hide(struct jdr *r, uint64_t id);

/* IDs the objects need (see jdr_write's `base`), 0 when they cannot be told in 32 bits. */
uint64_t jdr_ids_needed(const struct jdr *r);

/*
 * Writes the dump through `wr`: prepare, begin, a MONITOR USED root for each of the
 * dump's `monitors`, every root and object, the classes, end. Objects take IDs from
 * `base` on (jdr_ids_needed of them). Returns the objects left out (of classes not set).
 */
uint64_t jdr_write(struct jdr *r, const struct heap_dump_writer *wr, struct hd_session *s, uint32_t base,
                   const uint64_t *monitors, uint32_t nmonitors);

#endif
