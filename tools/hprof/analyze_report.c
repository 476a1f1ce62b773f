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
#include "util/hprof_format.h"

#define CHAIN_SHOWN 12 /* dominators shown above an object; the rest are counted */

/* ------------------------------------------------------------ the dominator tree's children */

int an_kids_make(const struct an_heap *h, const struct an_dom *d, struct an_kids *k)
{
    k->off = calloc((size_t)h->n + 2, sizeof *k->off);
    k->v = malloc(((size_t)d->nreach + 1) * sizeof *k->v);
    uint32_t *fill = malloc(((size_t)h->n + 1) * sizeof *fill);
    if (!k->off || !k->v || !fill) return free(k->off), free(k->v), free(fill), -1;
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], p = d->idom[o] == AN_NONE ? h->n : d->idom[o];
        k->off[p + 1]++;
    }
    for (uint32_t o = 0; o <= h->n; o++) k->off[o + 1] += k->off[o];
    memcpy(fill, k->off, ((size_t)h->n + 1) * sizeof *fill);
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], p = d->idom[o] == AN_NONE ? h->n : d->idom[o];
        k->v[fill[p]++] = o;
    }
    free(fill);
    return 0;
}

void an_kids_free(struct an_kids *k)
{
    free(k->off);
    free(k->v);
}

/* ------------------------------------------------------------ helpers */

void an_json_str(struct buf *b, const uint8_t *s, size_t n)
{
    buf_u1(b, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            buf_u1(b, '\\'), buf_u1(b, c);
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
            buf_printf(b, "\\u%04x", c);
        else
            buf_u1(b, c);
    }
    buf_u1(b, '"');
}

void an_object_label(const struct an_heap *h, uint32_t o, struct buf *b)
{
    an_class_name(h, h->cls[o], b);
    if (AN_KIND(h, o) == AN_CLASSOBJ) {
        buf_put(b, " ", 1);
        an_class_name(h, an_class_of_object(h, o), b);
    }
    buf_printf(b, "#0x%" PRIx64, h->ids[o]);
}

static const char *text(struct buf *b)
{
    buf_u1(b, 0);
    b->len--;
    return (const char *)b->data;
}

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

/* ------------------------------------------------------------ histogram and sites */

/* One walk of the dominator tree: a class's (or a trace's) retained bytes are those of its
 * objects that no other object of it dominates. */
struct walk_sums {
    uint64_t *cls_retained;
    uint32_t *trace_idx; /* per object: dense index of its trace (AN_NONE none) */
    uint64_t *trace_retained, *trace_count, *trace_shallow;
    uint32_t ntraces;
};

static int dom_walk(const struct an_heap *h, const struct an_dom *d, const struct an_kids *k, struct walk_sums *w)
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

static struct an_histo *histogram(const struct an_heap *h, const struct an_dom *d, const struct walk_sums *w,
                                  uint32_t *n)
{
    struct an_histo *r = calloc((size_t)h->nclasses + 1, sizeof *r);
    if (!r) return NULL;
    for (uint32_t k = 0; k < h->nclasses; k++) r[k].cls = k, r[k].retained = w->cls_retained[k];
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i];
        if (h->cls[o] == AN_NONE) continue;
        r[h->cls[o]].count++;
        r[h->cls[o]].shallow += h->shallow[o];
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
    struct an_histo *r = dom_walk(h, d, &k, &w) ? NULL : histogram(h, d, &w, n);
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
static int trace_indexes(const struct an_heap *h, struct walk_sums *w, uint32_t **serials)
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
static bool trace_frame(const struct an_heap *h, uint32_t serial, uint32_t i, struct buf *b)
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

/* ------------------------------------------------------------ waste */

struct dup {
    uint64_t hash;
    uint32_t first, count;
    uint64_t bytes; /* of one copy */
};

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++) x = (x ^ p[i]) * 1099511628211ull;
    return x;
}

