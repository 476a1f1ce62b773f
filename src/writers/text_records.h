/* SPDX-License-Identifier: Apache-2.0 */
/* Building blocks of the text format, shared by every text section writer. */
#ifndef HPROF_TEXT_RECORDS_H
#define HPROF_TEXT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* The time now as ctime() writes it, without the newline: "Sun Nov 22 04:05:00 2026". */
const char *text_now(char *buf, size_t n);
/* A frame's line as the text format shows it: a number, or "Unknown line" etc. */
const char *text_line(int line, char *buf, size_t n);
/*
 * The start of a row of a ranked section (CPU SAMPLES, CPU TIME, MONITOR TIME):
 * "rank self% accum% count trace". *sum carries the costs of the rows above; the row's
 * own last column (method, monitor) is the caller's.
 */
void text_rank_row(struct buf *b, int rank, uint64_t cost, uint64_t *sum, uint64_t total, uint64_t count,
                   uint32_t trace_serial);

#endif
