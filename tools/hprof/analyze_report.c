/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the analysis found, as text (sections NAME BEGIN ... NAME END, like the agent's
 * text profile) or as one JSON object: the dump, the histogram of classes, the biggest
 * objects by retained size with their dominators, a path from a root, waste, leak
 * suspects and retained bytes per allocation site. Walks of the dominator tree use its
 * children as CSR arrays and an explicit stack.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_histogram.h"
#include "analyze_out.h"
#include "analyze_waste.h"
#include "util/hprof_format.h"

#define CHAIN_SHOWN 12 /* dominators shown above an object; the rest are counted */

/* Indexes of the n biggest of vals[0..count) (by value, then index), into top[]. */
static uint32_t top_n(const uint64_t *vals, const uint32_t *which, uint32_t count, uint32_t n, uint32_t *top)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x = which ? which[i] : i;
        if (m == n && vals[x] <= vals[top[m - 1]]) continue;
        uint32_t j = m < n ? m++ : n - 1;
        while (j > 0 && vals[top[j - 1]] < vals[x]) top[j] = top[j - 1], j--;
        top[j] = x;
    }
    return m;
}

/* ------------------------------------------------------------ the report */

static void chain(const struct an_heap *h, const struct an_dom *d, uint32_t o, struct out *w)
{
    uint32_t up[CHAIN_SHOWN], n = 0, more = 0;
    for (uint32_t x = d->idom[o]; x != AN_NONE; x = d->idom[x])
        if (n < CHAIN_SHOWN)
            up[n++] = x;
        else
            more++;
    struct buf lb;
    buf_init(&lb);
    if (w->json) buf_put(&w->b, "[", 1);
    if (!w->json && more) buf_printf(&w->b, "      ... %u dominators up to a root\n", more);
    for (uint32_t i = n; i-- > 0;) {
        buf_reset(&lb);
        an_object_label(h, up[i], &lb);
        if (w->json) {
            buf_printf(&w->b, "%s{\"object\": ", i + 1 < n ? ", " : "");
            an_json_str(&w->b, lb.data, lb.len);
            buf_printf(&w->b, ", \"retained\": %" PRIu64 "}", d->retained[up[i]]);
        } else
            buf_printf(&w->b, "      under %s (retains %" PRIu64 ")\n", an_buf_text(&lb), d->retained[up[i]]);
    }
    if (w->json) buf_printf(&w->b, "], \"dominators_not_shown\": %u", more);
    buf_free(&lb);
}

static void report_summary(const struct an_heap *h, const struct an_dom *d, struct out *w)
{
    uint64_t all = 0;
    for (uint32_t o = 0; o < h->n; o++) all += an_shallow(h, o);
    if (w->json)
        buf_printf(&w->b,
                   "\"dump\": {\"objects\": %u, \"reachable\": %u, \"bytes\": %" PRIu64
                   ", \"reachable_bytes\": %" PRIu64
                   ", \"classes\": %u, \"gc_roots\": %u, \"id_size\": %d, \"oop_size\": %d, \"heap_dumps\": %" PRIu64
                   ", \"references\": %" PRIu64 ", \"unresolved_references\": %" PRIu64 "}",
                   h->n, d->nreach, all, d->total, h->nclasses, h->nroots, h->idsize, h->oopsize, h->dumps, h->nedges,
                   h->unresolved);
    else
        buf_printf(&w->b,
                   "DUMP: %u objects (%" PRIu64 " bytes), %u reachable from %u GC roots (%" PRIu64
                   " bytes), %u classes\n"
                   "  ids %d bytes, references %d bytes; %" PRIu64 " references, %" PRIu64
                   " to ids not in the dump; heap dump %" PRIu64 " of %" PRIu64 " in the file\n\n",
                   h->n, all, d->nreach, h->nroots, d->total, h->nclasses, h->idsize, h->oopsize, h->nedges,
                   h->unresolved, h->dumps, h->dumps);
    w->sections = 1;
}

