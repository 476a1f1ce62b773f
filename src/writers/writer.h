/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A writer turns what the report layer hands it (table entries, ranked rows, snapshots)
 * into one output format: text_writer.c and binary_writer.c each fill a struct writer,
 * and a new format is one more. Every call is made with the output lock held, so a
 * writer may keep "already written" marks on table entries without more locking.
 */
#ifndef HPROF_WRITER_H
#define HPROF_WRITER_H

#include <stdint.h>

struct output;
struct options;
struct string_table;
struct thread_info;
struct trace;
struct run_info;
struct gc_record;
struct alloc_interval;
struct alloc_row;
struct suspect;

struct writer_ctx {
    struct output *out;
    struct string_table *strings; /* binary only: names written as STRING records */
    const struct options *opt;
    const struct run_info *run; /* text: the run header, written after the first line */
    struct trace *empty_trace;  /* 300000: binary writes it in the file header, text
                                        before the first section that names traces */
};

/* One line of a ranked CPU section (CPU SAMPLES, CPU TIME, cpu=old). */
struct rank_row {
    struct trace *trace;
    uint64_t count;   /* samples, or calls */
    uint64_t cost;    /* what the ranking and percentages use: samples, ns or calls */
    uint64_t time_ms; /* cpu=old: the time column */
};

/* timing=gprof: CPU samples CPU TIME cannot charge to a trace: their stack could not be
 * walked, or it held no method whose calls are counted; and the time they stand for. */
struct samples_apart {
    uint64_t unwalked, no_method;
    uint64_t ns;
};

struct site;
struct heap_dump_writer;
struct monitor_snapshot;

/* What a SITES section adds up (over every site, listed or not). */
struct site_totals {
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs;
    double cutoff;
};

struct writer {
    void (*file_header)(struct writer_ctx *w);
    void (*thread_start)(struct writer_ctx *w, const struct thread_info *t);
    void (*thread_end)(struct writer_ctx *w, const struct thread_info *t);
    /* Writes the trace (and, in binary, what it names) unless written before. */
    void (*trace)(struct writer_ctx *w, struct trace *t);
    /* The CPU SAMPLES section: rows ranked, already cut at the cutoff. */
    void (*cpu_samples)(struct writer_ctx *w, const struct rank_row *rows, int nrows, uint64_t total);
    /* cpu=times: the CPU TIME (ms) section (text only; NULL in binary), then the CPU
     * samples left out of it, if any (timing=gprof). */
    void (*cpu_times)(struct writer_ctx *w, const struct rank_row *rows, int nrows, uint64_t total_ns,
                      const struct samples_apart *apart);
    /* heap=sites: the SITES section (text) or HEAP SUMMARY + ALLOC SITES (binary);
     * rows ranked by live bytes and cut at the cutoff, their traces written before. */
    void (*sites)(struct writer_ctx *w, struct site *const *rows, int nrows, const struct site_totals *t);
    /* cpu=old: caller/callee pairs in the old prof format (text only; NULL in binary). */
    void (*cpu_old)(struct writer_ctx *w, const struct rank_row *rows, int nrows);
    /* The HEAP SUMMARY record alone (socket command; binary only). */
    void (*heap_summary)(struct writer_ctx *w, const struct site_totals *t);
    /* The HEAP DUMP section's writer. */
    const struct heap_dump_writer *heap_dump;
    /* monitor=y (text only: format=b with monitor=y is an option error). */
    void (*monitor_wait)(struct writer_ctx *w, const char *signature, int64_t timeout_ms, uint32_t thread_serial);
    void (*monitor_waited)(struct writer_ctx *w, const char *signature, int64_t waited_ms, uint32_t thread_serial);
    /* MONITOR DUMP, then MONITOR TIME when there is time to report. */
    void (*monitors)(struct writer_ctx *w, const struct monitor_snapshot *s);
    /* timeline= (writers/timeline_records.h): the run header (binary; text writes it in
     * its file header), a GC, a change of the committed heap, an interval's
     * allocations (rows' traces and classes written before), the leak suspects (text). */
    void (*run_header)(struct writer_ctx *w, const struct run_info *ri);
    void (*gc)(struct writer_ctx *w, const struct gc_record *g);
    void (*heap_size)(struct writer_ctx *w, uint64_t committed, uint32_t gc);
    void (*allocs)(struct writer_ctx *w, const struct alloc_interval *iv, const struct alloc_row *rows, int nrows);
    void (*leak_suspects)(struct writer_ctx *w, const struct suspect *s, int n, uint32_t intervals);
};

extern const struct writer text_writer;
extern const struct writer binary_writer;

#endif
