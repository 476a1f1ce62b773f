/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The binary format (java.hprof): tagged records, each name written once as a
 * STRING record before the first record that uses it, every ID defined before use.
 */
#include <string.h>

#include "options/options.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/ids.h"
#include "tables/methods.h"
#include "tables/sites.h"
#include "tables/strings.h"
#include "tables/threads.h"
#include "tables/traces.h"
#include "util/hprof_format.h"
#include "writers/binary_records.h"
#include "writers/timeline_records.h"
#include "writers/heap_dump.h"
#include "writers/output.h"
#include "writers/writer.h"

static void bin_file_header(struct writer_ctx *w)
{
    struct buf *b = output_buf(w->out);
    /* Heap dumps are written as HEAP DUMP SEGMENTs, which need 1.0.2; over net= a
     * DUMP HEAP command may ask for one at any time. */
    const char *version =
        ((w->opt->heap & HEAP_DUMP) || w->opt->net_host) ? "JAVA PROFILE 1.0.2" : "JAVA PROFILE 1.0.1";
    buf_put(b, version, strlen(version) + 1); /* with its NUL */
    buf_u4(b, HPROF_ID_SIZE);
    buf_u8(b, w->out->header_millis);

    uint32_t flags = 0;
    if (w->opt->heap != HEAP_NONE) flags |= CONTROL_ALLOC_TRACES;
    if (w->opt->cpu == CPU_SAMPLES) flags |= CONTROL_CPU_SAMPLING;
    size_t at = bin_record_begin(w, TAG_CONTROL_SETTINGS);
    buf_u4(b, flags);
    buf_u2(b, (uint16_t)w->opt->depth);
    bin_record_end(w, at);

    /* The empty trace, which thread and class records name when no stack is known;
     * marked written, so no section writes it again. */
    bin_trace(w, w->empty_trace);
}

static void bin_thread_start(struct writer_ctx *w, const struct thread_info *t)
{
    uint32_t name = bin_name_id(w, t->name);
    uint32_t group = bin_name_id(w, t->group);
    uint32_t parent = bin_name_id(w, t->parent_group);
    size_t at = bin_record_begin(w, TAG_START_THREAD);
    struct buf *b = output_buf(w->out);
    buf_u4(b, t->serial);
    buf_u4(b, t->object_id);
    buf_u4(b, SERIAL_TRACE_BASE);
    buf_u4(b, name);
    buf_u4(b, group);
    buf_u4(b, parent);
    bin_record_end(w, at);
}

static void bin_thread_end(struct writer_ctx *w, const struct thread_info *t)
{
    size_t at = bin_record_begin(w, TAG_END_THREAD);
    buf_u4(output_buf(w->out), t->serial);
    bin_record_end(w, at);
}

static void bin_cpu_samples(struct writer_ctx *w, const struct rank_row *rows, int nrows, uint64_t total)
{
    size_t at = bin_record_begin(w, TAG_CPU_SAMPLES);
    struct buf *b = output_buf(w->out);
    buf_u4(b, (uint32_t)total);
    buf_u4(b, (uint32_t)nrows);
    for (int i = 0; i < nrows; i++) {
        buf_u4(b, (uint32_t)rows[i].count);
        buf_u4(b, rows[i].trace->serial);
    }
    bin_record_end(w, at);
}

/* The ALLOC SITES array indicator: 0 for objects, else the basic type of the elements. */
/* ALLOC SITES' "is array" field: 0 for an instance, else the element's basic type. */
static uint8_t array_kind(const char *sig) { return sig[0] == '[' ? (uint8_t)hd_type_of(sig[1]) : 0; }

/* A count in a u4 field of the format: one that passes 4 Gi says the most a u4 can,
 * rather than wrapping to a small number. */
static uint32_t u4_most(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static void bin_heap_summary(struct writer_ctx *w, const struct site_totals *tot)
{
    size_t at = bin_record_begin(w, TAG_HEAP_SUMMARY);
    struct buf *b = output_buf(w->out);
    buf_u4(b, u4_most(tot->live_bytes));
    buf_u4(b, u4_most(tot->live_objs));
    buf_u8(b, tot->alloc_bytes);
    buf_u8(b, tot->alloc_objs);
    bin_record_end(w, at);
}

static void bin_sites(struct writer_ctx *w, struct site *const *rows, int nrows, const struct site_totals *tot)
{
    for (int i = 0; i < nrows; i++) bin_load_class(w, rows[i]->cls);
    bin_heap_summary(w, tot);
    struct buf *b = output_buf(w->out);
    size_t at = bin_record_begin(w, TAG_ALLOC_SITES);
    buf_u2(b, 0); /* complete, sorted by live bytes */
    float cutoff = (float)tot->cutoff;
    uint32_t bits;
    memcpy(&bits, &cutoff, sizeof bits);
    buf_u4(b, bits);
    buf_u4(b, u4_most(tot->live_bytes));
    buf_u4(b, u4_most(tot->live_objs));
    buf_u8(b, tot->alloc_bytes);
    buf_u8(b, tot->alloc_objs);
    buf_u4(b, (uint32_t)nrows);
    for (int i = 0; i < nrows; i++) {
        const struct site *s = rows[i];
        buf_u1(b, array_kind(s->cls->signature));
        buf_u4(b, s->cls->serial);
        buf_u4(b, s->trace->serial);
        buf_u4(b, u4_most(s->live_bytes));
        buf_u4(b, u4_most(s->live_objs));
        buf_u4(b, u4_most(s->shown_bytes));
        buf_u4(b, u4_most(s->shown_objs));
    }
    bin_record_end(w, at);
}

const struct writer binary_writer = {
    .run_header = bin_tl_run_header,
    .gc = bin_tl_gc,
    .heap_size = bin_tl_heap_size,
    .allocs = bin_tl_allocs,
    .file_header = bin_file_header,
    .thread_start = bin_thread_start,
    .thread_end = bin_thread_end,
    .trace = bin_trace,
    .cpu_samples = bin_cpu_samples,
    .sites = bin_sites,
    .heap_summary = bin_heap_summary,
    .heap_dump = &heap_dump_binary,
};
