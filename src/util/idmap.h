/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A map from 64-bit keys (never 0) to 64-bit values: open addressing with linear
 * probing, doubled when half full. Plain data, one owner at a time (no lock).
 */
#ifndef HPROF_IDMAP_H
#define HPROF_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idmap {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap, n;
};

/* Sets key's value (key != 0); false when out of memory (the map is as it was). */
bool idmap_put(struct idmap *m, uint64_t key, uint64_t val);
/* key's value in *val, or false (key 0 is never there). */
bool idmap_get(const struct idmap *m, uint64_t key, uint64_t *val);
void idmap_free(struct idmap *m);

#endif
