/* SPDX-License-Identifier: Apache-2.0 */
/* timeline= records in the text format (writers/timeline_records.h). */
#include <inttypes.h>

#include "tables/classes.h"
#include "tables/run_info.h"
#include "tables/sites.h"
#include "tables/timeline.h"
#include "tables/traces.h"
#include "util/buf.h"
#include "writers/output.h"
#include "writers/text_records.h"
#include "writers/timeline_records.h"

/* "RUN name: value" a line, after the file's first line (text_file_header). */
void text_tl_run_header(struct writer_ctx *w)
{
    const struct run_info *ri = w->run;
    if (!ri) return;
    struct buf *b = output_buf(w->out);
    for (int i = 0; i < ri->n; i++) buf_printf(b, "RUN %s: %s\n", ri->name[i], ri->value[i]);
    buf_printf(b, "\n");
}

/* Microseconds since the file's header time, as ms with 3 decimals. */
static void put_at(struct buf *b, const struct output *o, uint64_t wall_us)
{
    uint64_t base = o->header_millis * 1000u, us = wall_us > base ? wall_us - base : 0;
    buf_printf(b, "%" PRIu64 ".%03u ms", us / 1000u, (unsigned)(us % 1000u));
}

void text_tl_gc(struct writer_ctx *w, const struct gc_record *g)
{
    struct buf *b = output_buf(w->out);
    buf_printf(b, "GC %u (at ", g->seq);
    put_at(b, w->out, g->start_us);
    buf_printf(b,
               ", took %" PRIu64 ".%03u ms, heap used %" PRIu64 " -> %" PRIu64 " bytes, committed %" PRIu64
               " bytes, allocated %" PRIu64 " objects %" PRIu64 " bytes)\n",
               g->duration_ns / 1000000u, (unsigned)(g->duration_ns / 1000u % 1000u), g->used_before, g->used_after,
               g->committed, g->alloc_objs, g->alloc_bytes);
    output_record_end(w->out);
}

void text_tl_heap_size(struct writer_ctx *w, uint64_t committed, uint32_t gc)
{
    buf_printf(output_buf(w->out), "HEAP SIZE (committed %" PRIu64 " bytes, after collection %u)\n", committed, gc);
    output_record_end(w->out);
}

void text_tl_allocs(struct writer_ctx *w, const struct alloc_interval *iv, const struct alloc_row *rows, int nrows)
{
    struct buf *b = output_buf(w->out);
    const struct alloc_totals *t = &iv->tot;
    char when[64];
    const char *name = iv->live ? "ALLOCS LIVE" : "ALLOCS";
    buf_printf(b, "%s BEGIN (interval %u, ", name, iv->number);
    if (iv->gc) buf_printf(b, "at collection %u, ", iv->gc);
    buf_printf(b, "allocated %" PRIu64 " objects %" PRIu64 " bytes", t->alloc_objs, t->alloc_bytes);
    if (iv->live) buf_printf(b, ", live %" PRIu64 " objects %" PRIu64 " bytes", t->live_objs, t->live_bytes);
    buf_printf(b, ") %s\n", text_now(when, sizeof when));
    buf_printf(b, "rank   alloc objs  alloc bytes   live objs  live bytes  trace class\n");
    for (int i = 0; i < nrows; i++) {
        const struct alloc_row *r = &rows[i];
        buf_printf(b, "%4d %12" PRIu64 " %12" PRIu64 " %11" PRIu64 " %11" PRIu64 " %6u %s\n", i + 1, r->alloc_objs,
                   r->alloc_bytes, r->live_objs, r->live_bytes, r->site->trace->serial, r->site->cls->name);
    }
    buf_printf(b, "%s END\n", name);
    output_record_end(w->out);
}

void text_tl_leak_suspects(struct writer_ctx *w, const struct suspect *s, int n, uint32_t intervals)
{
    struct buf *b = output_buf(w->out);
    char when[64];
    buf_printf(b, "LEAK SUSPECTS BEGIN (%d sites whose live bytes kept growing, over %u intervals) %s\n", n, intervals,
               text_now(when, sizeof when));
    buf_printf(b, "rank  grew bytes  first live   last live  highs trace class\n");
    for (int i = 0; i < n; i++)
        buf_printf(b, "%4d %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %3u/%-3u %6u %s\n", i + 1,
                   s[i].last_live - s[i].first_live, s[i].first_live, s[i].last_live, s[i].highs, s[i].intervals,
                   s[i].site->trace->serial, s[i].site->cls->name);
    buf_printf(b, "LEAK SUSPECTS END\n");
    output_record_end(w->out);
}
