/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dominator tree's children as CSR arrays, and the sums made in one walk of it: the
 * histogram of classes (VisualVM's retained size by class) and retained bytes per
 * allocation trace. The walk uses an explicit stack.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_histogram.h"
#include "util/hprof_format.h"

/* ------------------------------------------------------------ the dominator tree's children */

int an_kids_make(const struct an_heap *h, const struct an_dom *d, struct an_kids *k)
{
    k->off = calloc((size_t)h->n + 2, sizeof *k->off);
    k->v = malloc(((size_t)d->nreach + 1) * sizeof *k->v);
    if (!k->off || !k->v) return free(k->off), free(k->v), -1;
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], p = d->idom[o] == AN_NONE ? h->n : d->idom[o];
        k->off[p + 1]++;
    }
    for (uint32_t o = 0; o <= h->n; o++) k->off[o + 1] += k->off[o];
    /* filled with the offsets as cursors (no copy of them at the peak): each ends
     * at its successor's start, and they are moved back */
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], p = d->idom[o] == AN_NONE ? h->n : d->idom[o];
        k->v[k->off[p]++] = o;
    }
    memmove(k->off + 1, k->off, ((size_t)h->n + 1) * sizeof *k->off);
    k->off[0] = 0;
    return 0;
}

void an_kids_free(struct an_kids *k)
{
    free(k->off);
    free(k->v);
}

int an_dom_walk(const struct an_heap *h, const struct an_dom *d, const struct an_kids *k, struct walk_sums *w)
{
    uint32_t *cc = calloc((size_t)h->nclasses + 1, sizeof *cc);
    uint32_t *tc = calloc((size_t)w->ntraces + 1, sizeof *tc);
    uint32_t *stack = malloc(((size_t)d->nreach + 1) * sizeof *stack);
    uint32_t *pos = malloc(((size_t)d->nreach + 1) * sizeof *pos);
    if (!cc || !tc || !stack || !pos) return free(cc), free(tc), free(stack), free(pos), -1;
    uint32_t top = 0;
    for (uint32_t i = k->off[h->n]; i < k->off[h->n + 1]; i++) {
        stack[0] = k->v[i];
        pos[0] = 0;
        top = 1;
        while (top) {
            uint32_t o = stack[top - 1], c = h->cls[o];
            uint32_t t = w->trace_idx ? w->trace_idx[o] : AN_NONE;
            if (pos[top - 1] == 0) { /* entering o */
                if (c != AN_NONE && !cc[c]++) w->cls_retained[c] += d->retained[o];
                if (t != AN_NONE && !tc[t]++) w->trace_retained[t] += d->retained[o];
            }
            uint32_t next = k->off[o] + pos[top - 1];
            if (next < k->off[o + 1]) {
                pos[top - 1]++;
                stack[top] = k->v[next];
                pos[top++] = 0;
                continue;
            }
            if (c != AN_NONE) cc[c]--;
            if (t != AN_NONE) tc[t]--;
            top--;
        }
    }
    free(cc), free(tc), free(stack), free(pos);
    return 0;
}

static int cmp_histo(const void *a, const void *b)
{
    const struct an_histo *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    if (x->shallow != y->shallow) return x->shallow < y->shallow ? 1 : -1;
    return x->cls < y->cls ? -1 : x->cls > y->cls;
}

struct an_histo *an_histogram_sums(const struct an_heap *h, const struct an_dom *d, const struct walk_sums *w,
                                   uint32_t *n)
{
    struct an_histo *r = calloc((size_t)h->nclasses + 1, sizeof *r);
    if (!r) return NULL;
    for (uint32_t k = 0; k < h->nclasses; k++) r[k].cls = k, r[k].retained = w->cls_retained[k];
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i];
        if (h->cls[o] == AN_NONE) continue;
        r[h->cls[o]].count++;
        r[h->cls[o]].shallow += an_shallow(h, o);
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < h->nclasses; k++)
        if (r[k].count) r[m++] = r[k];
    qsort(r, m, sizeof *r, cmp_histo);
    *n = m;
    return r;
}

struct an_histo *an_histogram(const struct an_heap *h, const struct an_dom *d, uint32_t *n)
{
    struct an_kids k;
    struct walk_sums w = {0};
    w.cls_retained = calloc((size_t)h->nclasses + 1, sizeof *w.cls_retained);
    if (!w.cls_retained || an_kids_make(h, d, &k)) return free(w.cls_retained), NULL;
    struct an_histo *r = an_dom_walk(h, d, &k, &w) ? NULL : an_histogram_sums(h, d, &w, n);
    an_kids_free(&k);
    free(w.cls_retained);
    return r;
}

