/* SPDX-License-Identifier: Apache-2.0 */
/* Collapsed stacks: "root;...;leaf value", one line per distinct stack (Brendan Gregg's
 * stackcollapse format, read by flamegraph.pl, speedscope and many others). */
#include "writers/views.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

const char *view_frame_name(const struct stack_profile *p, uint32_t frame, struct buf *b)
{
    buf_reset(b);
    for (const char *s = sp_str(p, p->frames[frame].name); *s; s++)
        buf_u1(b, *s == ';' || *s == '\n' || *s == '\r' ? '_' : (uint8_t)*s);
    if (!b->len) buf_put(b, "?", 1);
    buf_u1(b, 0);
    return b->oom ? "?" : (const char *)b->data;
}

struct line {
    size_t at, len; /* the stack's text in the line pool */
    int64_t value;
};

static int by_text(const void *x, const void *y, void *pool)
{
    const struct line *a = x, *b = y;
    const uint8_t *pool_data = pool;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(pool_data + a->at, pool_data + b->at, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

int view_collapsed(const struct stack_profile *p, int type, struct buf *out)
{
    if (p->oom || type < 0 || type >= p->ntypes) return -1;
    struct buf pool, name;
    buf_init(&pool);
    buf_init(&name);
    struct line *lines = calloc(p->nstacks ? p->nstacks : 1, sizeof *lines);
    size_t n = 0;
    for (size_t i = 0; lines && i < p->nstacks; i++) {
        const struct sp_stack *s = &p->stacks[i];
        if (!s->v[type]) continue;
        lines[n] = (struct line){pool.len, 0, s->v[type]};
        for (uint32_t k = s->n; k-- > 0;) {
            const char *f = view_frame_name(p, p->frame_ix[s->first + k], &name);
            buf_put(&pool, f, strlen(f));
            if (k) buf_u1(&pool, ';');
        }
        if (!s->n) buf_put(&pool, "[no frames]", 11);
        lines[n].len = pool.len - lines[n].at;
        n++;
    }
    int rc = !lines || pool.oom || name.oom ? -1 : 0;
    if (!rc) {
        qsort_r(lines, n, sizeof *lines, by_text, pool.data);
        for (size_t i = 0; i < n; i++) {
            int64_t v = lines[i].value;
            while (i + 1 < n && by_text(&lines[i], &lines[i + 1], pool.data) == 0) v += lines[++i].value;
            buf_put(out, pool.data + lines[i].at, lines[i].len);
            buf_printf(out, " %" PRId64 "\n", v);
        }
    }
    free(lines);
    buf_free(&pool);
    buf_free(&name);
    return rc || out->oom ? -1 : 0;
}
