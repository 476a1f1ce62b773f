/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dominators of the object graph, from a super-root whose successors are the GC roots:
 * Semi-NCA (semidominators as in Lengauer-Tarjan, with the simple forest and path
 * compression; immediate dominators then as nearest common ancestors on the DFS tree),
 * near-linear in practice. Everything is iterative, with explicit stacks: a dump decides
 * how deep a chain of objects is. Numbers below are DFS preorder numbers, 0 the super-root.
 * Retained sizes: each object's shallow size added up the dominator tree, in reverse
 * preorder (a dominator is numbered before what it dominates).
 * Memory: the peak is the semidominators' step; it works on DFS numbers alone (the
 * predecessors are stored as numbers), so the object <-> number maps are not both kept
 * through it, and every array there is 4 bytes an object.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Predecessors of the DFS's vertices, by DFS number (0: the super-root, for the roots):
 * CSR, offsets 32-bit while they fit; ext: a bit per vertex that has a referrer the DFS
 * did not reach. Built once the DFS is done, so that dfn can go before the semidominators. */
struct preds {
    uint32_t *off32;
    uint64_t *off64;
    uint32_t *v;
    uint8_t *ext;
};

static inline uint64_t pred_off(const struct preds *p, uint32_t w) { return p->off32 ? p->off32[w] : p->off64[w]; }

static void preds_free(struct preds *p)
{
    free(p->off32), free(p->off64), free(p->v), free(p->ext);
    memset(p, 0, sizeof *p);
}

/* Adds (or counts, when p->v is NULL) the edges into vertex numbers: per pred, its
 * referrers in increasing number, so that a referrer listed twice is listed in a row. */
static void preds_pass(const struct an_heap *h, const uint32_t *dfn, const uint32_t *vertex, uint32_t nn,
                       struct preds *p)
{
    bool fill = p->v != NULL;
#define ADD(w, from)                                              \
    do {                                                          \
        if (!fill)                                                \
            p->off32 ? p->off32[(w) + 1]++ : p->off64[(w) + 1]++; \
        else if (p->off32)                                        \
            p->v[p->off32[w]++] = (from);                         \
        else                                                      \
            p->v[p->off64[w]++] = (from);                         \
    } while (0)
    for (uint32_t r = 0; r < h->nroots; r++) ADD(dfn[h->roots[r]], 0);
    for (uint32_t v = 1; v < nn; v++) {
        uint32_t o = vertex[v];
        for (uint64_t e = an_eoff(h, o), end = an_eoff(h, o + 1); e < end; e++)
            if (dfn[h->edge[e]]) ADD(dfn[h->edge[e]], v);
    }
#undef ADD
}

static int preds_make(const struct an_heap *h, const uint32_t *dfn, const uint32_t *vertex, uint32_t nn,
                      struct preds *p)
{
    memset(p, 0, sizeof *p);
    uint64_t most = h->nedges + h->nroots;
    if (most <= UINT32_MAX)
        p->off32 = calloc((size_t)nn + 1, sizeof *p->off32);
    else
        p->off64 = calloc((size_t)nn + 1, sizeof *p->off64);
    p->ext = calloc((size_t)nn / 8 + 1, 1);
    if ((!p->off32 && !p->off64) || !p->ext) return preds_free(p), -1;
    preds_pass(h, dfn, vertex, nn, p);
    for (uint32_t w = 0; w < nn; w++)
        if (p->off32)
            p->off32[w + 1] += p->off32[w];
        else
            p->off64[w + 1] += p->off64[w];
    p->v = malloc((pred_off(p, nn) ? pred_off(p, nn) : 1) * sizeof *p->v);
    if (!p->v) return preds_free(p), -1;
    preds_pass(h, dfn, vertex, nn, p); /* each offset is now its successor's: moved back */
    if (p->off32)
        memmove(p->off32 + 1, p->off32, (size_t)nn * sizeof *p->off32), p->off32[0] = 0;
    else
        memmove(p->off64 + 1, p->off64, (size_t)nn * sizeof *p->off64), p->off64[0] = 0;
    /* referrers the DFS did not reach */
    for (uint32_t o = 0; o < h->n; o++)
        if (!dfn[o])
            for (uint64_t e = an_eoff(h, o), end = an_eoff(h, o + 1); e < end; e++) {
                uint32_t w = dfn[h->edge[e]];
                if (w) p->ext[w >> 3] |= (uint8_t)(1u << (w & 7));
            }
    return 0;
}

