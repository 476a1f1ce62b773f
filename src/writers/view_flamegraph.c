/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTML flame graph: one file, no network, that opens from disk. The page and its
 * script are src/writers/flamegraph.html, embedded at build time (see the Makefile);
 * this file merges the stacks into a tree (frames of the same name under the same
 * parent are one node, as in every flame graph) and writes it into the page as a
 * script literal: per node, in depth-first order, its name, kind, depth and values.
 */
#include "writers/views.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char hprof_flamegraph_html[];
extern const size_t hprof_flamegraph_html_len;

#define DATA_MARK "/*@PROFILE@*/"

struct node {
    uint32_t name; /* a string of the tree's own pool */
    uint32_t kind, depth;
    uint32_t parent, child, sibling; /* 0: none (node 0 is the root, never a child) */
    int64_t v[SP_MAX_TYPES];
    int64_t base; /* differential: the base profile's main value */
};

struct tree {
    struct stack_profile names; /* only its string pool is used */
    struct node *n;
    size_t len, cap;
    uint32_t *slot; /* (parent, name, kind) -> node index + 1 */
    size_t slots;
    bool oom;
};

static uint64_t child_hash(uint32_t parent, uint32_t name, uint32_t kind)
{
    uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull ^ kind;
    return h ^ h >> 29;
}

