/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An append-only list of pointers that readers walk without locks.
 *
 * Tables use it to number their entries (serial numbers are positions here) and to
 * let a dump walk every entry while other threads keep adding. Storage is chunked,
 * so entries never move once published. An entry freed leaves its slot empty (NULL),
 * and its number is never given again.
 */
#ifndef HPROF_REGISTRY_H
#define HPROF_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define REGISTRY_CHUNK_BITS 12 /* 4096 pointers a chunk */
#define REGISTRY_CHUNK      (1u << REGISTRY_CHUNK_BITS)
#define REGISTRY_MAX_CHUNKS 16384 /* 64 M entries at most */

struct registry {
    pthread_mutex_t lock;
    _Atomic uint32_t count;
    void **_Atomic chunks[REGISTRY_MAX_CHUNKS];
};

void registry_init(struct registry *r);
void registry_destroy(struct registry *r); /* frees chunks, not the entries */
/* Appends p and returns its index, or UINT32_MAX when full or out of memory. */
uint32_t registry_add(struct registry *r, void *p);
/* The same, calling number(p, index) before p can be seen: readers walk the registry
 * without locks, so an entry must be whole, its number (serial, ID) included, once
 * published. The entry's other fields must be set before the call. */
uint32_t registry_add_numbered(struct registry *r, void *p, void (*number)(void *p, uint32_t index));

static inline uint32_t registry_count(struct registry *r)
{
    return atomic_load_explicit(&r->count, memory_order_acquire);
}

static inline void *registry_get(struct registry *r, uint32_t i)
{
    void **chunk = atomic_load_explicit(&r->chunks[i >> REGISTRY_CHUNK_BITS], memory_order_acquire);
    return chunk[i & (REGISTRY_CHUNK - 1)];
}

/* Empties slot i (its entry freed by the caller, who keeps walkers out meanwhile). */
static inline void registry_clear(struct registry *r, uint32_t i)
{
    void **chunk = atomic_load_explicit(&r->chunks[i >> REGISTRY_CHUNK_BITS], memory_order_acquire);
    chunk[i & (REGISTRY_CHUNK - 1)] = NULL;
}

#endif
