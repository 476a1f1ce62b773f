/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HEAP DUMP section's two writers (heap_dump_text.c, heap_dump_binary.c): each
 * implements struct heap_dump_writer (tables/heap_records.h) for one format.
 */
#ifndef HPROF_HEAP_DUMP_H
#define HPROF_HEAP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tables/heap_records.h"

struct writer_ctx;

/* One heap dump being written (the output lock held throughout). */
struct hd_session {
    struct writer_ctx *w;
    bool seg_open;       /* binary: a HEAP DUMP SEGMENT record is open */
    size_t seg_len_at;   /* where its length goes in the output buffer */
    bool told_truncated; /* binary: stderr was told an array was cut (once a dump) */
    /* text: HEAP DUMP BEGIN says what the records after it hold, so they are held back
     * (output_hold_begin) and counted while written, and it goes out before them */
    bool held;
    uint64_t nobjects, nbytes; /* OBJ and ARR records written, and their sz= summed */
    char began[64];            /* the date HEAP DUMP BEGIN carries */
};

/* Binary: how many of an array's n elements of es bytes its sub-record can hold when the
 * record's other fields take `header` bytes: all of them while the sub-record's length
 * fits its u4, else as many as fit (what the JDK's heap dumper writes then). */
uint32_t hd_array_fit(uint32_t n, unsigned es, unsigned header);

extern const struct heap_dump_writer heap_dump_text;
extern const struct heap_dump_writer heap_dump_binary;

#endif