/* The value array of a String (byte[] or char[]), AN_NONE when it has none. */
static uint32_t string_value(const struct an_heap *h, uint32_t o)
{
    int t;
    const uint8_t *f = an_field(h, o, h->sid_value, &t);
    if (!f || t != HD_OBJECT) return AN_NONE;
    uint64_t id = h->idsize == 8 ? be_load_u8(f) : be_load_u4(f);
    uint32_t a = id ? an_find(h, id) : AN_NONE;
    return a != AN_NONE && AN_KIND(h, a) == AN_PRIMARRAY ? a : AN_NONE;
}

static bool same_content(const struct an_heap *h, uint32_t a, uint32_t b)
{
    int ta, tb;
    uint32_t na, nb;
    const uint8_t *pa = an_prim_array(h, a, &ta, &na), *pb = an_prim_array(h, b, &tb, &nb);
    if (!pa || !pb || ta != tb || na != nb) return false;
    int es = ta == HD_BOOLEAN || ta == HD_BYTE ? 1
        : ta == HD_CHAR || ta == HD_SHORT      ? 2
        : ta == HD_INT || ta == HD_FLOAT       ? 4
                                               : 8;
    return !memcmp(pa, pb, (size_t)na * (size_t)es);
}

/* Groups objects (strings by value, or primitive arrays by content) with an open
 * addressing table; returns the groups with more than one member. */
static struct dup *duplicates(const struct an_heap *h, const struct an_dom *d, bool strings, const uint8_t *skip,
                              uint32_t *ngroups)
{
    size_t cap = 1024;
    uint32_t n = 0;
    struct dup *t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], arr = o;
        if (strings) {
            if (AN_KIND(h, o) != AN_INSTANCE || h->cls[o] == AN_NONE || h->classes[h->cls[o]].kind != AN_K_STRING)
                continue;
            arr = string_value(h, o);
            if (arr == AN_NONE) continue;
        } else if (AN_KIND(h, o) != AN_PRIMARRAY || (skip && skip[o]))
            continue;
        int ty;
        uint32_t cnt;
        const uint8_t *p = an_prim_array(h, arr, &ty, &cnt);
        if (!p || !cnt) continue;
        int es = ty == HD_BOOLEAN || ty == HD_BYTE ? 1
            : ty == HD_CHAR || ty == HD_SHORT      ? 2
            : ty == HD_INT || ty == HD_FLOAT       ? 4
                                                   : 8;
        uint64_t hash = fnv(p, (size_t)cnt * (size_t)es, (uint64_t)ty) | 1;
        if (2 * (size_t)(n + 1) > cap) {
            size_t nc = cap * 2;
            struct dup *nt = calloc(nc, sizeof *nt);
            if (!nt) return free(t), NULL;
            for (size_t j = 0; j < cap; j++)
                if (t[j].hash) {
                    size_t s = t[j].hash & (nc - 1);
                    while (nt[s].hash) s = (s + 1) & (nc - 1);
                    nt[s] = t[j];
                }
            free(t);
            t = nt, cap = nc;
        }
        size_t s = hash & (cap - 1);
        for (;;) {
            if (!t[s].hash) {
                t[s] = (struct dup){hash, o, 1, h->shallow[o] + (strings ? h->shallow[arr] : 0)};
                n++;
                break;
            }
            uint32_t f = strings ? string_value(h, t[s].first) : t[s].first;
            if (t[s].hash == hash && same_content(h, f, arr)) {
                t[s].count++;
                break;
            }
            s = (s + 1) & (cap - 1);
        }
    }
    uint32_t m = 0;
    for (size_t j = 0; j < cap; j++)
        if (t[j].hash && t[j].count > 1) t[m++] = t[j];
    *ngroups = m;
    return t;
}

static int cmp_dup(const void *a, const void *b)
{
    const struct dup *x = a, *y = b;
    uint64_t sx = (x->count - 1) * x->bytes, sy = (y->count - 1) * y->bytes;
    return sx != sy ? (sx < sy ? 1 : -1) : (x->first > y->first) - (x->first < y->first);
}

