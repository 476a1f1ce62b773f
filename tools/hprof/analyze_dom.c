/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dominators of the object graph, from a super-root whose successors are the GC roots:
 * Semi-NCA (semidominators as in Lengauer-Tarjan, with the simple forest and path
 * compression; immediate dominators then as nearest common ancestors on the DFS tree),
 * near-linear in practice. Everything is iterative, with explicit stacks: a dump decides
 * how deep a chain of objects is. Numbers below are DFS preorder numbers, 0 the super-root.
 * Retained sizes: each object's shallow size added up the dominator tree, in reverse
 * preorder (a dominator is numbered before what it dominates).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Predecessors (reverse CSR) of every object, the super-root (index n) among them for the
 * roots. */
static int preds(const struct an_heap *h, uint64_t **roff, uint32_t **redge)
{
    uint64_t *ro = calloc((size_t)h->n + 2, sizeof *ro);
    uint32_t *re = malloc((h->nedges + h->nroots + 1) * sizeof *re);
    if (!ro || !re) return free(ro), free(re), -1;
    for (uint64_t e = 0; e < h->nedges; e++) ro[h->edge[e] + 1]++;
    for (uint32_t r = 0; r < h->nroots; r++) ro[h->roots[r] + 1]++;
    for (uint32_t o = 0; o < h->n; o++) ro[o + 1] += ro[o];
    ro[h->n + 1] = ro[h->n];
    uint64_t *fill = malloc(((size_t)h->n + 1) * sizeof *fill);
    if (!fill) return free(ro), free(re), -1;
    memcpy(fill, ro, ((size_t)h->n + 1) * sizeof *fill);
    for (uint32_t o = 0; o < h->n; o++)
        for (uint64_t e = h->eoff[o]; e < h->eoff[o + 1]; e++) re[fill[h->edge[e]]++] = o;
    for (uint32_t r = 0; r < h->nroots; r++) re[fill[h->roots[r]]++] = h->n;
    free(fill);
    *roff = ro;
    *redge = re;
    return 0;
}

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
        for (uint64_t e = h->eoff[v], end = AN_STRONG_END(h, v); e < end; e++)
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
    uint32_t *sn = malloc(((size_t)h->n + 1) * sizeof *sn);
    uint64_t *sp = malloc(((size_t)h->n + 1) * sizeof *sp);
    if (!sn || !sp) return free(sn), free(sp), 0;
    uint32_t num = 1, top = 0;
    vertex[0] = h->n;
    parent[0] = 0;
    sn[0] = h->n; /* the super-root: its "edges" are the roots */
    sp[0] = 0;
    top = 1;
    while (top) {
        uint32_t v = sn[top - 1];
        uint64_t end = v == h->n ? h->nroots : h->eoff[v + 1] - h->eoff[v];
        if (sp[top - 1] == end) {
            top--;
            continue;
        }
        uint64_t i = sp[top - 1]++;
        uint32_t w = v == h->n ? h->roots[i] : h->edge[h->eoff[v] + i];
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

/* Path compression of the simple forest, without recursion: the chain from v up to the
 * second-to-top node is collected, then updated from the top down. */
static void compress(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t *stack)
{
    uint32_t n = 0;
    while (anc[anc[v]] != AN_NONE) {
        stack[n++] = v;
        v = anc[v];
    }
    while (n) {
        uint32_t x = stack[--n], a = anc[x];
        if (semi[label[a]] < semi[label[x]]) label[x] = label[a];
        anc[x] = anc[a];
    }
}

int an_dominators(const struct an_heap *h, struct an_dom *d)
{
    memset(d, 0, sizeof *d);
    size_t N = (size_t)h->n + 1;
    uint64_t *roff = NULL;
    uint32_t *redge = NULL;
    uint32_t *dfn = calloc(N, sizeof *dfn), *vertex = malloc(N * sizeof *vertex), *parent = malloc(N * sizeof *parent);
    uint8_t *reach = calloc(N, 1);
    if (!dfn || !vertex || !parent || !reach || strong_reach(h, reach) || preds(h, &roff, &redge)) {
        free(reach);
        goto oom;
    }
    uint32_t nn = dfs(h, reach, dfn, vertex, parent);
    free(reach);
    if (!nn) goto oom;
    uint32_t *semi = malloc(N * sizeof *semi), *label = malloc(N * sizeof *label), *anc = malloc(N * sizeof *anc),
             *stack = malloc(N * sizeof *stack);
    if (!semi || !label || !anc || !stack) {
        free(semi), free(label), free(anc), free(stack);
        goto oom;
    }
    for (uint32_t i = 0; i < nn; i++) semi[i] = label[i] = i, anc[i] = AN_NONE;
    for (uint32_t w = nn - 1; w >= 1; w--) {
        uint32_t o = vertex[w], s = semi[w];
        for (uint64_t e = roff[o]; e < roff[o + 1]; e++) {
            uint32_t p = redge[e], v = p == h->n ? 0 : dfn[p];
            if (p != h->n && !v) { /* a referrer that is not reachable: VisualVM counts it as */
                s = 0;             /* one more path from the roots */
                break;
            }
            uint32_t u = v;
            if (anc[v] != AN_NONE) {
                compress(v, anc, label, semi, stack);
                u = label[v];
            }
            if (semi[u] < s) s = semi[u];
        }
        semi[w] = s;
        anc[w] = parent[w];
    }
    free(label);
    free(anc);
    free(stack);
    /* referrers of each object, distinct, up to 2 (a referrer listed twice is one) */
    uint8_t *refs = calloc(N, 1);
    if (!refs) goto oom;
    for (uint32_t o = 0; o < h->n; o++)
        for (uint64_t e = roff[o]; e < roff[o + 1]; e++)
            if (redge[e] != h->n && (e == roff[o] || redge[e - 1] != redge[e]) && refs[o] < 2) refs[o]++;
    free(roff);
    free(redge);
    roff = NULL, redge = NULL;
    /* idom by nearest common ancestor: walk up the DFS tree's dominators until at or above
     * the semidominator; parent[] becomes idom in number space */
    for (uint32_t w = 1; w < nn; w++) {
        uint32_t x = parent[w];
        while (x > semi[w]) x = parent[x];
        parent[w] = x;
    }
    free(semi);
    d->idom = malloc(N * sizeof *d->idom);
    d->retained = calloc(N, sizeof *d->retained);
    uint8_t *tree_of = calloc(N, 1); /* 2: a tree (below) */
    if (!d->idom || !d->retained || !tree_of) {
        free(tree_of), free(refs);
        goto oom;
    }
    /* tree_of[o] = 2: o and what it refers to form a tree (each its only referrer's),
     * worked out children first (reverse preorder; a back edge's target is not done yet,
     * so a cycle is no tree). VisualVM counts a class's own size only then. */
    for (uint32_t w = nn - 1; w >= 1; w--) {
        uint32_t o = vertex[w];
        bool tree = true;
        for (uint64_t e = h->eoff[o]; e < h->eoff[o + 1] && tree; e++) {
            uint32_t t = h->edge[e];
            tree = refs[t] == 1 && tree_of[t] == 2 && dfn[t] > w;
        }
        tree_of[o] = tree ? 2 : 1;
    }
    free(refs);
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
        uint64_t own = !cls || tree_of[o] == 2 ? h->shallow[o] : 0;
        d->total += h->shallow[o];
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
    free(dfn), free(vertex), free(parent), free(roff), free(redge);
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
        for (uint64_t e = h->eoff[v], end = AN_STRONG_END(h, v); e < end; e++) {
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
