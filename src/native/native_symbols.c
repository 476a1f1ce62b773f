/* SPDX-License-Identifier: Apache-2.0 */
/* A library's function symbols, sorted by address (native_symbols.h). */
#include "native/native_symbols.h"

#include <stdlib.h>
#include <string.h>

void ns_init(struct ns_table *t) { memset(t, 0, sizeof *t); }

static int grow_names(struct ns_table *t, size_t need)
{
    if (t->names_len + need <= t->names_cap) return 0;
    size_t c = t->names_cap ? t->names_cap * 2 : 1 << 16;
    while (c < t->names_len + need) c *= 2;
    if (c > UINT32_MAX) return -1;
    char *p = realloc(t->names, c);
    if (!p) return -1;
    t->names = p;
    t->names_cap = c;
    return 0;
}

int ns_add(struct ns_table *t, uint64_t addr, uint64_t size, const char *name, size_t len)
{
    if (len > NS_MAX_NAME) len = NS_MAX_NAME;
    if (t->n >= NS_MAX_SYMBOLS || grow_names(t, len + 1) != 0) goto drop;
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 1024;
        struct ns_sym *s = realloc(t->syms, c * sizeof *s);
        if (!s) goto drop;
        t->syms = s;
        t->cap = c;
    }
    memcpy(t->names + t->names_len, name, len);
    t->names[t->names_len + len] = 0;
    t->syms[t->n++] = (struct ns_sym){addr, size, (uint32_t)t->names_len};
    t->names_len += len + 1;
    return 0;
drop:
    t->dropped++;
    return -1;
}

/* By address; at one address the one with a size first, then the first added (the
 * name offsets grow in the order of adding). */
static int cmp_sym(const void *a, const void *b)
{
    const struct ns_sym *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if ((x->size != 0) != (y->size != 0)) return x->size ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

void ns_finish(struct ns_table *t)
{
    if (t->n > 1) qsort(t->syms, t->n, sizeof *t->syms, cmp_sym);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (n == 0 || t->syms[n - 1].addr != t->syms[i].addr) t->syms[n++] = t->syms[i];
    t->n = n;
}

const struct ns_sym *ns_lookup(const struct ns_table *t, uint64_t addr, uint64_t *off)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) { /* the first symbol above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    const struct ns_sym *s = &t->syms[lo - 1];
    if (s->size && addr - s->addr >= s->size) return NULL;
    *off = addr - s->addr;
    return s;
}

void ns_free(struct ns_table *t)
{
    free(t->syms);
    free(t->names);
    memset(t, 0, sizeof *t);
}