/* The first bytes of a string's value, quoted, into b. */
static void string_text(const struct an_heap *h, uint32_t s, struct buf *b, bool json)
{
    uint32_t a = string_value(h, s), n;
    int t;
    const uint8_t *p = a != AN_NONE ? an_prim_array(h, a, &t, &n) : NULL;
    uint8_t tmp[64];
    size_t m = 0;
    for (uint32_t i = 0; p && i < n && m < sizeof tmp; i++) {
        uint32_t c = t == HD_CHAR ? (uint32_t)p[2 * i] << 8 | p[2 * i + 1] : p[i];
        tmp[m++] = c >= 0x20 && c < 0x7f ? (uint8_t)c : '?';
    }
    if (t == HD_BYTE && n > 0 && h->sid_value) { /* JDK 9+: UTF16 strings have coder 1 */
    }
    if (json)
        an_json_str(b, tmp, m);
    else {
        buf_u1(b, '"');
        buf_put(b, tmp, m);
        buf_put(b, m == sizeof tmp ? "...\"" : "\"", m == sizeof tmp ? 4 : 1);
    }
}

/* Collections that hold nothing, or mostly room: ArrayList (elementData) and HashMap
 * (table). bytes: what their empty slots take. */
struct coll_waste {
    uint64_t empty[2], empty_bytes[2], sparse[2], sparse_bytes[2];
};

static void collections(const struct an_heap *h, const struct an_dom *d, struct coll_waste *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], k = h->cls[o];
        if (AN_KIND(h, o) != AN_INSTANCE || k == AN_NONE) continue;
        int which = h->classes[k].kind == AN_K_ARRAYLIST ? 0 : h->classes[k].kind == AN_K_HASHMAP ? 1 : -1;
        if (which < 0) continue;
        int ts, ta;
        const uint8_t *fs = an_field(h, o, h->sid_size, &ts);
        const uint8_t *fa = an_field(h, o, which ? h->sid_table : h->sid_elements, &ta);
        if (!fs || ts != HD_INT || !fa || ta != HD_OBJECT) continue;
        uint32_t size = be_load_u4(fs);
        uint64_t id = h->idsize == 8 ? be_load_u8(fa) : be_load_u4(fa);
        uint32_t arr = id ? an_find(h, id) : AN_NONE;
        uint32_t cap = 0;
        if (arr != AN_NONE && AN_KIND(h, arr) == AN_OBJARRAY) cap = be_load_u4(h->p + h->off[arr] + 1 + h->idsize + 4);
        if (size == 0) {
            c->empty[which]++;
            c->empty_bytes[which] += h->shallow[o] + (arr != AN_NONE ? h->shallow[arr] : 0);
        } else if (cap >= 16 && (uint64_t)size * 4 < cap) {
            c->sparse[which]++;
            c->sparse_bytes[which] += (uint64_t)(cap - size) * (uint64_t)h->oopsize;
        }
    }
}

/* ------------------------------------------------------------ suspects */

/* Down from o, the child that holds most while it holds at least 80% of its parent: the
 * object under which the many accumulate. */
static uint32_t accumulation_point(const struct an_dom *d, const struct an_kids *k, uint32_t o)
{
    for (;;) {
        uint32_t best = AN_NONE;
        for (uint32_t i = k->off[o]; i < k->off[o + 1]; i++)
            if (best == AN_NONE || d->retained[k->v[i]] > d->retained[best]) best = k->v[i];
        if (best == AN_NONE || d->retained[best] * 10 < d->retained[o] * 8) return o;
        o = best;
    }
}

/* ------------------------------------------------------------ the report */

struct out {
    FILE *f;
    bool json;
    struct buf b;
    int sections;
};

static void flush_buf(struct out *w)
{
    fwrite(w->b.data, 1, w->b.len, w->f);
    buf_reset(&w->b);
}

