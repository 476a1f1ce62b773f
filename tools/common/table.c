/* SPDX-License-Identifier: Apache-2.0 */
/* Lowest layer: memory that exits when it runs out, a u64 -> u64 hash map.
 * Calls no other file of the tool. */
#include "hd.h"
#include "util/cmap.h" /* hash_mix64 */

#include <stdlib.h>
#include <string.h>

void hd_out_of_memory(size_t n)
{
    fprintf(stderr, "hprof-dump: out of memory (%zu bytes)\n", n);
    exit(2);
}

void *hd_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) hd_out_of_memory(n);
    return q;
}

void hd_buf_check(const struct buf *b)
{
    if (b->oom) hd_out_of_memory(b->cap * 2);
}

const char *hd_buf_text(struct buf *b)
{
    buf_u1(b, 0);
    hd_buf_check(b);
    b->len--;
    return (const char *)b->data;
}

uint64_t *hd_map_get(const hd_map *m, uint64_t key)
{
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash_mix64(key) & mask;; i = (i + 1) & mask) {
        if (!m->used[i]) return NULL;
        if (m->keys[i] == key) return &m->vals[i];
    }
}

static void map_grow(hd_map *m)
{
    hd_map n = {0};
    n.cap = m->cap ? m->cap * 2 : 256;
    n.keys = hd_xrealloc(NULL, n.cap * sizeof *n.keys);
    n.vals = hd_xrealloc(NULL, n.cap * sizeof *n.vals);
    n.used = calloc(n.cap, 1);
    if (!n.used) hd_out_of_memory(n.cap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) hd_map_put(&n, m->keys[i], m->vals[i], NULL);
    hd_map_free(m);
    *m = n;
}

int hd_map_put(hd_map *m, uint64_t key, uint64_t val, uint64_t **slot)
{
    if ((m->n + 1) * 2 > m->cap) map_grow(m);
    size_t mask = m->cap - 1;
    size_t i = hash_mix64(key) & mask;
    for (; m->used[i]; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            if (slot) *slot = &m->vals[i];
            return 0;
        }
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    if (slot) *slot = &m->vals[i];
    return 1;
}

void hd_map_free(hd_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
