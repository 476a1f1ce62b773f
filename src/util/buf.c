/* SPDX-License-Identifier: Apache-2.0 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b) { memset(b, 0, sizeof *b); }

void buf_init_limited(struct buf *b, size_t limit)
{
    buf_init(b);
    b->limit = limit;
}

void buf_free(struct buf *b)
{
    free(b->data);
    buf_init_limited(b, b->limit);
}

void buf_reset(struct buf *b) { b->len = 0; }

/* The capacity never exceeds the limit, so buf_room's inline check (len + n > cap) also
 * catches a write past the limit. */
int buf_reserve(struct buf *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->limit && (extra > b->limit || b->len > b->limit - extra)) {
        b->oom = 1;
        return -1;
    }
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    if (b->limit && cap > b->limit) cap = b->limit;
    uint8_t *d = realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

void buf_patch_u4(struct buf *b, size_t at, uint32_t v)
{
    if (b->oom || at + 4 > b->len) return;
    be_store_u4(b->data + at, v);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
        return;
    }
    if (buf_reserve(b, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
