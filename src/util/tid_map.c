/* SPDX-License-Identifier: Apache-2.0 */
#include "util/tid_map.h"

#include <stdlib.h>
#include <string.h>

struct tid_entry *tid_map_at(struct tid_map *m, size_t i)
{
    return (struct tid_entry *)(m->entries + (i & m->mask) * m->entry_size);
}

/* 0 for a map never set up (zeroed), so a walk over it does nothing. */
size_t tid_map_capacity(const struct tid_map *m) { return m->entries ? m->mask + 1 : 0; }

int tid_map_init(struct tid_map *m, size_t capacity, size_t entry_size)
{
    memset(m, 0, sizeof *m);
    if (entry_size < sizeof(struct tid_entry)) return -1;
    size_t n = 16;
    while (n < capacity) n <<= 1;
    m->entry_size = (entry_size + 15) & ~(size_t)15;
    m->entries = calloc(n, m->entry_size);
    if (!m->entries) return -1;
    m->mask = n - 1;
    return 0;
}

void tid_map_destroy(struct tid_map *m)
{
    free(m->entries);
    m->entries = NULL;
}

/* Thread IDs are small and dense: a multiplicative hash spreads neighbours apart. */
static size_t home_of(const struct tid_map *m, int32_t tid)
{
    return (size_t)(((uint32_t)tid * 2654435761u) >> 7) & m->mask;
}

struct tid_entry *tid_map_find(struct tid_map *m, int32_t tid)
{
    if (!m->entries) return NULL; /* never set up: the sampler fell back before */
    size_t at = home_of(m, tid);
    for (size_t n = 0; n <= m->mask; n++, at++) {
        struct tid_entry *e = tid_map_at(m, at);
        int32_t k = atomic_load_explicit(&e->tid, memory_order_acquire);
        if (k == TID_FREE) return NULL;
        if (k == tid) return atomic_load_explicit(&e->live, memory_order_acquire) ? e : NULL;
    }
    return NULL;
}

static void take(struct tid_map *m, struct tid_entry *e)
{
    atomic_store_explicit(&e->live, 0, memory_order_relaxed);
    memset((unsigned char *)e + sizeof *e, 0, m->entry_size - sizeof *e);
    atomic_fetch_add_explicit(&m->used, 1, memory_order_relaxed);
}

struct tid_entry *tid_map_add(struct tid_map *m, int32_t tid)
{
    if (tid <= 0 || !m->entries) return NULL;
    /* A record left by an earlier thread of the same ID (its end was never seen). */
    size_t at = home_of(m, tid);
    for (size_t n = 0; n <= m->mask; n++, at++) {
        struct tid_entry *e = tid_map_at(m, at);
        int32_t k = atomic_load_explicit(&e->tid, memory_order_acquire);
        if (k == TID_FREE) break;
        if (k == tid) {
            if (atomic_exchange(&e->live, 0)) atomic_fetch_sub_explicit(&m->used, 1, memory_order_relaxed);
            take(m, e);
            return e;
        }
    }
    /* Otherwise the first free or dead record on the probe path. */
    at = home_of(m, tid);
    for (size_t n = 0; n <= m->mask; n++, at++) {
        struct tid_entry *e = tid_map_at(m, at);
        int32_t k = atomic_load_explicit(&e->tid, memory_order_acquire);
        if ((k == TID_FREE || k == TID_DEAD) &&
            atomic_compare_exchange_strong_explicit(&e->tid, &k, tid, memory_order_acq_rel, memory_order_relaxed)) {
            take(m, e);
            return e;
        }
    }
    return NULL;
}

void tid_map_publish(struct tid_entry *e) { atomic_store_explicit(&e->live, 1, memory_order_release); }

void tid_map_remove(struct tid_map *m, struct tid_entry *e)
{
    if (atomic_exchange(&e->live, 0)) atomic_fetch_sub_explicit(&m->used, 1, memory_order_relaxed);
    atomic_store_explicit(&e->tid, TID_DEAD, memory_order_release);
}
