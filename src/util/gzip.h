/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A gzip stream (RFC 1952) around a deflate stream of stored blocks (RFC 1951, BTYPE 00):
 * valid for every gzip reader, and a few lines instead of a compressor or a library the
 * agent would have to load (it links libc, libpthread and libdl only).
 */
#ifndef HPROF_GZIP_H
#define HPROF_GZIP_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Appends the gzip stream of data[0..n) to out. */
void gzip_stored(struct buf *out, const void *data, size_t n);
/* The CRC-32 gzip's trailer carries (the zlib / PNG one). */
uint32_t gzip_crc32(const void *data, size_t n);

#endif
