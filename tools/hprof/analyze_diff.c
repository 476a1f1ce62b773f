/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two dumps compared: growth per class, and per dominator subtree named by the classes on
 * its path from a root (up to 4 levels), as text or JSON.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_out.h"
#include "util/hprof_format.h"

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
            (*out)[n++] = (struct named){strdup(an_buf_text(&nb)), r[i].count, r[i].shallow, r[i].retained, side};
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
            (*out)[n++] = (struct named){strdup(an_buf_text(&nb)), 1, an_shallow(h, o), d->retained[o], side};
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
    an_out_section(w, name, head);
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
    an_out_flush(&w);
    buf_free(&w.b);
}