static void report_histogram(const struct an_heap *h, const struct an_histo *r, uint32_t nr, const struct an_opts *o,
                             struct out *w)
{
    struct buf nb;
    buf_init(&nb);
    uint32_t n = nr < (uint32_t)o->top ? nr : (uint32_t)o->top;
    an_out_section(
        w, "histogram",
        "HISTOGRAM BEGIN (classes by retained bytes: of the instances no other instance of the class dominates)\n"
        "rank   instances      shallow     retained class");
    if (w->json) buf_put(&w->b, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        buf_reset(&nb);
        an_class_name(h, r[i].cls, &nb);
        if (w->json) {
            buf_printf(&w->b, "%s\n {\"class\": ", i ? "," : "");
            an_json_str(&w->b, nb.data, nb.len);
            buf_printf(&w->b, ", \"instances\": %" PRIu64 ", \"shallow\": %" PRIu64 ", \"retained\": %" PRIu64 "}",
                       r[i].count, r[i].shallow, r[i].retained);
        } else
            buf_printf(&w->b, "%4u %11" PRIu64 " %12" PRIu64 " %12" PRIu64 " %s\n", i + 1, r[i].count, r[i].shallow,
                       r[i].retained, an_buf_text(&nb));
    }
    buf_put(&w->b, w->json ? "]" : "HISTOGRAM END\n\n", w->json ? 1 : 15);
    buf_free(&nb);
}

static void report_biggest(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, struct out *w)
{
    uint32_t *top = malloc((size_t)o->top * sizeof *top);
    if (!top) return;
    uint32_t n = top_n(d->retained, d->order, d->nreach, (uint32_t)o->top, top);
    struct buf lb;
    buf_init(&lb);
    an_out_section(w, "biggest",
                   "BIGGEST OBJECTS BEGIN (by retained bytes, each under its dominators from a GC root)\n"
                   "rank     retained      shallow object");
    if (w->json) buf_put(&w->b, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        buf_reset(&lb);
        an_object_label(h, top[i], &lb);
        if (w->json) {
            buf_printf(&w->b, "%s\n {\"object\": ", i ? "," : "");
            an_json_str(&w->b, lb.data, lb.len);
            buf_printf(&w->b,
                       ", \"id\": \"0x%" PRIx64 "\", \"retained\": %" PRIu64 ", \"shallow\": %" PRIu64
                       ", \"dominators\": ",
                       an_id(h, top[i]), d->retained[top[i]], an_shallow(h, top[i]));
            chain(h, d, top[i], w);
            buf_put(&w->b, "}", 1);
        } else {
            buf_printf(&w->b, "%4u %12" PRIu64 " %12" PRIu64 " %s\n", i + 1, d->retained[top[i]], an_shallow(h, top[i]),
                       an_buf_text(&lb));
            chain(h, d, top[i], w);
        }
        if (w->b.len > (1u << 20)) an_out_flush(w);
    }
    buf_put(&w->b, w->json ? "]" : "BIGGEST OBJECTS END\n\n", w->json ? 1 : 21);
    buf_free(&lb);
    free(top);
}

/* The object --path names: an id, or the instance of a class that retains most. */
static uint32_t path_target(const struct an_heap *h, const struct an_dom *d, const char *what)
{
    if (!strncmp(what, "0x", 2)) return an_find(h, strtoull(what, NULL, 16));
    struct buf nb;
    buf_init(&nb);
    uint32_t best = AN_NONE;
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i];
        if (h->cls[o] == AN_NONE || AN_KIND(h, o) == AN_CLASSOBJ) continue;
        if (best != AN_NONE && d->retained[o] <= d->retained[best]) continue;
        buf_reset(&nb);
        an_class_name(h, h->cls[o], &nb);
        if (!strcmp(an_buf_text(&nb), what)) best = o;
    }
    buf_free(&nb);
    return best;
}

static void report_path(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, struct out *w)
{
    uint32_t t = path_target(h, d, o->path_of), *path = NULL, n = 0;
    if (t != AN_NONE) n = an_root_path(h, t, &path);
    struct buf lb;
    buf_init(&lb);
    an_out_section(w, "path", "PATH BEGIN (the shortest path from a GC root over strong references)");
    if (w->json) buf_put(&w->b, "[", 1);
    if (!n && !w->json)
        buf_printf(&w->b, "%s: %s\n", o->path_of,
                   t == AN_NONE ? "no such object or class" : "not reachable from a root");
    for (uint32_t i = 0; i < n; i++) {
        buf_reset(&lb);
        an_object_label(h, path[i], &lb);
        if (w->json) {
            buf_printf(&w->b, "%s{\"object\": ", i ? ", " : "");
            an_json_str(&w->b, lb.data, lb.len);
            buf_printf(&w->b, ", \"retained\": %" PRIu64 "}", d->retained[path[i]]);
        } else
            buf_printf(&w->b, "%*s%s%s (retains %" PRIu64 ")\n", (int)(i < 40 ? 2 * i : 80), "", i ? "-> " : "root ",
                       an_buf_text(&lb), d->retained[path[i]]);
    }
    buf_put(&w->b, w->json ? "]" : "PATH END\n\n", w->json ? 1 : 10);
    buf_free(&lb);
    free(path);
}

