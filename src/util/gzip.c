/* SPDX-License-Identifier: Apache-2.0 */
#include "util/gzip.h"

/* Little-endian, as gzip and deflate lay out their numbers. */
static void put_le(struct buf *b, uint32_t v, int n)
{
    for (int i = 0; i < n; i++) buf_u1(b, (uint8_t)(v >> (8 * i)));
}

uint32_t gzip_crc32(const void *data, size_t n)
{
    /* The table is built per call (2 KiB of work) rather than kept: no global state. */
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    const uint8_t *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

void gzip_stored(struct buf *out, const void *data, size_t n)
{
    static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}; /* deflate, no name, OS unknown */
    buf_put(out, header, sizeof header);
    const uint8_t *p = data;
    size_t left = n;
    do { /* at least one block, so that empty input is a valid stream too */
        uint32_t len = left > 65535 ? 65535 : (uint32_t)left;
        buf_u1(out, left == len ? 1 : 0); /* BFINAL on the last block, BTYPE 00 */
        put_le(out, len, 2);
        put_le(out, ~len & 0xffff, 2);
        buf_put(out, p, len);
        p += len;
        left -= len;
    } while (left);
    put_le(out, gzip_crc32(data, n), 4);
    put_le(out, (uint32_t)n, 4); /* ISIZE: the length modulo 2^32 */
}
