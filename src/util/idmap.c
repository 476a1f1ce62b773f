/* SPDX-License-Identifier: Apache-2.0 */
#include "util/idmap.h"

#include "util/cmap.h" /* hash_mix64 */

#include <stdlib.h>
#include <string.h>

/* key's slot (key != 0), or the free slot where it would go. */
static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = (size_t)hash_mix64(key) & mask;
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    return i;
}

static bool idmap_grow(struct idmap *m)
{
    struct idmap g = {.cap = m->cap ? m->cap * 2 : 256, .has_zero = m->has_zero, .zero_val = m->zero_val};
    g.keys = calloc(g.cap, sizeof *g.keys);
    g.vals = malloc(g.cap * sizeof *g.vals);
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
    return true;
}

int idmap_insert(struct idmap *m, uint64_t key, uint64_t val, uint64_t **slot)
{
    if (!key) {
        int added = !m->has_zero;
        if (added) m->zero_val = val;
        m->has_zero = true;
        if (slot) *slot = &m->zero_val;
        return added;
    }
    if ((m->n + 1) * 2 > m->cap && !idmap_grow(m)) return -1;
    size_t i = idmap_slot(m, key);
    int added = !m->keys[i];
    if (added) {
        m->keys[i] = key;
        m->vals[i] = val;
        m->n++;
    }
    if (slot) *slot = &m->vals[i];
    return added;
}

uint64_t *idmap_find(const struct idmap *m, uint64_t key)
{
    if (!key) return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
    if (!m->cap) return NULL;
    size_t i = idmap_slot(m, key);
    return m->keys[i] ? &m->vals[i] : NULL;
}

bool idmap_put(struct idmap *m, uint64_t key, uint64_t val)
{
    uint64_t *v;
    if (idmap_insert(m, key, val, &v) < 0) return false;
    *v = val;
    return true;
}

bool idmap_get(const struct idmap *m, uint64_t key, uint64_t *val)
{
    const uint64_t *v = idmap_find(m, key);
    if (v) *val = *v;
    return v != NULL;
}

void idmap_free(struct idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
