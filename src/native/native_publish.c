/* SPDX-License-Identifier: Apache-2.0 */
/* Tables from an agent thread to signal handlers (native_publish.h). */
#include "native/native_publish.h"

#include <string.h>
#include <time.h>

/* How long a publication waits for the old generation's readers: they do bounded work,
 * so this passes only when a thread was descheduled inside a handler. */
#define NP_WAIT_POLLS 50
#define NP_POLL_NS    200000L

void np_init(struct native_publish *p, void (*free_fn)(void *))
{
    memset(p, 0, sizeof *p);
    atomic_init(&p->current, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->inside[0], 0);
    atomic_init(&p->inside[1], 0);
    p->free_fn = free_fn;
}

void *np_enter(struct native_publish *p, struct np_reader *r)
{
    r->slot = atomic_load(&p->gen) & 1u;
    atomic_fetch_add(&p->inside[r->slot], 1);
    return atomic_load(&p->current);
}

void np_leave(struct native_publish *p, const struct np_reader *r) { atomic_fetch_sub(&p->inside[r->slot], 1); }

/* Waits a bounded while for the readers of generation slot to leave. */
static bool drained(struct native_publish *p, unsigned slot)
{
    for (int i = 0; i < NP_WAIT_POLLS; i++) {
        if (atomic_load(&p->inside[slot]) == 0) return true;
        struct timespec ts = {0, NP_POLL_NS};
        nanosleep(&ts, NULL);
    }
    return atomic_load(&p->inside[slot]) == 0;
}

/* The counters seen at 0 now, as bits. */
static unsigned zero_now(struct native_publish *p)
{
    return (atomic_load(&p->inside[0]) == 0 ? 1u : 0u) | (atomic_load(&p->inside[1]) == 0 ? 2u : 0u);
}

/* Frees the retired tables whose two counters have each been seen at 0 since their swap. */
static void reclaim(struct native_publish *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nretired; i++) {
        unsigned seen = p->retired_seen[i] | zero_now(p);
        if (seen == 3u)
            p->free_fn(p->retired[i]);
        else {
            p->retired[n] = p->retired[i];
            p->retired_seen[n++] = seen;
        }
    }
    p->nretired = n;
}

void np_publish(struct native_publish *p, void *t)
{
    void *old = atomic_exchange(&p->current, t);
    if (p->nretired) reclaim(p);
    if (!old) return;
    /* Flip new readers to the other counter, wait for this one; then the same the other way. */
    unsigned seen = 0;
    for (int phase = 0; phase < 2; phase++) {
        unsigned slot = atomic_fetch_add(&p->gen, 1u) & 1u;
        if (drained(p, slot)) seen |= 1u << slot;
    }
    seen |= zero_now(p);
    if (seen == 3u) {
        p->free_fn(old);
    } else if (p->nretired < NP_RETIRED_MAX) {
        p->retired[p->nretired] = old;
        p->retired_seen[p->nretired++] = seen;
    } else {
        p->leaked++; /* never freed while a reader may hold it: memory, not a crash */
    }
}

void np_destroy(struct native_publish *p)
{
    void *cur = atomic_exchange(&p->current, NULL);
    if (cur) p->free_fn(cur);
    for (size_t i = 0; i < p->nretired; i++) p->free_fn(p->retired[i]);
    p->nretired = 0;
}
