/* SPDX-License-Identifier: Apache-2.0 */
/* A growable byte buffer with big-endian writers, used to build output records. */
#ifndef HPROF_BUF_H
#define HPROF_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "util/log.h"

struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t limit; /* most bytes it may hold; 0 for no limit */
    int oom;      /* set when an allocation failed or the limit was hit; later writes are dropped */
};

void buf_init(struct buf *b);
/* As buf_init, but growing past limit bytes (> 0) fails like an allocation. */
void buf_init_limited(struct buf *b, size_t limit);
void buf_free(struct buf *b); /* releases the memory; the buffer stays usable, limit kept */
void buf_reset(struct buf *b);
int buf_reserve(struct buf *b, size_t extra);

/* Grows *p (an array of *cap elements of `elem` bytes) to hold `need`, doubling; false
 * when out of memory (the array is left as it was). */
static inline bool grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* grow_array, with the elements it adds zeroed. */
static inline bool grow_array_zeroed(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;
    if (need <= old) return true;
    if (!grow_array(p, cap, need, elem)) return false;
    memset((char *)*p + old * elem, 0, (*cap - old) * elem);
    return true;
}

/* Big-endian values in place (heap dump values and class files are laid out this way).
 * The loads widen to uint32_t so that arithmetic on a u2 stays unsigned. */
static inline void be_store_u2(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void be_store_u4(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t be_load_u4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void be_store_u8(uint8_t *p, uint64_t v)
{
    be_store_u4(p, (uint32_t)(v >> 32));
    be_store_u4(p + 4, (uint32_t)v);
}

static inline uint32_t be_load_u2(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static inline uint64_t be_load_u8(const uint8_t *p) { return (uint64_t)be_load_u4(p) << 32 | be_load_u4(p + 4); }

/* The writers are inline: a heap dump calls them a few hundred million times. */
static inline uint8_t *buf_room(struct buf *b, size_t n)
{
    if ((b->oom || b->len + n > b->cap) && buf_reserve(b, n)) return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

static inline void buf_put(struct buf *b, const void *v, size_t n)
{
    uint8_t *p = n ? buf_room(b, n) : NULL;
    if (p) memcpy(p, v, n);
}

static inline void buf_u1(struct buf *b, uint8_t v)
{
    uint8_t *p = buf_room(b, 1);
    if (p) p[0] = v;
}

static inline void buf_u2(struct buf *b, uint16_t v)
{
    uint8_t *p = buf_room(b, 2);
    if (p) be_store_u2(p, v);
}

static inline void buf_u4(struct buf *b, uint32_t v)
{
    uint8_t *p = buf_room(b, 4);
    if (p) be_store_u4(p, v);
}

static inline void buf_u8(struct buf *b, uint64_t v)
{
    buf_u4(b, (uint32_t)(v >> 32));
    buf_u4(b, (uint32_t)v);
}
/* Overwrites a u4 at an earlier offset (record lengths known only at the end). */
void buf_patch_u4(struct buf *b, size_t at, uint32_t v);
void buf_printf(struct buf *b, const char *fmt, ...) HPROF_PRINTF(2, 3);

#endif