static bool tree_rehash(struct tree *t)
{
    size_t cap = t->slots ? t->slots * 2 : 4096;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return false;
    for (size_t i = 1; i < t->len; i++) {
        const struct node *x = &t->n[i];
        size_t j = child_hash(x->parent, x->name, x->kind) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->slots = cap;
    return true;
}

/* The child of `parent` with this name and kind, made on first sight (0 when out of memory). */
static uint32_t child_of(struct tree *t, uint32_t parent, uint32_t name, uint32_t kind)
{
    if ((t->len + 1) * 2 > t->slots && !tree_rehash(t)) return 0;
    size_t j = child_hash(parent, name, kind) & (t->slots - 1);
    for (; t->slot[j]; j = (j + 1) & (t->slots - 1)) {
        const struct node *x = &t->n[t->slot[j] - 1];
        if (x->parent == parent && x->name == name && x->kind == kind) return t->slot[j] - 1;
    }
    if (!grow_array((void **)&t->n, &t->cap, t->len + 1, sizeof *t->n)) return 0;
    struct node *x = &t->n[t->len];
    memset(x, 0, sizeof *x);
    *x = (struct node){
        .name = name, .kind = kind, .depth = t->n[parent].depth + 1, .parent = parent, .sibling = t->n[parent].child};
    t->n[parent].child = (uint32_t)t->len;
    t->slot[j] = (uint32_t)++t->len;
    return (uint32_t)t->len - 1;
}

/* Adds every stack of p along its path from the root: into v[] (or into base, for the
 * base profile of a differential graph). */
static void tree_add(struct tree *t, const struct stack_profile *p, bool as_base)
{
    struct buf name;
    buf_init(&name);
    for (size_t i = 0; i < p->nstacks && !t->oom; i++) {
        const struct sp_stack *s = &p->stacks[i];
        uint32_t at = 0;
        for (uint32_t k = s->n + 1; k-- > 0 && !t->oom;) {
            struct node *x = &t->n[at];
            if (as_base)
                x->base += s->v[p->main_type];
            else
                for (int ty = 0; ty < p->ntypes; ty++) x->v[ty] += s->v[ty];
            if (!k) break;
            uint32_t f = p->frame_ix[s->first + k - 1];
            uint32_t nm = sp_string(&t->names, view_frame_name(p, f, &name));
            at = child_of(t, at, nm, p->frames[f].kind);
            if (!at || t->names.oom || name.oom) t->oom = true;
        }
    }
    buf_free(&name);
}

static int by_name(const void *x, const void *y, void *ctx)
{
    const struct tree *t = ctx;
    const struct node *a = &t->n[*(const uint32_t *)x], *b = &t->n[*(const uint32_t *)y];
    int c = strcmp(sp_str(&t->names, a->name), sp_str(&t->names, b->name));
    return c ? c : (a->kind > b->kind) - (a->kind < b->kind);
}

/* Relinks every node's children in name order (flame graphs sort them so that two
 * graphs of the same program line up). */
static bool sort_children(struct tree *t)
{
    uint32_t *kids = malloc((t->len ? t->len : 1) * sizeof *kids);
    if (!kids) return false;
    for (size_t i = 0; i < t->len; i++) {
        size_t n = 0;
        for (uint32_t c = t->n[i].child; c; c = t->n[c].sibling) kids[n++] = c;
        if (n < 2) continue;
        qsort_r(kids, n, sizeof *kids, by_name, t);
        t->n[i].child = kids[0];
        for (size_t k = 0; k < n; k++) t->n[kids[k]].sibling = k + 1 < n ? kids[k + 1] : 0;
    }
    free(kids);
    return true;
}

static void json_string(struct buf *b, const char *s)
{
    buf_u1(b, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            buf_printf(b, "\\u%04x", c); /* no </script> */
        else
            buf_u1(b, c);
    }
    buf_u1(b, '"');
}

static void json_field(struct buf *b, const char *name, const char *value)
{
    buf_printf(b, "%s:", name);
    json_string(b, value ? value : "");
    buf_put(b, ",\n", 2);
}

/* The nodes in depth-first order: name*4+kind, depth, the values (and base). */
static void write_nodes(struct buf *b, const struct tree *t, int nvals, bool diff)
{
    uint32_t *stack = malloc((t->len ? t->len : 1) * sizeof *stack);
    if (!stack) {
        b->oom = 1;
        return;
    }
    size_t top = 0;
    stack[top++] = 0;
    buf_printf(b, "nodes:[");
    while (top) {
        const struct node *x = &t->n[stack[--top]];
        buf_printf(b, "%" PRIu64 ",%u", (uint64_t)x->name * 4 + x->kind, x->depth);
        for (int v = 0; v < nvals; v++) buf_printf(b, ",%" PRId64, x->v[v]);
        if (diff) buf_printf(b, ",%" PRId64, x->base);
        buf_put(b, top || x->child ? ",\n" : "\n", top || x->child ? 2 : 1);
        /* pushed last to first, so that the first child comes out first */
        size_t mark = top;
        for (uint32_t c = x->child; c; c = t->n[c].sibling) stack[top++] = c;
        for (size_t i = mark, j = top; j > i + 1; i++, j--) {
            uint32_t tmp = stack[i];
            stack[i] = stack[j - 1];
            stack[j - 1] = tmp;
        }
    }
    buf_printf(b, "]\n");
    free(stack);
}

/* A stack's depth as the profiler counted it: its method frames (pseudo-frames such as the
 * thread or the class allocated were added around them). */
static uint32_t method_frames(const struct stack_profile *p, const struct sp_stack *s)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->n; k++) n += p->frames[p->frame_ix[s->first + k]].kind != SP_PSEUDO;
    return n;
}

/* Past this depth a flame graph reads well whatever was cut: the note never asks for more. */
#define READABLE_DEPTH 64
#define SHALLOW_DEPTH  8

int view_cut_depth(const struct stack_profile *p)
{
    uint32_t deepest = 0;
    for (size_t i = 0; i < p->nstacks; i++) {
        uint32_t n = method_frames(p, &p->stacks[i]);
        if (n > deepest) deepest = n;
    }
    uint32_t limit = p->depth > 0 ? (uint32_t)p->depth : deepest;
    if (!limit || limit >= READABLE_DEPTH || p->ntypes == 0) return 0;
    int64_t cut = 0, total = sp_total(p, p->main_type); /* both fit: see sp_add */
    for (size_t i = 0; i < p->nstacks; i++)
        if (method_frames(p, &p->stacks[i]) >= limit) cut += p->stacks[i].v[p->main_type];
    /* a short limit matters once a tenth of the profile reached it, a longer one once most did */
    bool shallow = cut > 0 && (limit <= SHALLOW_DEPTH ? cut >= total / 10 : cut > total / 2);
    return shallow ? (int)limit : 0;
}

