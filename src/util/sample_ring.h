/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bounded ring of stack samples that signal handlers fill and one thread drains.
 *
 * Filling is lock-free and async-signal-safe: no allocation, no lock, no system call,
 * only atomic operations on lock-free 64-bit words (C11 atomics, checked at init). Any
 * number of threads may fill at once, and a handler that interrupts another filler on
 * the same thread fills a slot of its own. One thread drains (the ring is multi-producer,
 * single-consumer). Each slot carries a sequence number: a producer claims a slot by
 * advancing the tail, writes it, then publishes it by its sequence; the consumer reads
 * slots in order and hands each back by its sequence. A full ring refuses the sample and
 * counts it, so the count of samples stays honest.
 *
 * The memory is allocated once, by sample_ring_init, before any handler can run.
 * Plain data: what a frame's method is the caller's business (an opaque pointer).
 */
#ifndef HPROF_SAMPLE_RING_H
#define HPROF_SAMPLE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample_frame {
    int32_t location; /* bytecode index; -1 unknown or native */
    uint32_t pad;
    const void *method; /* the caller's method ID */
};

struct sample {
    _Atomic uint64_t seq; /* the ring's: whose turn this slot is */
    uint32_t reason;      /* 0: frames taken; else why not (the caller's codes) */
    uint32_t state;       /* the caller's (wall clock: the thread's state) */
    uint32_t weight;      /* how many intervals this sample stands for (>= 1) */
    int32_t nframes;
    uint32_t thread; /* the caller's thread (a number of its own; 0 none) */
    uint32_t flags;  /* the caller's */
    struct sample_frame frames[];
};

struct sample_ring {
    _Alignas(64) _Atomic uint64_t tail;    /* next position to claim (producers) */
    _Alignas(64) _Atomic uint64_t head;    /* next position to read (the consumer's) */
    _Alignas(64) _Atomic uint64_t refused; /* samples refused: the ring was full */
    _Atomic uint64_t refused_weight;
    size_t mask;      /* slots - 1 */
    size_t slot_size; /* bytes per slot */
    int max_frames;   /* frames each slot holds */
    unsigned char *slots;
};

/* nslots is rounded up to a power of two. -1 when out of memory or when 64-bit atomics
 * are not lock-free here (then they would not be async-signal-safe). */
int sample_ring_init(struct sample_ring *r, size_t nslots, int max_frames);
void sample_ring_destroy(struct sample_ring *r);

/* Producers (async-signal-safe). Claims a slot; NULL when the ring is full (the sample is
 * counted as refused, with its weight). Fill it, then publish it with its ticket. */
struct sample *sample_ring_claim(struct sample_ring *r, uint32_t weight, uint64_t *ticket);
void sample_ring_publish(struct sample_ring *r, struct sample *s, uint64_t ticket);

/* The consumer. The next published sample, or NULL when none is ready; hand it back
 * with sample_ring_release once read. */
struct sample *sample_ring_next(struct sample_ring *r);
void sample_ring_release(struct sample_ring *r, struct sample *s);
/* Samples refused since the last call (and their weight), zeroed by the call. */
uint64_t sample_ring_take_refused(struct sample_ring *r, uint64_t *weight);
/* Slots claimed and not yet released (a hint, for waking the consumer early). */
size_t sample_ring_used(struct sample_ring *r);

#endif
