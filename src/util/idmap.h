/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A map from 64-bit keys to 64-bit values: open addressing with linear probing, doubled
 * when half full. Key 0 marks a free slot, so its value is kept beside the slots. Plain
 * data, one owner at a time (no lock). The agent's dump reader and the tools share it.
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
    bool has_zero; /* key 0 is in the map, with value zero_val */
    uint64_t zero_val;
};

/* Adds key -> val if key is not there (returns 1) or leaves the map as it is (returns 0);
 * either way *slot (when slot is not NULL) points at key's value. -1 when out of memory
 * (the map is as it was). */
int idmap_insert(struct idmap *m, uint64_t key, uint64_t val, uint64_t **slot);
/* A pointer to key's value, or NULL; valid until the next insert. */
uint64_t *idmap_find(const struct idmap *m, uint64_t key);
/* Sets key's value; false when out of memory (the map is as it was). */
bool idmap_put(struct idmap *m, uint64_t key, uint64_t val);
/* key's value in *val, or false. */
bool idmap_get(const struct idmap *m, uint64_t key, uint64_t *val);
void idmap_free(struct idmap *m);

#endif