static inline bool ext_of(const struct preds *p, uint32_t w) { return p->ext[w >> 3] >> (w & 7) & 1; }

/* Marks what strong references reach from the roots (reach[o] = 1). */
static int strong_reach(const struct an_heap *h, uint8_t *reach)
{
    uint32_t *stack = malloc(((size_t)h->n + 1) * sizeof *stack);
    if (!stack) return -1;
    uint32_t top = 0;
    for (uint32_t r = 0; r < h->nroots; r++)
        if (!reach[h->roots[r]]) reach[h->roots[r]] = 1, stack[top++] = h->roots[r];
    while (top) {
        uint32_t v = stack[--top];
        for (uint64_t e = an_eoff(h, v), end = AN_STRONG_END(h, v); e < end; e++)
            if (!reach[h->edge[e]]) reach[h->edge[e]] = 1, stack[top++] = h->edge[e];
    }
    free(stack);
    return 0;
}

/* DFS preorder from the super-root over every edge between strongly reachable objects:
 * dfn (object -> number, 0 unvisited), vertex (number -> object, the super-root is h->n),
 * parent (number -> its DFS parent's number). As VisualVM's: a referent is no path from
 * a root, but once reached otherwise, a Reference to it is one more referrer. */
static uint32_t dfs(const struct an_heap *h, const uint8_t *reach, uint32_t *dfn, uint32_t *vertex, uint32_t *parent)
{
    /* the stack: an object and how many of its edges are done (fewer than 2^32: an
     * array has fewer than 2^31 elements, the super-root as many as the roots) */
    uint32_t *sn = malloc(((size_t)h->n + 1) * sizeof *sn);
    uint32_t *sp = malloc(((size_t)h->n + 1) * sizeof *sp);
    if (!sn || !sp) return free(sn), free(sp), 0;
    uint32_t num = 1, top = 0;
    vertex[0] = h->n;
    parent[0] = 0;
    sn[0] = h->n; /* the super-root: its "edges" are the roots */
    sp[0] = 0;
    top = 1;
    while (top) {
        uint32_t v = sn[top - 1];
        uint64_t end = v == h->n ? h->nroots : an_eoff(h, v + 1) - an_eoff(h, v);
        if (sp[top - 1] == end) {
            top--;
            continue;
        }
        uint64_t i = sp[top - 1]++;
        uint32_t w = v == h->n ? h->roots[i] : h->edge[an_eoff(h, v) + i];
        if (dfn[w] || !reach[w]) continue;
        dfn[w] = num;
        vertex[num] = w;
        parent[num] = v == h->n ? 0 : dfn[v];
        num++;
        sn[top] = w;
        sp[top++] = 0;
    }
    free(sn);
    free(sp);
    return num;
}

/* A stack that grows: a chain of the simple forest is rarely long, and a whole object's
 * worth of memory for it at the peak would be spent for nothing. */
struct stack {
    uint32_t *v;
    uint32_t cap;
};

/* Path compression of the simple forest, without recursion: the chain from v up to the
 * second-to-top node is collected, then updated from the top down. -1 out of memory. */
