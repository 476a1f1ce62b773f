/* A growable byte buffer with big-endian writers, used to build output records. */
#ifndef HPROF_BUF_H
#define HPROF_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "util/log.h"

struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int oom;            /* set when an allocation failed; later writes are dropped */
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
int buf_reserve(struct buf *b, size_t extra);

void buf_put(struct buf *b, const void *p, size_t n);
void buf_u1(struct buf *b, uint8_t v);
void buf_u2(struct buf *b, uint16_t v);
void buf_u4(struct buf *b, uint32_t v);
void buf_u8(struct buf *b, uint64_t v);
/* Overwrites a u4 at an earlier offset (record lengths known only at the end). */
void buf_patch_u4(struct buf *b, size_t at, uint32_t v);
void buf_printf(struct buf *b, const char *fmt, ...) HPROF_PRINTF(2, 3);

#endif
