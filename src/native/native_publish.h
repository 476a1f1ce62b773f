/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Handing immutable tables from the agent's thread to signal handlers, and freeing an
 * old one only when no handler can still be reading it.
 *
 * The writer (one agent thread) swaps the pointer; each reader (a handler) adds one to
 * a counter, loads the pointer, reads, and takes its one back. A reader that holds the
 * old table loaded it before the swap, so it was counted before the swap: once each of
 * the two counters has been seen at 0 after the swap (not necessarily at once), no
 * reader holds the old table (all of it sequentially consistent). Two counters, and a
 * generation bit that tells a reader which one, so that the writer can flip new readers
 * to the other counter and the one it waits on drains even under a steady stream of
 * samples. Readers never wait and never
 * retry: two atomic adds and a load, lock-free on x86-64 and async-signal-safe (no lock,
 * no call; a handler interrupting another on the same thread just counts twice).
 * The writer polls for the count to drain for a short bounded while (handlers do
 * bounded work, microseconds); if a reader is still in (its thread descheduled inside
 * the handler), the old table waits on a retired list and is tried again at the next
 * publication, and at np_destroy, which the caller makes only once no handler
 * can run (the sampler stopped): the quiet point.
 */
#ifndef HPROF_NATIVE_PUBLISH_H
#define HPROF_NATIVE_PUBLISH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define NP_RETIRED_MAX 64

struct native_publish {
    _Atomic(void *) current;
    atomic_uint gen;         /* its low bit picks the readers' counter */
    atomic_ulong inside[2];  /* readers in, per generation */
    void (*free_fn)(void *); /* frees a table */
    void *retired[NP_RETIRED_MAX];
    unsigned retired_seen[NP_RETIRED_MAX]; /* bit i: counter i seen at 0 since the swap */
    size_t nretired;
    unsigned long leaked; /* tables kept because the retired list was full */
};

/* What a reader holds between enter and leave. */
struct np_reader {
    unsigned slot;
};

void np_init(struct native_publish *p, void (*free_fn)(void *));
/* Publishes t (may be NULL) and frees the table it replaces once safe (or retires it).
 * One writer at a time (the caller's agent thread). */
void np_publish(struct native_publish *p, void *t);
/* Frees the current and every retired table. Only when no reader can enter any more. */
void np_destroy(struct native_publish *p);

/* Async-signal-safe: enters, returns the current table (or NULL). */
void *np_enter(struct native_publish *p, struct np_reader *r);
/* Async-signal-safe: leaves; the table returned by np_enter may be freed from now on. */
void np_leave(struct native_publish *p, const struct np_reader *r);

#endif
