/* SPDX-License-Identifier: Apache-2.0 */
#include "util/cmap.h"

#include <stdlib.h>
#include <string.h>

void cmap_init(struct cmap *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < CMAP_STRIPES; i++) pthread_mutex_init(&m->stripes[i].lock, NULL);
}

void cmap_destroy(struct cmap *m)
{
    for (int i = 0; i < CMAP_STRIPES; i++) {
        free(m->stripes[i].buckets);
        m->stripes[i].buckets = NULL;
        pthread_mutex_destroy(&m->stripes[i].lock);
    }
}

static struct cmap_stripe *stripe_of(struct cmap *m, uint64_t hash) { return &m->stripes[hash % CMAP_STRIPES]; }

/* The low bits pick the stripe; the bucket index uses the bits above them. */
static uint32_t bucket_of(const struct cmap_stripe *s, uint64_t hash)
{
    return (uint32_t)(hash >> 6) & (s->nbuckets - 1);
}

static struct cmap_node *lookup(struct cmap_stripe *s, uint64_t hash, const void *key, cmap_eq_fn eq)
{
    if (!s->nbuckets) return NULL;
    for (struct cmap_node *n = s->buckets[bucket_of(s, hash)]; n; n = n->next)
        if (n->hash == hash && eq(n, key)) return n;
    return NULL;
}

static void grow(struct cmap_stripe *s)
{
    uint32_t nb = s->nbuckets ? s->nbuckets * 2 : 16;
    struct cmap_node **b = calloc(nb, sizeof *b);
    if (!b) return; /* keep the old, longer chains */
    for (uint32_t i = 0; i < s->nbuckets; i++) {
        struct cmap_node *n = s->buckets[i];
        while (n) {
            struct cmap_node *next = n->next;
            uint32_t j = (uint32_t)(n->hash >> 6) & (nb - 1);
            n->next = b[j];
            b[j] = n;
            n = next;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nbuckets = nb;
}

bool cmap_visit(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq,
                void (*visit)(struct cmap_node *, void *), void *ctx)
{
    struct cmap_stripe *s = stripe_of(m, hash);
    pthread_mutex_lock(&s->lock);
    struct cmap_node *n = lookup(s, hash, key, eq);
    if (n) visit(n, ctx);
    pthread_mutex_unlock(&s->lock);
    return n != NULL;
}

struct cmap_node *cmap_find(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq)
{
    struct cmap_stripe *s = stripe_of(m, hash);
    pthread_mutex_lock(&s->lock);
    struct cmap_node *n = lookup(s, hash, key, eq);
    pthread_mutex_unlock(&s->lock);
    return n;
}

struct cmap_node *cmap_intern(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq, cmap_make_fn make,
                              void *ctx, bool *created)
{
    struct cmap_stripe *s = stripe_of(m, hash);
    if (created) *created = false;
    pthread_mutex_lock(&s->lock);
    struct cmap_node *n = lookup(s, hash, key, eq);
    if (!n) {
        if (s->count >= s->nbuckets) grow(s);
        n = s->nbuckets ? make(key, ctx) : NULL;
        if (n) {
            n->hash = hash;
            uint32_t i = bucket_of(s, hash);
            n->next = s->buckets[i];
            s->buckets[i] = n;
            s->count++;
            if (created) *created = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

struct cmap_node *cmap_remove(struct cmap *m, uint64_t hash, const void *key, cmap_eq_fn eq)
{
    struct cmap_stripe *s = stripe_of(m, hash);
    pthread_mutex_lock(&s->lock);
    struct cmap_node *found = NULL;
    for (struct cmap_node **p = s->nbuckets ? &s->buckets[bucket_of(s, hash)] : NULL; p && *p; p = &(*p)->next) {
        if ((*p)->hash == hash && eq(*p, key)) {
            found = *p;
            *p = found->next;
            found->next = NULL;
            s->count--;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

struct cmap_node *cmap_sweep(struct cmap *m, bool (*drop)(const struct cmap_node *entry, void *ctx), void *ctx)
{
    struct cmap_node *out = NULL;
    for (int i = 0; i < CMAP_STRIPES; i++) {
        struct cmap_stripe *s = &m->stripes[i];
        pthread_mutex_lock(&s->lock);
        for (uint32_t b = 0; b < s->nbuckets; b++) {
            struct cmap_node **p = &s->buckets[b];
            while (*p) {
                struct cmap_node *n = *p;
                if (drop(n, ctx)) {
                    *p = n->next;
                    n->next = out;
                    out = n;
                    s->count--;
                } else {
                    p = &n->next;
                }
            }
        }
        pthread_mutex_unlock(&s->lock);
    }
    return out;
}

uint64_t cmap_count(struct cmap *m)
{
    uint64_t n = 0;
    for (int i = 0; i < CMAP_STRIPES; i++) {
        pthread_mutex_lock(&m->stripes[i].lock);
        n += m->stripes[i].count;
        pthread_mutex_unlock(&m->stripes[i].lock);
    }
    return n;
}
