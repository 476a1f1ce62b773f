/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ranking for the sections that list the top of something (CPU SAMPLES, CPU TIME,
 * SITES, MONITOR TIME): sort the rows, then keep those whose share of the total is at
 * least the cutoff.
 */
#ifndef HPROF_RANK_H
#define HPROF_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Sorts n rows of `size` bytes with cmp (the first row ranks highest) and returns how
 * many lead the list with weight(row) / total >= cutoff. When total is 0 every row
 * counts as share_if_no_total: 1 keeps them all, 0 keeps them when the cutoff is 0,
 * -1 keeps none.
 */
size_t rank_rows(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
                 uint64_t (*weight)(const void *row), uint64_t total, double cutoff, double share_if_no_total);

/* One measure of a row and its sum over all rows (a share of a total of 0 is 0). */
struct rank_weight {
    uint64_t (*weight)(const void *row);
    uint64_t total;
};

/*
 * Sorts as rank_rows, then keeps each row whose share of either measure's total reaches
 * the cutoff (CPU TIME: time or calls), wherever it ranks: the kept rows move to the
 * front in their order, the others follow in theirs. Returns how many are kept.
 */
size_t rank_rows_either(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
                        const struct rank_weight w[2], double cutoff);

#endif
