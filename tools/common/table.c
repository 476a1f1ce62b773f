/* SPDX-License-Identifier: Apache-2.0 */
/* Lowest layer: memory that exits when it runs out, a u64 -> u64 hash map that does.
 * Calls no other file of the tool. */
#include "hd.h"

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

int hd_map_put(hd_map *m, uint64_t key, uint64_t val, uint64_t **slot)
{
    int added = idmap_insert(m, key, val, slot);
    if (added < 0) hd_out_of_memory((m->cap ? m->cap * 2 : 256) * 2 * sizeof(uint64_t));
    return added;
}