static void section(struct out *w, const char *name, const char *text_head)
{
    if (w->json)
        buf_printf(&w->b, "%s\n\"%s\": ", w->sections++ ? "," : "", name);
    else
        buf_printf(&w->b, "%s\n", text_head);
}

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
            buf_printf(&w->b, "      under %s (retains %" PRIu64 ")\n", text(&lb), d->retained[up[i]]);
    }
    if (w->json) buf_printf(&w->b, "], \"dominators_not_shown\": %u", more);
    buf_free(&lb);
}

static void report_summary(const struct an_heap *h, const struct an_dom *d, struct out *w)
{
    uint64_t all = 0;
    for (uint32_t o = 0; o < h->n; o++) all += h->shallow[o];
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
    section(w, "histogram",
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
                       r[i].retained, text(&nb));
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
    section(w, "biggest",
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
                       h->ids[top[i]], d->retained[top[i]], h->shallow[top[i]]);
            chain(h, d, top[i], w);
            buf_put(&w->b, "}", 1);
        } else {
            buf_printf(&w->b, "%4u %12" PRIu64 " %12" PRIu64 " %s\n", i + 1, d->retained[top[i]], h->shallow[top[i]],
                       text(&lb));
            chain(h, d, top[i], w);
        }
        if (w->b.len > (1u << 20)) flush_buf(w);
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
        if (!strcmp(text(&nb), what)) best = o;
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
    section(w, "path", "PATH BEGIN (the shortest path from a GC root over strong references)");
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
                       text(&lb), d->retained[path[i]]);
    }
    buf_put(&w->b, w->json ? "]" : "PATH END\n\n", w->json ? 1 : 10);
    buf_free(&lb);
    free(path);
}

static void dup_rows(const struct an_heap *h, struct dup *g, uint32_t ng, bool strings, int top, struct out *w)
{
    qsort(g, ng, sizeof *g, cmp_dup);
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
            string_text(h, g[i].first, &lb, w->json);
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
            buf_printf(&w->b, "  %8u copies %12" PRIu64 " bytes saved  %s\n", g[i].count, saved, text(&lb));
    }
    if (w->json) buf_put(&w->b, "]}", 2);
    buf_free(&lb);
}