static int compress(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi, struct stack *st)
{
    uint32_t n = 0;
    while (anc[anc[v]] != AN_NONE) {
        if (n == st->cap) {
            uint32_t cap = st->cap ? st->cap * 2 : 1024;
            uint32_t *a = realloc(st->v, (size_t)cap * sizeof *a);
            if (!a) return -1;
            st->v = a, st->cap = cap;
        }
        st->v[n++] = v;
        v = anc[v];
    }
    while (n) {
        uint32_t x = st->v[--n], a = anc[x];
        if (semi[label[a]] < semi[label[x]]) label[x] = label[a];
        anc[x] = anc[a];
    }
    return 0;
}

/* Semidominators, in number space, into semi; -1 out of memory. */
static int semidominators(const struct preds *p, const uint32_t *parent, uint32_t nn, uint32_t *semi)
{
    uint32_t *label = malloc(((size_t)nn + 1) * sizeof *label), *anc = malloc(((size_t)nn + 1) * sizeof *anc);
    struct stack st = {NULL, 0};
    int rc = label && anc ? 0 : -1;
    for (uint32_t i = 0; !rc && i < nn; i++) semi[i] = label[i] = i, anc[i] = AN_NONE;
    for (uint32_t w = nn - 1; !rc && w >= 1; w--) {
        uint32_t s = w;
        if (ext_of(p, w)) /* a referrer that is not reachable: VisualVM counts it as */
            s = 0;        /* one more path from the roots */
        for (uint64_t e = pred_off(p, w), end = pred_off(p, w + 1); s && e < end; e++) {
            uint32_t v = p->v[e], u = v;
            if (anc[v] != AN_NONE) {
                if (compress(v, anc, label, semi, &st)) rc = -1;
                u = label[v];
            }
            if (semi[u] < s) s = semi[u];
        }
        semi[w] = s;
        anc[w] = parent[w];
    }
    free(label), free(anc), free(st.v);
    return rc;
}

int an_dominators(const struct an_heap *h, struct an_dom *d)
{
    memset(d, 0, sizeof *d);
    size_t N = (size_t)h->n + 1;
    struct preds p = {0};
    uint32_t *semi = NULL;
    uint8_t *refs = NULL;
    uint32_t *dfn = calloc(N, sizeof *dfn), *vertex = malloc(N * sizeof *vertex), *parent = malloc(N * sizeof *parent);
    uint8_t *reach = calloc(N, 1);
    if (!dfn || !vertex || !parent || !reach || strong_reach(h, reach)) {
        free(reach);
        goto oom;
    }
    uint32_t nn = dfs(h, reach, dfn, vertex, parent);
    free(reach);
    if (!nn || preds_make(h, dfn, vertex, nn, &p)) goto oom;
    /* dfn is rebuilt from vertex afterwards: not kept through the peak */
    free(dfn);
    dfn = NULL;
    semi = malloc(N * sizeof *semi);
    if (!semi || semidominators(&p, parent, nn, semi)) goto oom;
    /* referrers of each vertex, distinct, up to 2 (one listed twice is one; one the DFS
     * did not reach is one more) */
    refs = calloc(N, 1);
    if (!refs) goto oom;
    for (uint32_t w = 1; w < nn; w++) {
        uint8_t c = ext_of(&p, w);
        for (uint64_t e = pred_off(&p, w), end = pred_off(&p, w + 1); e < end && c < 2; e++)
            if (p.v[e] && (e == pred_off(&p, w) || p.v[e - 1] != p.v[e])) c++;
        refs[w] = c;
    }
    preds_free(&p);
    /* idom by nearest common ancestor: walk up the DFS tree's dominators until at or above
     * the semidominator; parent[] becomes idom in number space */
    for (uint32_t w = 1; w < nn; w++) {
        uint32_t x = parent[w];
        while (x > semi[w]) x = parent[x];
        parent[w] = x;
    }
    free(semi);
    semi = NULL;
    dfn = calloc(N, sizeof *dfn);
    d->idom = malloc(N * sizeof *d->idom);
    d->retained = calloc(N, sizeof *d->retained);
    uint8_t *tree_of = calloc(N, 1); /* by number; 2: a tree (below) */
    if (!dfn || !d->idom || !d->retained || !tree_of) {
        free(tree_of);
        goto oom;
    }
    for (uint32_t w = 1; w < nn; w++) dfn[vertex[w]] = w;
    /* tree_of[w] = 2: w and what it refers to form a tree (each its only referrer's),
     * worked out children first (reverse preorder; a back edge's target is not done yet,
     * so a cycle is no tree). VisualVM counts a class's own size only then. */
    for (uint32_t w = nn - 1; w >= 1; w--) {
        uint32_t o = vertex[w];
        bool tree = true;
        for (uint64_t e = an_eoff(h, o), end = an_eoff(h, o + 1); e < end && tree; e++) {
            uint32_t t = dfn[h->edge[e]];
            tree = t > w && refs[t] == 1 && tree_of[t] == 2;
        }
        tree_of[w] = tree ? 2 : 1;
    }
    free(refs);
    refs = NULL;
    for (uint32_t o = 0; o < h->n; o++) {
        d->idom[o] = AN_NONE;
        d->retained[o] = 0; /* the unreachable retain nothing (VisualVM says 0 too) */
    }
    for (uint32_t w = nn - 1; w >= 1; w--) {
        uint32_t o = vertex[w], dom = parent[w];
        /* as VisualVM: a class's own size counts only when what it refers to is a
         * tree, and never in what its dominators retain; what the class dominates is
         * passed up through it */
        bool cls = AN_KIND(h, o) == AN_CLASSOBJ;
        uint64_t sh = an_shallow(h, o), own = !cls || tree_of[w] == 2 ? sh : 0;
        d->total += sh;
        d->retained[o] += own;
        if (dom) {
            d->idom[o] = vertex[dom];
            d->retained[vertex[dom]] += d->retained[o] - (cls ? own : 0);
        }
    }
    free(tree_of);
    /* the order: objects by preorder, without the super-root */
    memmove(vertex, vertex + 1, (nn - 1) * sizeof *vertex);
    d->order = vertex;
    d->nreach = nn - 1;
    free(dfn);
    free(parent);
    return 0;
oom:
    preds_free(&p);
    free(dfn), free(vertex), free(parent), free(semi), free(refs);
    an_dom_free(d);
    return -1;
}

