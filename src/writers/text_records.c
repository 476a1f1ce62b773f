/* SPDX-License-Identifier: Apache-2.0 */
/* Building blocks of the text format, shared by every text section writer. */
#include "writers/text_records.h"

#include <stdio.h>
#include <time.h>

#include "tables/ids.h"
#include "util/buf.h"

const char *text_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%a %b %e %H:%M:%S %Y", &tm);
    return buf;
}

const char *text_line(int line, char *buf, size_t n)
{
    switch (line) {
    case LINE_COMPILED: return "Compiled method";
    case LINE_NATIVE: return "Native method";
    case LINE_UNKNOWN:
    case LINE_NONE: return "Unknown line";
    default: snprintf(buf, n, "%d", line); return buf;
    }
}

void text_rank_row(struct buf *b, int rank, uint64_t cost, uint64_t *sum, uint64_t total, uint64_t count,
                   uint32_t trace_serial)
{
    *sum += cost;
    double self = total ? 100.0 * (double)cost / (double)total : 0;
    double accum = total ? 100.0 * (double)*sum / (double)total : 0;
    buf_printf(b, "%4d %5.2f%% %5.2f%% %7llu %5u", rank, self, accum, (unsigned long long)count, trace_serial);
}