const char *view_cut_note(const struct stack_profile *p, struct buf *b)
{
    buf_reset(b);
    int d = view_cut_depth(p);
    if (d)
        buf_printf(b, "stacks cut at depth %d: run with depth=%d (view= does this) for a readable flame graph", d,
                   READABLE_DEPTH);
    buf_u1(b, 0);
    return b->oom ? "" : (const char *)b->data;
}

/* cut: view_cut_note's sentence ("" for none). */
static void write_data(struct buf *b, const struct stack_profile *p, const struct stack_profile *base,
                       const struct tree *t, const char *cut)
{
    buf_printf(b, "{\n");
    json_field(b, "program", p->program);
    json_field(b, "date", p->date);
    json_field(b, "mode", p->mode);
    json_field(b, "note", p->note);
    json_field(b, "cut", cut);
    json_field(b, "base", base ? (base->program ? base->program : "the base profile") : NULL);
    buf_printf(b, "depth:%d,\nmain:%d,\ndiff:%s,\ntypes:[", p->depth, base ? 0 : p->main_type, base ? "true" : "false");
    for (int ty = 0; ty < p->ntypes; ty++) {
        if (base && ty != p->main_type) continue;
        buf_printf(b, "%s[", ty && !base ? "," : "");
        json_string(b, p->types[ty].type);
        buf_u1(b, ',');
        json_string(b, p->types[ty].unit);
        buf_u1(b, ']');
    }
    buf_printf(b, "],\nnames:[");
    for (size_t i = 0; i < t->names.nstr; i++) {
        if (i) buf_put(b, i % 16 ? "," : ",\n", i % 16 ? 1 : 2);
        json_string(b, sp_str(&t->names, (uint32_t)i));
    }
    buf_printf(b, "],\n");
    write_nodes(b, t, base ? 1 : p->ntypes, base != NULL);
    buf_printf(b, "}");
}

int view_flamegraph(const struct stack_profile *p, const struct stack_profile *base, struct buf *out)
{
    if (p->oom || (base && base->oom) || p->ntypes == 0) return -1;
    struct tree t;
    memset(&t, 0, sizeof t);
    sp_init(&t.names);
    uint32_t root = sp_string(&t.names, "all");
    t.oom = !grow_array((void **)&t.n, &t.cap, 1, sizeof *t.n) || !tree_rehash(&t);
    if (!t.oom) {
        memset(&t.n[0], 0, sizeof t.n[0]);
        t.n[0].name = root;
        t.n[0].kind = SP_PSEUDO;
        t.len = 1;
    }
    struct stack_profile shown = *p; /* differential: p with its main type only */
    if (base) {
        shown.ntypes = 1;
        shown.types[0] = p->types[p->main_type];
        shown.main_type = 0;
    }
    if (!t.oom) tree_add(&t, p, false);
    if (!t.oom && base) tree_add(&t, base, true);
    if (base && !t.oom) /* the one value kept is the main type's, moved to slot 0 */
        for (size_t i = 0; i < t.len; i++) t.n[i].v[0] = t.n[i].v[p->main_type];
    int rc = t.oom || !sort_children(&t) ? -1 : 0;
    if (!rc) {
        const char *page = (const char *)hprof_flamegraph_html;
        const char *mark = memmem(page, hprof_flamegraph_html_len, DATA_MARK, strlen(DATA_MARK));
        size_t head = mark ? (size_t)(mark - page) : hprof_flamegraph_html_len;
        buf_put(out, page, head);
        struct buf cut;
        buf_init(&cut);
        write_data(out, base ? &shown : p, base, &t, view_cut_note(p, &cut));
        out->oom |= cut.oom;
        buf_free(&cut);
        if (mark) buf_put(out, mark + strlen(DATA_MARK), hprof_flamegraph_html_len - head - strlen(DATA_MARK));
    }
    free(t.n);
    free(t.slot);
    sp_free(&t.names);
    return rc || out->oom ? -1 : 0;
}