void an_dom_free(struct an_dom *d)
{
    free(d->idom);
    free(d->retained);
    free(d->order);
    memset(d, 0, sizeof *d);
}

uint32_t *an_bfs(const struct an_heap *h, uint32_t stop)
{
    uint32_t *from = malloc(((size_t)h->n + 1) * sizeof *from), *queue = malloc(((size_t)h->n + 1) * sizeof *queue);
    if (!from || !queue) return free(from), free(queue), NULL;
    for (uint32_t o = 0; o < h->n; o++) from[o] = AN_NONE;
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < h->nroots; r++) from[h->roots[r]] = h->roots[r], queue[tail++] = h->roots[r];
    while (head < tail && (stop == AN_NONE || from[stop] == AN_NONE)) {
        uint32_t v = queue[head++];
        for (uint64_t e = an_eoff(h, v), end = AN_STRONG_END(h, v); e < end; e++) {
            uint32_t w = h->edge[e];
            if (from[w] == AN_NONE) from[w] = v, queue[tail++] = w;
        }
    }
    free(queue);
    return from;
}

uint32_t an_root_path(const struct an_heap *h, uint32_t obj, uint32_t **path)
{
    *path = NULL;
    uint32_t *from = an_bfs(h, obj), len = 0;
    if (!from) return 0;
    if (from[obj] != AN_NONE) {
        for (uint32_t x = obj;; x = from[x]) {
            len++;
            if (from[x] == x) break;
        }
        *path = malloc(len * sizeof **path);
        uint32_t i = len;
        if (*path)
            for (uint32_t x = obj;; x = from[x]) {
                (*path)[--i] = x;
                if (from[x] == x) break;
            }
        else
            len = 0;
    }
    free(from);
    return len;
}
