/* SPDX-License-Identifier: Apache-2.0 */
#include "util/rank.h"

#include <stdlib.h>

size_t rank_rows(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
                 uint64_t (*weight)(const void *row), uint64_t total, double cutoff, double share_if_no_total)
{
    qsort(rows, n, size, cmp);
    size_t keep = 0;
    for (; keep < n; keep++) {
        const void *row = (const char *)rows + keep * size;
        double share = total ? (double)weight(row) / (double)total : share_if_no_total;
        if (share < cutoff) break;
    }
    return keep;
}
