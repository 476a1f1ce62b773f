/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded reads of the mapped dump, shared by the files that index it (analyze_index.c,
 * analyze_lookup.c, analyze_classes.c, analyze_edges.c); inline, as they were when one
 * file held them all.
 */
#ifndef HPROF_ANALYZE_READ_H
#define HPROF_ANALYZE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "hd.h"
#include "util/idmap.h"

/* A bounded cursor over the mapped file. */
struct cur {
    const uint8_t *p;
    uint64_t pos, end;
    bool bad;
};

static inline uint64_t rd(struct cur *c, int n)
{
    if (c->bad || c->end - c->pos < (uint64_t)n || c->pos > c->end) {
        c->bad = true;
        return 0;
    }
    const uint8_t *s = c->p + c->pos;
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | s[i];
    c->pos += (uint64_t)n;
    return v;
}

static inline void skip(struct cur *c, uint64_t n)
{
    if (c->bad || c->end - c->pos < n)
        c->bad = true;
    else
        c->pos += n;
}

static inline uint64_t be(const uint8_t *s, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | s[i];
    return v;
}

/* Size of a value of a basic type in the dump; 0 when the type is invalid. */
static inline int vsize(int type, int idsize) { return hd_type_size(type, idsize); }

static inline bool put(struct idmap *m, uint64_t k, uint64_t v) { return idmap_insert(m, k, v, NULL) >= 0; }

static inline uint64_t align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }

#endif
