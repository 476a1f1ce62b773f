/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A concurrent hash map with striped locks, used by every table.
 *
 * Entries are the caller's own structs, with a `struct cmap_node` as their first
 * member. The map never frees an entry: tables live until the agent unloads, and
 * readers may keep pointers to entries without holding any lock. An entry taken out
 * (cmap_remove) stays the caller's, who must know no reader still holds it. Each stripe has
 * its own lock and its own growable bucket array, so threads that hit different
 * stripes never wait for each other.
 */
#ifndef HPROF_CMAP_H
#define HPROF_CMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define CMAP_STRIPES 64

struct cmap_node {
    struct cmap_node *next;
    uint64_t hash;
};

struct cmap_stripe {
    pthread_mutex_t lock;
    struct cmap_node **buckets;
    uint32_t nbuckets; /* a power of two */
    uint32_t count;
    char pad[64 - sizeof(pthread_mutex_t) % 64];
};

struct cmap {
    struct cmap_stripe stripes[CMAP_STRIPES];
};

/* Does this entry hold the key? Called with the stripe locked: an entry that may be
 * taken out and freed by another thread is read here, its fields copied into the key,
 * never through the pointer cmap_find returns. */
typedef bool (*cmap_eq_fn)(const struct cmap_node *entry, const void *key);
/* Builds a new entry for the key (called with the stripe locked); NULL on failure. */
typedef struct cmap_node *(*cmap_make_fn)(const void *key, void *ctx);

void cmap_init(struct cmap *m);
void cmap_destroy(struct cmap *m); /* frees buckets, not entries */

struct cmap_node *cmap_find(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq);
/* Finds the entry or makes and inserts one; *created tells which (may be NULL). */
struct cmap_node *cmap_intern(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq, cmap_make_fn make,
                              void *ctx, bool *created);
/* Calls visit on the key's entry with its stripe locked (to read or change fields that
 * go together); false when there is none. */
bool cmap_visit(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq,
                void (*visit)(struct cmap_node *, void *), void *ctx);
/* Takes the key's entry out of the map and returns it (NULL when absent); never frees it. */
struct cmap_node *cmap_remove(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq);

/* Takes out every entry `drop` says yes to, one stripe locked at a time, and returns them
 * chained by their `next` (NULL if none): the caller frees them once no reader can hold
 * them (readers that copy under the lock, see cmap_eq_fn, hold none). */
struct cmap_node *cmap_sweep(struct cmap *m, bool (*drop)(const struct cmap_node *entry, void *ctx), void *ctx);

/* How many entries the map holds (each stripe counted under its lock). */
uint64_t cmap_count(struct cmap *m);

/* A 64-bit mix of a 64-bit value and a byte string hash. */
static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t hash_bytes(const void *p, uint64_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, then mixed */
    for (uint64_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ULL;
    }
    return hash_mix64(h ^ n);
}

#endif
