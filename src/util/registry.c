/* SPDX-License-Identifier: Apache-2.0 */
#include "util/registry.h"

#include <stdlib.h>
#include <string.h>

void registry_init(struct registry *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
}

void registry_destroy(struct registry *r)
{
    for (uint32_t i = 0; i < REGISTRY_MAX_CHUNKS; i++) free(atomic_load(&r->chunks[i]));
    pthread_mutex_destroy(&r->lock);
}

uint32_t registry_add(struct registry *r, void *p) { return registry_add_numbered(r, p, NULL); }

uint32_t registry_add_numbered(struct registry *r, void *p, void (*number)(void *p, uint32_t index))
{
    pthread_mutex_lock(&r->lock);
    uint32_t i = atomic_load_explicit(&r->count, memory_order_relaxed);
    uint32_t c = i >> REGISTRY_CHUNK_BITS;
    if (c >= REGISTRY_MAX_CHUNKS) {
        pthread_mutex_unlock(&r->lock);
        return UINT32_MAX;
    }
    void **chunk = atomic_load_explicit(&r->chunks[c], memory_order_relaxed);
    if (!chunk) {
        chunk = calloc(REGISTRY_CHUNK, sizeof *chunk);
        if (!chunk) {
            pthread_mutex_unlock(&r->lock);
            return UINT32_MAX;
        }
        atomic_store_explicit(&r->chunks[c], chunk, memory_order_release);
    }
    if (number) number(p, i);
    chunk[i & (REGISTRY_CHUNK - 1)] = p;
    /* Publishing the count makes the slot visible to lock-free readers. */
    atomic_store_explicit(&r->count, i + 1, memory_order_release);
    pthread_mutex_unlock(&r->lock);
    return i;
}