static void dup_rows(const struct an_heap *h, struct dup *g, uint32_t ng, bool strings, int top, struct out *w)
{
    qsort(g, ng, sizeof *g, an_dup_cmp);
    uint64_t total = 0;
    for (uint32_t i = 0; i < ng; i++) total += (uint64_t)(g[i].count - 1) * g[i].bytes;
    struct buf lb;
    buf_init(&lb);
    if (w->json)
        buf_printf(&w->b, "{\"groups\": %u, \"saved_bytes\": %" PRIu64 ", \"top\": [", ng, total);
    else
        buf_printf(&w->b, "%s: %u values held more than once; one copy of each would save %" PRIu64 " bytes\n",
                   strings ? "duplicate strings" : "duplicate primitive arrays (not string values)", ng, total);
    for (uint32_t i = 0; i < ng && i < (uint32_t)top; i++) {
        buf_reset(&lb);
        if (strings)
            an_string_text(h, g[i].first, &lb, w->json);
        else
            an_object_label(h, g[i].first, &lb);
        uint64_t saved = (uint64_t)(g[i].count - 1) * g[i].bytes;
        if (w->json) {
            buf_printf(&w->b, "%s{\"copies\": %u, \"saved_bytes\": %" PRIu64 ", \"%s\": ", i ? ", " : "", g[i].count,
                       saved, strings ? "value" : "first");
            if (strings)
                buf_put(&w->b, lb.data, lb.len);
            else
                an_json_str(&w->b, lb.data, lb.len);
            buf_put(&w->b, "}", 1);
        } else
            buf_printf(&w->b, "  %8u copies %12" PRIu64 " bytes saved  %s\n", g[i].count, saved, an_buf_text(&lb));
    }
    if (w->json) buf_put(&w->b, "]}", 2);
    buf_free(&lb);
}

static void report_waste(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, struct out *w)
{
    an_out_section(w, "waste", "WASTE BEGIN");
    if (w->json) buf_put(&w->b, "{\"duplicate_strings\": ", 22);
    uint32_t ng = 0;
    struct dup *g = an_duplicates(h, d, true, NULL, &ng);
    uint8_t *values = calloc((size_t)h->n + 1, 1);
    if (values)
        for (uint32_t i = 0; i < d->nreach; i++) {
            uint32_t s = d->order[i];
            an_pages_done(h, i + 1);
            if (AN_KIND(h, s) == AN_INSTANCE && h->cls[s] != AN_NONE && h->classes[h->cls[s]].kind == AN_K_STRING) {
                uint32_t a = an_string_value(h, s);
                if (a != AN_NONE) values[a] = 1;
            }
        }
    if (g) dup_rows(h, g, ng, true, o->top, w);
    free(g);
    if (w->json) buf_put(&w->b, ", \"duplicate_arrays\": ", 22);
    g = an_duplicates(h, d, false, values, &ng);
    if (g) dup_rows(h, g, ng, false, o->top, w);
    free(g);
    free(values);
    struct coll_waste c;
    an_collection_waste(h, d, &c);
    static const char *const NAMES[] = {"java.util.ArrayList", "java.util.HashMap"};
    if (w->json) buf_put(&w->b, ", \"collections\": [", 18);
    for (int i = 0; i < 2; i++) {
        if (w->json)
            buf_printf(&w->b,
                       "%s{\"class\": \"%s\", \"empty\": %" PRIu64 ", \"empty_bytes\": %" PRIu64
                       ", \"sparse\": %" PRIu64 ", \"sparse_unused_bytes\": %" PRIu64 "}",
                       i ? ", " : "", NAMES[i], c.empty[i], c.empty_bytes[i], c.sparse[i], c.sparse_bytes[i]);
        else
            buf_printf(&w->b,
                       "%s: %" PRIu64 " empty (%" PRIu64 " bytes with their arrays), %" PRIu64
                       " less than a quarter full (%" PRIu64 " bytes of unused slots)\n",
                       NAMES[i], c.empty[i], c.empty_bytes[i], c.sparse[i], c.sparse_bytes[i]);
    }
    buf_put(&w->b, w->json ? "]}" : "WASTE END\n\n", w->json ? 2 : 11);
}