static void report_waste(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, struct out *w)
{
    section(w, "waste", "WASTE BEGIN");
    if (w->json) buf_put(&w->b, "{\"duplicate_strings\": ", 22);
    uint32_t ng = 0;
    struct dup *g = duplicates(h, d, true, NULL, &ng);
    uint8_t *values = calloc((size_t)h->n + 1, 1);
    if (values)
        for (uint32_t i = 0; i < d->nreach; i++) {
            uint32_t s = d->order[i];
            if (AN_KIND(h, s) == AN_INSTANCE && h->cls[s] != AN_NONE && h->classes[h->cls[s]].kind == AN_K_STRING) {
                uint32_t a = string_value(h, s);
                if (a != AN_NONE) values[a] = 1;
            }
        }
    if (g) dup_rows(h, g, ng, true, o->top, w);
    free(g);
    if (w->json) buf_put(&w->b, ", \"duplicate_arrays\": ", 22);
    g = duplicates(h, d, false, values, &ng);
    if (g) dup_rows(h, g, ng, false, o->top, w);
    free(g);
    free(values);
    struct coll_waste c;
    collections(h, d, &c);
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
    section(w, "leak_suspects", head);
    if (w->json) buf_printf(&w->b, "{\"share\": %.6g, \"objects\": [", o->suspect_share);
    /* objects: the biggest that no bigger suspect holds, so that a chain of dominators
     * above one accumulation point is named once (its lowest member) */
    uint32_t top[64], accs[64], n = top_n(d->retained, d->order, d->nreach, 64, top), shown = 0;
    for (uint32_t i = 0; i < n && shown < (uint32_t)o->top; i++) {
        uint32_t s = top[i];
        accs[i] = AN_NONE;
        if (d->retained[s] <= limit || AN_KIND(h, s) == AN_CLASSOBJ) continue;
        uint32_t acc = accs[i] = accumulation_point(d, k, s);
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
                       text(&lb), d->retained[s], pct, text(&ab), kids);
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
            buf_printf(&w->b, "  class %s: %" PRIu64 " instances retain %" PRIu64 " bytes (%.1f%%)\n", text(&lb),
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
    section(w, "sites",
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
            if (!trace_frame(h, serials[t], f, &fb)) break;
            if (w->json) {
                if (f) buf_put(&w->b, ", ", 2);
                an_json_str(&w->b, fb.data, fb.len);
            } else
                buf_printf(&w->b, "%s%s", f ? "\n                                                   " : "  ",
                           text(&fb));
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
    if (h->trace && !trace_indexes(h, &ws, &serials)) {
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
                if (t != AN_NONE) ws.trace_count[t]++, ws.trace_shallow[t] += h->shallow[x];
            }
    }
    uint32_t nr = 0;
    struct an_histo *r = NULL;
    if (!dom_walk(h, d, &k, &ws)) r = histogram(h, d, &ws, &nr);
    if (w.json) buf_put(&w.b, "{", 1);
    report_summary(h, d, &w);
    if (r) report_histogram(h, r, nr, o, &w);
    report_biggest(h, d, o, &w);
    if (o->path_of) report_path(h, d, o, &w);
    report_suspects(h, d, &k, r, nr, o, &w);
    report_waste(h, d, o, &w);
    if (ws.ntraces) report_sites(h, &ws, serials, o, &w);
    if (w.json) buf_put(&w.b, "\n}\n", 3);
    flush_buf(&w);
    buf_free(&w.b);
    free(r);
    an_kids_free(&k);
    free(ws.cls_retained), free(ws.trace_idx), free(ws.trace_retained), free(ws.trace_count), free(ws.trace_shallow);
    free(serials);
}

/* ------------------------------------------------------------ two dumps */

struct named {
    char *name;
    uint64_t count, shallow, retained;
    int side;
};

static int cmp_named(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->side - y->side;
}

struct grow {
    const char *name;
    int64_t dcount, dshallow, dretained;
    uint64_t retained;
};

static int cmp_grow(const void *a, const void *b)
{
    const struct grow *x = a, *y = b;
    if (x->dretained != y->dretained) return x->dretained < y->dretained ? 1 : -1;
    if (x->dshallow != y->dshallow) return x->dshallow < y->dshallow ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Rows of one dump, named: classes (path = false), or dominator subtrees named by the
 * classes on their dominator path from a root (path = true, up to 4 levels below a root). */
static size_t rows(const struct an_heap *h, const struct an_dom *d, int side, bool path, struct named **out, size_t n,
                   size_t *cap)
{
    struct buf nb;
    buf_init(&nb);
    if (!path) {
        uint32_t nr = 0;
        struct an_histo *r = an_histogram(h, d, &nr);
        for (uint32_t i = 0; r && i < nr; i++) {
            buf_reset(&nb);
            an_class_name(h, r[i].cls, &nb);
            if (!grow_array((void **)out, cap, n + 1, sizeof **out)) break;
            (*out)[n++] = (struct named){strdup(text(&nb)), r[i].count, r[i].shallow, r[i].retained, side};
        }
        free(r);
    } else {
        /* objects at depth <= 4 in the dominator tree with their class path */
        uint32_t up[5];
        for (uint32_t i = 0; i < d->nreach; i++) {
            uint32_t o = d->order[i], m = 0;
            for (uint32_t x = o; x != AN_NONE && m < 5; x = d->idom[x]) up[m++] = x;
            if (m == 5 || d->retained[o] < 1024) continue; /* deeper, or too small to say */
            buf_reset(&nb);
            for (uint32_t j = m; j-- > 0;) {
                if (AN_KIND(h, up[j]) == AN_CLASSOBJ) buf_put(&nb, "class ", 6);
                an_class_name(h, AN_KIND(h, up[j]) == AN_CLASSOBJ ? an_class_of_object(h, up[j]) : h->cls[up[j]], &nb);
                if (j) buf_put(&nb, " / ", 3);
            }
            if (!grow_array((void **)out, cap, n + 1, sizeof **out)) break;
            (*out)[n++] = (struct named){strdup(text(&nb)), 1, h->shallow[o], d->retained[o], side};
        }
    }
    buf_free(&nb);
    return n;
}

static void diff_table(struct named *v, size_t n, const struct an_opts *o, struct out *w, const char *name,
                       const char *head)
{
    qsort(v, n, sizeof *v, cmp_named);
    struct grow *g = calloc(n + 1, sizeof *g);
    size_t m = 0;
    for (size_t i = 0; g && i < n;) {
        size_t j = i;
        struct grow x = {v[i].name, 0, 0, 0, 0};
        for (; j < n && !strcmp(v[j].name, v[i].name); j++) {
            int sign = v[j].side ? 1 : -1;
            x.dcount += sign * (int64_t)v[j].count;
            x.dshallow += sign * (int64_t)v[j].shallow;
            x.dretained += sign * (int64_t)v[j].retained;
            if (v[j].side) x.retained += v[j].retained;
        }
        g[m++] = x;
        i = j;
    }
    if (g) qsort(g, m, sizeof *g, cmp_grow);
    section(w, name, head);
    if (w->json) buf_put(&w->b, "[", 1);
    struct buf nb;
    buf_init(&nb);
    for (size_t i = 0; i < m && i < (size_t)o->top; i++) {
        if (w->json) {
            buf_printf(&w->b, "%s\n {\"name\": ", i ? "," : "");
            an_json_str(&w->b, (const uint8_t *)g[i].name, strlen(g[i].name));
            buf_printf(&w->b,
                       ", \"instances\": %" PRId64 ", \"shallow\": %" PRId64 ", \"retained\": %" PRId64
                       ", \"retained_after\": %" PRIu64 "}",
                       g[i].dcount, g[i].dshallow, g[i].dretained, g[i].retained);
        } else
            buf_printf(&w->b, "%4zu %+11" PRId64 " %+12" PRId64 " %+12" PRId64 " %12" PRIu64 " %s\n", i + 1,
                       g[i].dcount, g[i].dshallow, g[i].dretained, g[i].retained, g[i].name);
    }
    buf_free(&nb);
    if (w->json)
        buf_put(&w->b, "]", 1);
    else
        buf_printf(&w->b, "%s END\n\n", name[0] == 'c' ? "GROWTH BY CLASS" : "GROWTH BY SUBTREE");
    free(g);
}

void an_report_diff(const struct an_heap *h0, const struct an_dom *d0, const struct an_heap *h1,
                    const struct an_dom *d1, const struct an_opts *o, FILE *f)
{
    struct out w = {f, o->json, {0}, 0};
    buf_init(&w.b);
    if (w.json) buf_put(&w.b, "{", 1);
    for (int pass = 0; pass < 2; pass++) {
        struct named *v = NULL;
        size_t cap = 0, n = 0;
        n = rows(h0, d0, 0, pass == 1, &v, n, &cap);
        n = rows(h1, d1, 1, pass == 1, &v, n, &cap);
        if (w.json && !pass) w.sections = 0;
        if (!pass)
            diff_table(v, n, o, &w, "classes",
                       "GROWTH BY CLASS BEGIN (after minus before, by retained bytes)\n"
                       "rank   instances      shallow     retained  retained now class");
        else
            diff_table(v, n, o, &w, "subtrees",
                       "GROWTH BY SUBTREE BEGIN (dominator subtrees named by the classes from a root, 4 levels)\n"
                       "rank     objects      shallow     retained  retained now path");
        for (size_t i = 0; i < n; i++) free(v[i].name);
        free(v);
    }
    if (w.json) buf_put(&w.b, "\n}\n", 3);
    flush_buf(&w);
    buf_free(&w.b);
}
