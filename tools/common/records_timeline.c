/* SPDX-License-Identifier: Apache-2.0 */
/* The timeline= records (tags 0x40-0x44; layouts in the agent's
 * src/writers/timeline_records.h and docs/binary-format.md): read, checked, printed. */
#include "hd.h"

static int len_is(hd_state *st, uint64_t off, const char *name, uint64_t len, uint64_t want)
{
    if (len == want) return 1;
    hd_error(st, off, "%s: record length %llu, but its content takes %llu bytes", name, (unsigned long long)len,
             (unsigned long long)want);
    return 0;
}

static int rec_run_header(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    uint64_t len = b->left, I = (uint64_t)st->idsize;
    uint32_t n = hd_b_u4(b);
    if (hd_b_bad(b) || !len_is(st, off, "RUN_HEADER", len, 4 + 2 * I * n)) return 0;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "RUN_HEADER fields=%u", n);
        hd_line_end(st);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t foff = b->r->off;
        uint64_t name = hd_b_id(b), value = hd_b_id(b);
        if (hd_b_bad(b)) return 0;
        hd_use(st, K_STRING, name, foff, "RUN_HEADER", 0);
        hd_use(st, K_STRING, value, foff, "RUN_HEADER", 0);
        if (st->print) {
            hd_line_begin(st, foff, 1, 0);
            buf_printf(&st->line, "RUN ");
            hd_put_sid(st, name, 0);
            buf_printf(&st->line, " = ");
            hd_put_sid(st, value, 1);
            hd_line_end(st);
        }
    }
    return 1;
}

static int rec_gc(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!len_is(st, off, "GC", b->left, 4 + 7 * 8)) return 0;
    uint32_t seq = hd_b_u4(b);
    uint64_t v[7];
    for (int i = 0; i < 7; i++) v[i] = hd_b_u8(b);
    if (hd_b_bad(b)) return 0;
    if (v[4] > 0 && v[2] > v[4])
        hd_warning(st, off, "GC %u: heap used before (%llu) is more than committed (%llu)", seq,
                   (unsigned long long)v[2], (unsigned long long)v[4]);
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line,
                   "GC seq=%u start_us=%llu duration_ns=%llu used_before=%llu used_after=%llu committed=%llu "
                   "alloc_objs=%llu alloc_bytes=%llu",
                   seq, (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
                   (unsigned long long)v[3], (unsigned long long)v[4], (unsigned long long)v[5],
                   (unsigned long long)v[6]);
        hd_line_end(st);
    }
    return 1;
}

static int rec_heap_size(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!len_is(st, off, "HEAP_SIZE", b->left, 12)) return 0;
    uint64_t committed = hd_b_u8(b);
    uint32_t gc = hd_b_u4(b);
    if (hd_b_bad(b)) return 0;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "HEAP_SIZE committed=%llu gc=%u", (unsigned long long)committed, gc);
        hd_line_end(st);
    }
    return 1;
}

/* ALLOCS_LIVE (live) and ALLOCS: a header of totals, then a row per site. */
static int rec_allocs(hd_state *st, hd_body *b, uint64_t off, uint32_t time, int live)
{
    const char *name = live ? "ALLOCS_LIVE" : "ALLOCS";
    uint64_t len = b->left, nv = live ? 4 : 2;
    uint32_t number = hd_b_u4(b), gc = hd_b_u4(b);
    uint64_t tot[4] = {0, 0, 0, 0};
    for (uint64_t i = 0; i < nv; i++) tot[i] = hd_b_u8(b);
    uint32_t n = hd_b_u4(b);
    if (hd_b_bad(b) || !len_is(st, off, name, len, 12 + 8 * nv + (uint64_t)n * (12 + 8 * nv))) return 0;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "%s number=%u gc=%u alloc_objs=%llu alloc_bytes=%llu", name, number, gc,
                   (unsigned long long)tot[0], (unsigned long long)tot[1]);
        if (live)
            buf_printf(&st->line, " live_objs=%llu live_bytes=%llu", (unsigned long long)tot[2],
                       (unsigned long long)tot[3]);
        buf_printf(&st->line, " nrows=%u", n);
        hd_line_end(st);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t roff = b->r->off;
        uint32_t cls = hd_b_u4(b), thread = hd_b_u4(b), trace = hd_b_u4(b);
        uint64_t v[4] = {0, 0, 0, 0};
        for (uint64_t k = 0; k < nv; k++) v[k] = hd_b_u8(b);
        if (hd_b_bad(b)) return 0;
        hd_use(st, K_CLASS, cls, roff, name, 0);
        hd_use(st, K_TRACE, trace, roff, name, 1);
        if (thread) hd_use(st, K_THREAD, thread, roff, name, 0);
        if (st->print) {
            hd_line_begin(st, roff, 1, 0);
            buf_printf(&st->line, "ROW class=%u(", cls);
            hd_put_class_serial(st, cls);
            buf_printf(&st->line, ") thread=%u trace=%u alloc_objs=%llu alloc_bytes=%llu", thread, trace,
                       (unsigned long long)v[0], (unsigned long long)v[1]);
            if (live)
                buf_printf(&st->line, " live_objs=%llu live_bytes=%llu", (unsigned long long)v[2],
                           (unsigned long long)v[3]);
            hd_line_end(st);
        }
    }
    return 1;
}

int hd_timeline_record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time)
{
    switch (tag) {
    case 0x40: return rec_run_header(st, b, off, time);
    case 0x41: return rec_gc(st, b, off, time);
    case 0x42: return rec_heap_size(st, b, off, time);
    case 0x43: return rec_allocs(st, b, off, time, 1);
    default: return rec_allocs(st, b, off, time, 0);
    }
}