static void report_suspects(const struct an_heap *h, const struct an_dom *d, const struct an_kids *k,
                            const struct an_histo *r, uint32_t nr, const struct an_opts *o, struct out *w)
{
    uint64_t limit = (uint64_t)((double)d->total * o->suspect_share);
    struct buf lb, ab;
    buf_init(&lb);
    buf_init(&ab);
    char head[160];
    snprintf(head, sizeof head,
             "LEAK SUSPECTS BEGIN (objects and classes retaining more than %.4g%% of %" PRIu64 " bytes)",
             o->suspect_share * 100, d->total);
    an_out_section(w, "leak_suspects", head);
    if (w->json) buf_printf(&w->b, "{\"share\": %.6g, \"objects\": [", o->suspect_share);
    /* objects: the biggest that no bigger suspect holds, so that a chain of dominators
     * above one accumulation point is named once (its lowest member) */
    uint32_t top[64], accs[64], n = top_n(d->retained, d->order, d->nreach, 64, top), shown = 0;
    for (uint32_t i = 0; i < n && shown < (uint32_t)o->top; i++) {
        uint32_t s = top[i];
        accs[i] = AN_NONE;
        if (d->retained[s] <= limit || AN_KIND(h, s) == AN_CLASSOBJ) continue;
        uint32_t acc = accs[i] = an_accumulation_point(d, k, s);
        bool dup = false; /* the same accumulation point seen from a dominator of s */
        for (uint32_t j = 0; j < i; j++) dup |= accs[j] == acc;
        if (dup) continue;
        buf_reset(&lb), buf_reset(&ab);
        an_object_label(h, s, &lb);
        an_object_label(h, acc, &ab);
        uint32_t kids = k->off[acc + 1] - k->off[acc];
        double pct = 100.0 * (double)d->retained[s] / (double)(d->total ? d->total : 1);
        if (w->json) {
            buf_printf(&w->b, "%s{\"object\": ", shown ? ", " : "");
            an_json_str(&w->b, lb.data, lb.len);
            buf_printf(&w->b,
                       ", \"retained\": %" PRIu64 ", \"percent\": %.2f, \"accumulation_point\": ", d->retained[s], pct);
            an_json_str(&w->b, ab.data, ab.len);
            buf_printf(&w->b, ", \"holds\": %u}", kids);
        } else
            buf_printf(&w->b, "  %s retains %" PRIu64 " bytes (%.1f%%); accumulation point %s, holding %u objects\n",
                       an_buf_text(&lb), d->retained[s], pct, an_buf_text(&ab), kids);
        shown++;
    }
    if (w->json) buf_put(&w->b, "], \"classes\": [", 15);
    shown = 0;
    for (uint32_t i = 0; i < nr && shown < (uint32_t)o->top; i++) {
        if (r[i].retained <= limit) continue;
        buf_reset(&lb);
        an_class_name(h, r[i].cls, &lb);
        double pct = 100.0 * (double)r[i].retained / (double)(d->total ? d->total : 1);
        if (w->json) {
            buf_printf(&w->b, "%s{\"class\": ", shown ? ", " : "");
            an_json_str(&w->b, lb.data, lb.len);
            buf_printf(&w->b, ", \"instances\": %" PRIu64 ", \"retained\": %" PRIu64 ", \"percent\": %.2f}", r[i].count,
                       r[i].retained, pct);
        } else
            buf_printf(&w->b, "  class %s: %" PRIu64 " instances retain %" PRIu64 " bytes (%.1f%%)\n", an_buf_text(&lb),
                       r[i].count, r[i].retained, pct);
        shown++;
    }
    buf_put(&w->b, w->json ? "]}" : "LEAK SUSPECTS END\n\n", w->json ? 2 : 19);
    buf_free(&lb), buf_free(&ab);
}

