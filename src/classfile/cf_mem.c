/* SPDX-License-Identifier: Apache-2.0 */
/* Memory for the classfile sources: the per-class arena. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_internal.h"

/* ---- Arena ---------------------------------------------------------------------------- */

struct cf_block {
    cf_block *next;
    size_t size, used;
    max_align_t data[];
};

#define ARENA_BLOCK (64u * 1024u)

void cf_arena_init(cf_arena *a, size_t input_len)
{
    a->head = NULL;
    a->total = 0;
    a->failed = 0;
    /* Decoding needs a few dozen bytes per code byte at most; be generous but bounded. */
    size_t lim = (size_t)1 << 40;
    if (input_len < lim / 512) lim = input_len * 256 + ((size_t)8 << 20);
    a->limit = lim;
}

void *cf_arena_alloc(cf_arena *a, size_t n)
{
    if (a->failed) return NULL;
    if (n == 0) n = 1;
    n = (n + 15) & ~(size_t)15;
    if (n > a->limit) {
        a->failed = 1;
        return NULL;
    }
    cf_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t sz = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        if (a->total + sz > a->limit) {
            a->failed = 1;
            return NULL;
        }
        b = malloc(sizeof(cf_block) + sz);
        if (!b) {
            a->failed = 1;
            return NULL;
        }
        b->size = sz;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total += sz;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void *cf_arena_array(cf_arena *a, size_t count, size_t size)
{
    if (size && count > ((size_t)-1 >> 2) / size) {
        a->failed = 1;
        return NULL;
    }
    return cf_arena_alloc(a, count * size);
}

void cf_arena_release(cf_arena *a)
{
    cf_block *b = a->head;
    while (b) {
        cf_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}
