/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The protobuf wire format, as far as pprof's profile.proto needs it: varints,
 * zigzag-free int64 (negative values take ten bytes, as the format says), strings and
 * nested messages. A message is built into its own buffer and appended with its length.
 */
#ifndef HPROF_PROTOBUF_H
#define HPROF_PROTOBUF_H

#include <stdint.h>
#include <string.h>

#include "util/buf.h"

enum pb_wire { PB_VARINT = 0, PB_LEN = 2 };

static inline void pb_varint(struct buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    buf_put(b, tmp, n);
}

static inline void pb_key(struct buf *b, uint32_t field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* A varint field; zero is the default and is left out, as encoders do. */
static inline void pb_uint(struct buf *b, uint32_t field, uint64_t v)
{
    if (!v) return;
    pb_key(b, field, PB_VARINT);
    pb_varint(b, v);
}

static inline void pb_int(struct buf *b, uint32_t field, int64_t v) { pb_uint(b, field, (uint64_t)v); }

static inline void pb_bytes(struct buf *b, uint32_t field, const void *data, size_t n)
{
    pb_key(b, field, PB_LEN);
    pb_varint(b, n);
    buf_put(b, data, n);
}

/* A string field, written even when empty (pprof's string table starts with ""). */
static inline void pb_string(struct buf *b, uint32_t field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

/* A nested message built in `msg`, which is then emptied for the next one. */
static inline void pb_message(struct buf *b, uint32_t field, struct buf *msg)
{
    pb_bytes(b, field, msg->data, msg->len);
    if (msg->oom) b->oom = 1;
    buf_reset(msg);
}

#endif