static void report_sites(const struct an_heap *h, const struct walk_sums *ws, const uint32_t *serials,
                         const struct an_opts *o, struct out *w)
{
    uint32_t *top = malloc((size_t)o->top * sizeof *top);
    if (!top) return;
    uint32_t n = top_n(ws->trace_retained, NULL, ws->ntraces, (uint32_t)o->top, top);
    struct buf fb;
    buf_init(&fb);
    an_out_section(
        w, "sites",
        "SITES BEGIN (retained bytes by allocation trace: of its objects no other of its objects dominates)\n"
        "rank     retained    objects      shallow  trace frames");
    if (w->json) buf_put(&w->b, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = top[i];
        if (w->json)
            buf_printf(&w->b,
                       "%s\n {\"trace\": %u, \"retained\": %" PRIu64 ", \"objects\": %" PRIu64 ", \"shallow\": %" PRIu64
                       ", \"frames\": [",
                       i ? "," : "", serials[t], ws->trace_retained[t], ws->trace_count[t], ws->trace_shallow[t]);
        else
            buf_printf(&w->b, "%4u %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %6u", i + 1, ws->trace_retained[t],
                       ws->trace_count[t], ws->trace_shallow[t], serials[t]);
        for (uint32_t f = 0; f < 4; f++) {
            buf_reset(&fb);
            if (!an_trace_frame(h, serials[t], f, &fb)) break;
            if (w->json) {
                if (f) buf_put(&w->b, ", ", 2);
                an_json_str(&w->b, fb.data, fb.len);
            } else
                buf_printf(&w->b, "%s%s", f ? "\n                                                   " : "  ",
                           an_buf_text(&fb));
        }
        buf_put(&w->b, w->json ? "]}" : "\n", w->json ? 2 : 1);
    }
    buf_put(&w->b, w->json ? "]" : "SITES END\n\n", w->json ? 1 : 11);
    buf_free(&fb);
    free(top);
}

void an_report(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *f)
{
    struct out w = {f, o->json, {0}, 0};
    buf_init(&w.b);
    struct an_kids k;
    struct walk_sums ws = {0};
    uint32_t *serials = NULL;
    ws.cls_retained = calloc((size_t)h->nclasses + 1, sizeof *ws.cls_retained);
    if (!ws.cls_retained || an_kids_make(h, d, &k)) {
        fprintf(stderr, "hprof analyze: out of memory\n");
        free(ws.cls_retained);
        return;
    }
    if (h->trace && !an_trace_indexes(h, &ws, &serials)) {
        ws.trace_retained = calloc((size_t)ws.ntraces + 1, sizeof *ws.trace_retained);
        ws.trace_count = calloc((size_t)ws.ntraces + 1, sizeof *ws.trace_count);
        ws.trace_shallow = calloc((size_t)ws.ntraces + 1, sizeof *ws.trace_shallow);
        if (!ws.trace_retained || !ws.trace_count || !ws.trace_shallow) {
            free(ws.trace_idx);
            ws.trace_idx = NULL;
            ws.ntraces = 0;
        } else
            for (uint32_t i = 0; i < d->nreach; i++) {
                uint32_t x = d->order[i], t = ws.trace_idx[x];
                if (t != AN_NONE) ws.trace_count[t]++, ws.trace_shallow[t] += an_shallow(h, x);
            }
    }
    uint32_t nr = 0;
    struct an_histo *r = NULL;
    if (!an_dom_walk(h, d, &k, &ws)) r = an_histogram_sums(h, d, &ws, &nr);
    if (w.json) buf_put(&w.b, "{", 1);
    report_summary(h, d, &w);
    if (r) report_histogram(h, r, nr, o, &w);
    report_biggest(h, d, o, &w);
    if (o->path_of) report_path(h, d, o, &w);
    report_suspects(h, d, &k, r, nr, o, &w);
    report_waste(h, d, o, &w);
    if (ws.ntraces) report_sites(h, &ws, serials, o, &w);
    if (w.json) buf_put(&w.b, "\n}\n", 3);
    an_out_flush(&w);
    buf_free(&w.b);
    free(r);
    an_kids_free(&k);
    free(ws.cls_retained), free(ws.trace_idx), free(ws.trace_retained), free(ws.trace_count), free(ws.trace_shallow);
    free(serials);
}