/* The JVM's own dumps give every object one empty trace: no site to tell. */
static bool trace_has_frames(const struct an_heap *h, uint32_t serial)
{
    uint64_t off;
    if (!idmap_get(&h->traces, serial, &off) || off + 9 + 12 > h->size) return false;
    return be_load_u4(h->p + off + 9 + 8) > 0;
}

/* Dense indexes of the allocation traces of the objects. */
int an_trace_indexes(const struct an_heap *h, struct walk_sums *w, uint32_t **serials)
{
    struct idmap m = {0};
    w->trace_idx = malloc(((size_t)h->n + 1) * sizeof *w->trace_idx);
    uint32_t *ser = NULL;
    size_t cap = 0;
    if (!w->trace_idx) return -1;
    for (uint32_t o = 0; o < h->n; o++) {
        w->trace_idx[o] = AN_NONE;
        if (!h->trace[o] || AN_KIND(h, o) == AN_CLASSOBJ || !trace_has_frames(h, h->trace[o])) continue;
        uint64_t *slot;
        int rc = idmap_insert(&m, h->trace[o], w->ntraces, &slot);
        if (rc < 0) return idmap_free(&m), free(ser), -1;
        if (rc == 1) {
            if (!grow_array((void **)&ser, &cap, (size_t)w->ntraces + 1, sizeof *ser))
                return idmap_free(&m), free(ser), -1;
            ser[w->ntraces++] = h->trace[o];
        }
        w->trace_idx[o] = (uint32_t)*slot;
    }
    idmap_free(&m);
    *serials = ser;
    return 0;
}

/* "Class.method(Source:line)" of frame i of a trace, into b; false when it has none. */
bool an_trace_frame(const struct an_heap *h, uint32_t serial, uint32_t i, struct buf *b)
{
    uint64_t off;
    if (!idmap_get(&h->traces, serial, &off)) return false;
    const uint8_t *r = h->p + off;
    uint64_t len = be_load_u4(r + 5);
    if (len < 12 || off + 9 + len > h->size) return false;
    uint32_t nframes = be_load_u4(r + 9 + 8);
    if (i >= nframes || 12 + (uint64_t)(i + 1) * (uint64_t)h->idsize > len) return false;
    const uint8_t *fp = r + 9 + 12 + (uint64_t)i * (uint64_t)h->idsize;
    uint64_t fid = h->idsize == 8 ? be_load_u8(fp) : be_load_u4(fp), foff;
    if (!idmap_get(&h->frames, fid, &foff)) return false;
    const uint8_t *f = h->p + foff;
    uint64_t flen = be_load_u4(f + 5);
    if (flen < 4 * (uint64_t)h->idsize + 8 || foff + 9 + flen > h->size) return false;
    int ids = h->idsize;
    const uint8_t *q = f + 9 + ids;
    uint64_t msid = ids == 8 ? be_load_u8(q) : be_load_u4(q);
    uint64_t ssid = ids == 8 ? be_load_u8(q + 2 * ids) : be_load_u4(q + 2 * ids);
    uint32_t cser = be_load_u4(q + 3 * ids);
    int32_t line = (int32_t)be_load_u4(q + 3 * ids + 4);
    uint64_t cobj, v;
    if (idmap_get(&h->class_serial, cser, &cobj) && idmap_get(&h->class_by_id, cobj, &v))
        an_class_name(h, (uint32_t)v, b);
    else if (idmap_get(&h->class_serial, cser, &cobj) && idmap_get(&h->class_names, cobj, &v)) {
        size_t n;
        const uint8_t *s = an_string(h, v, &n);
        for (size_t j = 0; s && j < n; j++) buf_u1(b, s[j] == '/' ? '.' : s[j]);
    } else
        buf_put(b, "?", 1);
    size_t n;
    const uint8_t *s = an_string(h, msid, &n);
    buf_u1(b, '.');
    buf_put(b, s ? s : (const uint8_t *)"?", s ? n : 1);
    s = an_string(h, ssid, &n);
    buf_u1(b, '(');
    buf_put(b, s ? s : (const uint8_t *)"Unknown", s ? n : 7);
    if (line > 0) buf_printf(b, ":%d", line);
    buf_u1(b, ')');
    return true;
}
