/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The references between a dump's objects: instances' strong fields along their chain of
 * supers (a Reference's referent last, marked, for the dominators only), arrays'
 * elements, classes' statics and loader; as CSR arrays, counted then filled by threads.
 * Then VisualVM's one edge from an instance to its class (an_class_edges).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_edges.h"
#include "analyze_lookup.h"
#include "analyze_read.h"

/* The strong references of object o: counted, and written to out when not NULL. */
static uint32_t refs_of(const struct an_heap *h, uint32_t o, uint32_t *out, uint64_t *unresolved)
{
    int ids = h->idsize;
    const uint8_t *r = h->p + an_off(h, o);
    uint32_t n = 0;
#define REF(p)                             \
    do {                                   \
        uint64_t id_ = be((p), ids);       \
        if (id_) {                         \
            uint32_t t_ = an_find(h, id_); \
            if (t_ == AN_NONE)             \
                ++*unresolved;             \
            else {                         \
                if (out) out[n] = t_;      \
                n++;                       \
            }                              \
        }                                  \
    } while (0)
    switch (AN_KIND(h, o)) {
    case AN_INSTANCE: {
        uint32_t k = h->cls[o], len;
        if (k == AN_NONE || h->classes[k].bad) return 0;
        const uint8_t *data = an_instance_data(h, o, &len);
        if (len != h->classes[k].total) return 0;
            /* every offset is checked against the instance's bytes: a file whose classes
         * disagree (two dumps of one class id, a Reference laid out otherwise) reads
         * nothing outside the record */
#define FIELD(at)                                                      \
    do {                                                               \
        uint64_t at_ = (at);                                           \
        if (at_ <= len && len - at_ >= (uint64_t)ids) REF(data + at_); \
    } while (0)
        for (uint32_t u = h->classes[k].up; u;) {
            const struct an_class *c = &h->classes[u - 1];
            if (c->total > len) break;
            uint32_t base = len - c->total;
            for (uint32_t i = 0; i < c->nrefs; i++) FIELD((uint64_t)base + h->refoffs[c->refs + i]);
            uint64_t v;
            if (!c->super || !idmap_get(&h->class_by_id, c->super, &v)) break;
            u = h->classes[v].up;
        }
        /* a Reference's referent: an edge of its own, last, that only dominators see */
        if (h->classes[k].is_ref && h->classes[h->weak_index].total <= len) {
            uint32_t before = n;
            FIELD((uint64_t)len - h->classes[h->weak_index].total + h->weak_off);
            if (out != NULL && n > before) h->kind[o] |= AN_WEAK_LAST;
        }
#undef FIELD
        break;
    }
    case AN_OBJARRAY: {
        uint64_t cnt = be(r + 1 + ids + 4, 4);
        const uint8_t *e = r + 1 + ids + 8 + ids;
        for (uint64_t i = 0; i < cnt; i++) REF(e + i * (uint64_t)ids);
        break;
    }
    case AN_CLASSOBJ: { /* its static object fields, then its loader (as VisualVM has them) */
        struct cur c = an_statics_at(h, an_off(h, o));
        uint64_t m = rd(&c, 2);
        for (uint64_t i = 0; i < m && !c.bad; i++) {
            skip(&c, (uint64_t)ids);
            int t = (int)rd(&c, 1);
            if (t == HD_OBJECT && !c.bad && c.end - c.pos >= (uint64_t)ids) REF(h->p + c.pos);
            skip(&c, (uint64_t)vsize(t, ids));
        }
        REF(r + 1 + ids + 4 + ids);
        break;
    }
    default: break;
    }
#undef REF
    return n;
}

struct edge_job {
    const struct an_heap *h;
    uint32_t from, to;
    bool fill;
    uint64_t unresolved;
};

static void *edge_work(void *arg)
{
    struct edge_job *j = arg;
    const struct an_heap *h = j->h;
    for (uint32_t o = j->from; o < j->to; o++) {
        if (!j->fill)
            h->eoff32[o + 1] = refs_of(h, o, NULL, &j->unresolved);
        else
            refs_of(h, o, h->edge + an_eoff(h, o), &j->unresolved);
        an_pages_done(h, o - j->from + 1);
    }
    return NULL;
}

/* Runs the count or the fill over the objects in h->threads ranges. */
static void edges_pass(struct an_heap *h, bool fill)
{
    enum { MAXT = 16 };
    struct edge_job jobs[MAXT];
    pthread_t tid[MAXT];
    int nt = h->threads < 1 ? 1 : h->threads > MAXT ? MAXT : h->threads;
    if (h->n < 100000) nt = 1;
    for (int t = 0; t < nt; t++) {
        jobs[t] = (struct edge_job){h, (uint32_t)((uint64_t)h->n * t / nt), (uint32_t)((uint64_t)h->n * (t + 1) / nt),
                                    fill, 0};
        if (t && pthread_create(&tid[t], NULL, edge_work, &jobs[t]) != 0) edge_work(&jobs[t]), tid[t] = 0;
    }
    edge_work(&jobs[0]);
    for (int t = 1; t < nt; t++)
        if (tid[t]) pthread_join(tid[t], NULL);
    if (!fill)
        for (int t = 0; t < nt; t++) h->unresolved += jobs[t].unresolved;
}

int an_edges_index(struct an_heap *h)
{
    /* counts per object first (each fits 32 bits: an array has fewer than 2^31
     * elements), then offsets: 32-bit unless the dump has 2^32 references or more */
    h->eoff32 = calloc((size_t)h->n + 1, sizeof *h->eoff32);
    if (!h->eoff32) return -1;
    edges_pass(h, false);
    uint64_t total = 0;
    for (uint32_t o = 0; o < h->n; o++) total += h->eoff32[o + 1];
    if (total + h->nclasses > UINT32_MAX) { /* an_class_edges adds up to one per class */
        h->eoff64 = malloc(((size_t)h->n + 1) * sizeof *h->eoff64);
        if (!h->eoff64) return -1;
        h->eoff64[0] = 0;
        for (uint32_t o = 0; o < h->n; o++) h->eoff64[o + 1] = h->eoff64[o] + h->eoff32[o + 1];
        free(h->eoff32);
        h->eoff32 = NULL;
    } else {
        for (uint32_t o = 0; o < h->n; o++) h->eoff32[o + 1] += h->eoff32[o];
    }
    h->nedges = total;
    h->edge = malloc((h->nedges ? h->nedges : 1) * sizeof *h->edge);
    if (!h->edge) return -1;
    edges_pass(h, true);
    return 0;
}

/* The class object that object o is an instance of, for VisualVM's edge to it (instances
 * and class objects only, not arrays); AN_NONE when none. */
static uint32_t class_object(const struct an_heap *h, uint32_t o)
{
    uint32_t k = h->cls[o];
    if (k == AN_NONE || (AN_KIND(h, o) != AN_INSTANCE && AN_KIND(h, o) != AN_CLASSOBJ)) return AN_NONE;
    return h->classes[k].obj;
}

/* The edges VisualVM adds: a FIFO walk from the roots (in its order) over strong edges in
 * its order; each class's first instance walked gets an edge to its class when the walk
 * has not reached the class yet. Into *ex as (from, to) pairs, by walk order; their count,
 * or -1 out of memory. */
static int64_t class_edges_find(const struct an_heap *h, uint32_t **ex)
{
    uint32_t *from = malloc(((size_t)h->n + 1) * sizeof *from), *queue = malloc(((size_t)h->n + 1) * sizeof *queue);
    uint8_t *done = calloc((size_t)h->nclasses + 1, 1);
    uint32_t *pairs = malloc(((size_t)h->nclasses + 1) * 2 * sizeof *pairs);
    if (!from || !queue || !done || !pairs) return free(from), free(queue), free(done), free(pairs), -1;
    for (uint32_t o = 0; o < h->n; o++) from[o] = AN_NONE;
    uint32_t head = 0, tail = 0, np = 0;
    for (uint32_t r = 0; r < h->nroots; r++) from[h->roots[r]] = h->roots[r], queue[tail++] = h->roots[r];
    while (head < tail) {
        uint32_t v = queue[head++], c = class_object(h, v);
        for (uint64_t e = an_eoff(h, v), end = AN_STRONG_END(h, v); e < end; e++) {
            uint32_t w = h->edge[e];
            if (from[w] == AN_NONE) from[w] = v, queue[tail++] = w;
        }
        if (c == AN_NONE || done[h->cls[v]]) continue;
        done[h->cls[v]] = 1;
        if (from[c] != AN_NONE) continue;
        from[c] = v, queue[tail++] = c;
        pairs[2 * np] = v, pairs[2 * np++ + 1] = c;
    }
    free(from), free(queue), free(done);
    *ex = pairs;
    return np;
}

static int cmp_pair32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int an_class_edges(struct an_heap *h)
{
    uint32_t *ex;
    int64_t nx = class_edges_find(h, &ex);
    if (nx <= 0) return nx < 0 ? -1 : (free(ex), 0);
    /* each object has one at most (it is the first instance of one class) */
    qsort(ex, (size_t)nx, 2 * sizeof *ex, cmp_pair32);
    uint32_t *edge = realloc(h->edge, (h->nedges + (uint64_t)nx) * sizeof *edge);
    if (!edge) return free(ex), -1;
    h->edge = edge;
    /* from the last object down, each object's edges move up by the extra edges before
     * it; an extra one goes after its strong edges, before a referent */
    int64_t x = nx;
    for (uint32_t o = h->n; o-- > 0 && x > 0;) {
        uint64_t b = an_eoff(h, o), se = AN_STRONG_END(h, o), e = an_eoff(h, o + 1);
        bool add = ex[2 * (x - 1)] == o;
        uint64_t shift = (uint64_t)x - (add ? 1 : 0); /* extra edges of the objects before o */
        uint64_t end_new = e + (uint64_t)x;
        if (e > se) edge[end_new - 1] = edge[e - 1]; /* the referent */
        if (add) edge[se + (uint64_t)x - 1] = ex[2 * (x - 1) + 1];
        memmove(edge + b + shift, edge + b, (se - b) * sizeof *edge);
        if (h->eoff32)
            h->eoff32[o + 1] += (uint32_t)x;
        else
            h->eoff64[o + 1] += (uint64_t)x;
        if (add) x--;
    }
    h->nedges += (uint64_t)nx;
    free(ex);
    return 0;
}
