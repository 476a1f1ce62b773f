/* SPDX-License-Identifier: Apache-2.0 */
#include "util/idmap.h"

#include <stdlib.h>

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    return i;
}

bool idmap_put(struct idmap *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct idmap g = {.cap = m->cap ? m->cap * 2 : 1024};
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = idmap_slot(&g, m->keys[i]);
                g.keys[j] = m->keys[i];
                g.vals[j] = m->vals[i];
                g.n++;
            }
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    size_t i = idmap_slot(m, key);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

bool idmap_get(const struct idmap *m, uint64_t key, uint64_t *val)
{
    if (!m->cap || !key) return false;
    size_t i = idmap_slot(m, key);
    if (!m->keys[i]) return false;
    *val = m->vals[i];
    return true;
}

void idmap_free(struct idmap *m)
{
    free(m->keys);
    free(m->vals);
}
