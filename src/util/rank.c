/* SPDX-License-Identifier: Apache-2.0 */
#include "util/rank.h"

#include <stdlib.h>
#include <string.h>

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

static double share_of(uint64_t part, uint64_t total) { return total ? (double)part / (double)total : 0; }

size_t rank_rows_either(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
                        const struct rank_weight w[2], double cutoff)
{
    qsort(rows, n, size, cmp);
    char *cut = malloc(n * size + 1), *base = rows;
    if (!cut) return n; /* nothing left out rather than rows lost */
    size_t keep = 0, ncut = 0;
    for (size_t i = 0; i < n; i++) {
        const char *row = base + i * size;
        bool kept =
            share_of(w[0].weight(row), w[0].total) >= cutoff || share_of(w[1].weight(row), w[1].total) >= cutoff;
        if (kept)
            memmove(base + keep++ * size, row, size); /* keep <= i: an earlier row's place or its own */
        else
            memcpy(cut + ncut++ * size, row, size);
    }
    memcpy(base + keep * size, cut, ncut * size);
    free(cut);
    return keep;
}
