/* SPDX-License-Identifier: Apache-2.0 */
/* timeline= records in the binary format (layouts in writers/timeline_records.h). */
#include "tables/classes.h"
#include "tables/run_info.h"
#include "tables/sites.h"
#include "tables/timeline.h"
#include "tables/traces.h"
#include "util/buf.h"
#include "writers/binary_records.h"
#include "writers/output.h"
#include "writers/timeline_records.h"

void bin_tl_run_header(struct writer_ctx *w, const struct run_info *ri)
{
    uint32_t ids[2 * RUN_INFO_MAX];
    for (int i = 0; i < ri->n; i++) { /* the STRING records first, outside this one */
        ids[2 * i] = bin_name_id(w, ri->name[i]);
        ids[2 * i + 1] = bin_name_id(w, ri->value[i]);
    }
    size_t at = bin_record_begin(w, TAG_RUN_HEADER);
    struct buf *b = output_buf(w->out);
    buf_u4(b, (uint32_t)ri->n);
    for (int i = 0; i < 2 * ri->n; i++) buf_u4(b, ids[i]);
    bin_record_end(w, at);
}

void bin_tl_gc(struct writer_ctx *w, const struct gc_record *g)
{
    size_t at = bin_record_begin(w, TAG_GC);
    struct buf *b = output_buf(w->out);
    uint64_t base = w->out->header_millis * 1000u;
    buf_u4(b, g->seq);
    buf_u8(b, g->start_us > base ? g->start_us - base : 0);
    buf_u8(b, g->duration_ns);
    buf_u8(b, g->used_before);
    buf_u8(b, g->used_after);
    buf_u8(b, g->committed);
    buf_u8(b, g->alloc_objs);
    buf_u8(b, g->alloc_bytes);
    bin_record_end(w, at);
}

void bin_tl_heap_size(struct writer_ctx *w, uint64_t committed, uint32_t gc)
{
    size_t at = bin_record_begin(w, TAG_HEAP_SIZE);
    buf_u8(output_buf(w->out), committed);
    buf_u4(output_buf(w->out), gc);
    bin_record_end(w, at);
}

void bin_tl_allocs(struct writer_ctx *w, const struct alloc_interval *iv, const struct alloc_row *rows, int nrows)
{
    for (int i = 0; i < nrows; i++) bin_load_class(w, rows[i].site->cls);
    size_t at = bin_record_begin(w, iv->live ? TAG_ALLOCS_LIVE : TAG_ALLOCS);
    struct buf *b = output_buf(w->out);
    buf_u4(b, iv->number);
    buf_u4(b, iv->gc);
    buf_u8(b, iv->tot.alloc_objs);
    buf_u8(b, iv->tot.alloc_bytes);
    if (iv->live) {
        buf_u8(b, iv->tot.live_objs);
        buf_u8(b, iv->tot.live_bytes);
    }
    buf_u4(b, (uint32_t)nrows);
    for (int i = 0; i < nrows; i++) {
        const struct alloc_row *r = &rows[i];
        buf_u4(b, r->site->cls->serial);
        buf_u4(b, r->site->trace->thread_serial);
        buf_u4(b, r->site->trace->serial);
        buf_u8(b, r->alloc_objs);
        buf_u8(b, r->alloc_bytes);
        if (iv->live) {
            buf_u8(b, r->live_objs);
            buf_u8(b, r->live_bytes);
        }
    }
    bin_record_end(w, at);
}
