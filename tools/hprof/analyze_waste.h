/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the report's waste and leak-suspect sections find: duplicate strings and primitive
 * arrays, empty and sparse collections, the object under which many accumulate.
 */
#ifndef HPROF_ANALYZE_WASTE_H
#define HPROF_ANALYZE_WASTE_H

#include "analyze.h"

struct dup {
    uint64_t hash;
    uint32_t first, count;
    uint64_t bytes; /* of one copy */
};

/* Groups of equal objects (strings by value, or primitive arrays by content) among the
 * reachable, skip[o] set excluded; only groups of two or more, *ngroups of them. */
struct dup *an_duplicates(const struct an_heap *h, const struct an_dom *d, bool strings, const uint8_t *skip,
                          uint32_t *ngroups);
/* qsort order of groups: most bytes wasted first. */
int an_dup_cmp(const void *a, const void *b);
/* The value array of a String (byte[] or char[]), AN_NONE when it has none. */
uint32_t an_string_value(const struct an_heap *h, uint32_t o);
/* The first bytes of a string's value, quoted (as JSON when json), into b. */
void an_string_text(const struct an_heap *h, uint32_t s, struct buf *b, bool json);

/* Collections that hold nothing, or mostly room: ArrayList (elementData) and HashMap
 * (table). bytes: what their empty slots take. */
struct coll_waste {
    uint64_t empty[2], empty_bytes[2], sparse[2], sparse_bytes[2];
};

void an_collection_waste(const struct an_heap *h, const struct an_dom *d, struct coll_waste *c);
/* Down from o, the child that holds most while it holds at least 80% of its parent. */
uint32_t an_accumulation_point(const struct an_dom *d, const struct an_kids *k, uint32_t o);

#endif
