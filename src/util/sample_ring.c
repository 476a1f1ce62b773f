/* SPDX-License-Identifier: Apache-2.0 */
#include "util/sample_ring.h"

#include <stdlib.h>
#include <string.h>

static struct sample *slot_at(struct sample_ring *r, uint64_t pos)
{
    return (struct sample *)(r->slots + (pos & r->mask) * r->slot_size);
}

int sample_ring_init(struct sample_ring *r, size_t nslots, int max_frames)
{
    memset(r, 0, sizeof *r);
    /* A lock-based atomic would be a lock taken in a signal handler. */
    if (!atomic_is_lock_free(&r->tail) || max_frames < 1) return -1;
    size_t n = 2;
    while (n < nslots) n <<= 1;
    size_t size = sizeof(struct sample) + (size_t)max_frames * sizeof(struct sample_frame);
    size = (size + 63) & ~(size_t)63;
    r->slots = aligned_alloc(64, n * size);
    if (!r->slots) return -1;
    r->mask = n - 1;
    r->slot_size = size;
    r->max_frames = max_frames;
    /* Slot i is free for the producer of position i (seq == position). */
    for (size_t i = 0; i < n; i++) atomic_init(&slot_at(r, i)->seq, i);
    atomic_init(&r->tail, 0);
    atomic_init(&r->head, 0);
    atomic_init(&r->refused, 0);
    atomic_init(&r->refused_weight, 0);
    return 0;
}

void sample_ring_destroy(struct sample_ring *r)
{
    free(r->slots);
    r->slots = NULL;
}

struct sample *sample_ring_claim(struct sample_ring *r, uint32_t weight, uint64_t *ticket)
{
    uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (;;) {
        struct sample *s = slot_at(r, pos);
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t diff = (int64_t)(seq - pos);
        if (diff == 0) {
            /* Free for this position: take it unless another producer did first. */
            if (atomic_compare_exchange_weak_explicit(&r->tail, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *ticket = pos;
                s->weight = weight ? weight : 1;
                return s;
            }
        } else if (diff < 0) {
            /* The consumer has not released the slot a lap ago: full. */
            atomic_fetch_add_explicit(&r->refused, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&r->refused_weight, weight ? weight : 1, memory_order_relaxed);
            return NULL;
        } else {
            pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
        }
    }
}

void sample_ring_publish(struct sample_ring *r, struct sample *s, uint64_t ticket)
{
    /* The release orders the slot's contents before the consumer's acquire of seq. */
    atomic_store_explicit(&s->seq, ticket + 1, memory_order_release);
}

struct sample *sample_ring_next(struct sample_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    struct sample *s = slot_at(r, head);
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    return seq == head + 1 ? s : NULL;
}

void sample_ring_release(struct sample_ring *r, struct sample *s)
{
    /* Free for the producer one lap on. */
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&s->seq, head + r->mask + 1, memory_order_release);
    atomic_store_explicit(&r->head, head + 1, memory_order_relaxed);
}

uint64_t sample_ring_take_refused(struct sample_ring *r, uint64_t *weight)
{
    if (weight) *weight = atomic_exchange_explicit(&r->refused_weight, 0, memory_order_relaxed);
    return atomic_exchange_explicit(&r->refused, 0, memory_order_relaxed);
}

size_t sample_ring_used(struct sample_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    return tail >= head ? (size_t)(tail - head) : 0;
}
