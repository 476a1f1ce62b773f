/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline= records in both formats (README, "The run and its heap over time").
 * Binary layouts (IDs 4 bytes, numbers big-endian; tags in util/hprof_format.h):
 *   0x40 RUN HEADER   u4 n, then n x (ID name, ID value): STRING records, written before
 *   0x41 GC           u4 GC number (1, 2 ...), u8 start (us since the file header's time),
 *                     u8 duration (ns, the JVM's GC start to its finish), u8 heap used
 *                     before, u8 heap used after, u8 heap committed after (bytes, the
 *                     JVM's jvmstat counters; 0 if unknown), u8 objects and u8 bytes
 *                     allocated since the previous GC (heap=sites; else 0)
 *   0x42 HEAP SIZE    u8 heap committed (bytes), u4 the GC after which it changed
 *   0x43 ALLOCS LIVE  u4 record number (1, 2 ... shared with ALLOCS), u4 the GC it ends
 *                     at (0: a timeline=<ms> period), u8 objects and u8 bytes allocated
 *                     in the interval, u8 objects and u8 bytes live at its end (every
 *                     site), u4 n, then n x (u4 class serial, u4 thread serial (0 unless
 *                     thread=y), u4 trace serial, u8 objects, u8 bytes allocated, u8
 *                     objects, u8 bytes live), most bytes allocated first, top= at most
 *   0x44 ALLOCS       the same without the live fields: u4 number, u4 0, u8 objects,
 *                     u8 bytes, u4 n, n x (u4 class serial, u4 thread serial, u4 trace
 *                     serial, u8 objects, u8 bytes)   (the net= command ALLOCS)
 * LOAD CLASS and TRACE records of the rows are written before.
 */
#ifndef HPROF_TIMELINE_RECORDS_H
#define HPROF_TIMELINE_RECORDS_H

#include <stdint.h>

#include "writers/writer.h"

void text_tl_run_header(struct writer_ctx *w);
void text_tl_gc(struct writer_ctx *w, const struct gc_record *g);
void text_tl_heap_size(struct writer_ctx *w, uint64_t committed, uint32_t gc);
void text_tl_allocs(struct writer_ctx *w, const struct alloc_interval *iv, const struct alloc_row *rows, int nrows);
void text_tl_leak_suspects(struct writer_ctx *w, const struct suspect *s, int n, uint32_t intervals);

void bin_tl_run_header(struct writer_ctx *w, const struct run_info *ri);
void bin_tl_gc(struct writer_ctx *w, const struct gc_record *g);
void bin_tl_heap_size(struct writer_ctx *w, uint64_t committed, uint32_t gc);
void bin_tl_allocs(struct writer_ctx *w, const struct alloc_interval *iv, const struct alloc_row *rows, int nrows);

#endif
