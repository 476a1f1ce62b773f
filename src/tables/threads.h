/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Java threads hprof has seen and that may still run: serial number, object ID, names,
 * and a global reference (the CPU sampler and the dumps reach live threads through it).
 *
 * sources/resolve.c names a thread and makes its reference; the table numbers it and
 * keeps it while it may be met. Memory follows the live threads: an entry lives from
 * its thread's start, through its end (THREAD END: out of the live list, onto the
 * ended list, as the thread still runs a little and the one that ends the VM writes the
 * dump at exit), until resolve.c finds its thread gone and reclaims it. Serial numbers
 * are never given twice, so the records already written keep their meaning.
 *
 * Who may read an entry, and why it is not freed under them:
 *  - its own thread (JVMTI thread-local storage, cleared at its end): reclaimed only
 *    once JVMTI says the thread is not alive;
 *  - a holder (threads_hold, threads_lend*): reclaimed only when no one holds it, and
 *    its reference is valid as long;
 *  - a reader between threads_read_begin and _end, which may use entries found in
 *    records of its own (the signal sampler's per-thread map): nothing is reclaimed
 *    while one is in.
 */
#ifndef HPROF_THREADS_H
#define HPROF_THREADS_H

#include <jvmti.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ids;

struct thread_info {
    uint32_t serial; /* 200001 ... */
    uint32_t object_id;
    char *name;
    char *group;         /* thread group name, or NULL */
    char *parent_group;  /* the group's parent name, or NULL */
    jthread ref;         /* global reference, kept until the entry is reclaimed */
    uint32_t slot;       /* 0 .. entries held at once - 1, reused once reclaimed */
    uint32_t lent;       /* holders now */
    bool ended;          /* its end was seen: on the ended list */
    bool sampled;        /* CPU sampling on for this thread (socket CONTROL) */
    int64_t last_cpu_ns; /* the sampler's last look at its CPU time */
    struct thread_info *next_ended;
};

struct thread_table {
    /* guards the lists, the slots, and each entry's lent, ended, sampled */
    pthread_mutex_t lock;
    /* Held by sources/resolve.c from its check that a thread has no entry (JVMTI
     * thread-local storage) to the storing of its new one, and at its end likewise, so a
     * thread is entered once; and by lookups of another thread's entry, which its end
     * may free. Nothing slow runs under it. */
    pthread_mutex_t naming;
    uint32_t next_serial;
    struct thread_info **live;
    uint32_t nlive;
    size_t caplive;
    struct thread_info *ended; /* ended, not reclaimed yet; newest first */
    uint32_t nended;
    uint32_t readers;     /* threads_read_begin .. _end under way */
    uint32_t *free_slots; /* slots of reclaimed entries, for the next ones */
    uint32_t nfree, nslots;
    size_t capfree;
};

void threads_init(struct thread_table *t);
/* Enters a thread, named and with its global reference set by the caller: its serial,
 * object ID and slot, live, sampling on. -1 when out of memory (ti is still the caller's). */
int threads_add(struct thread_table *t, struct thread_info *ti, struct ids *ids);
/* The thread has ended: out of the live list, onto the ended list. */
void threads_end(struct thread_table *t, struct thread_info *ti);

/* Holds an entry (live or ended): it is not reclaimed until released. */
void threads_hold(struct thread_table *t, struct thread_info *ti);
void threads_release(struct thread_table *t, struct thread_info *ti);
/* Gives back n entries lent by threads_lend_sampled, threads_lend_live or threads_lend. */
void threads_give_back(struct thread_table *t, struct thread_info *const *infos, int n);
/* Lends the references of the live threads being sampled (at most max), held; how many. */
int threads_lend_sampled(struct thread_table *t, jthread *refs, struct thread_info **infos, int max);
/* The same for every live thread. */
int threads_lend_live(struct thread_table *t, jthread *refs, struct thread_info **infos, int max);
/* Lends the reference of one thread, held; NULL (not held) when it has ended. */
jthread threads_lend(struct thread_table *t, struct thread_info *ti);
int threads_live_count(struct thread_table *t);

/* See the top: no entry is reclaimed in between. Short, and never around a wait. */
void threads_read_begin(struct thread_table *t);
void threads_read_end(struct thread_table *t);

/* The ended entry whose reference `same` says is `arg`'s thread, held; NULL if none. */
struct thread_info *threads_find_ended(struct thread_table *t, bool (*same)(jthread ref, void *arg), void *arg);
/* Reclaiming, in two steps so that JVMTI is asked without the lock: holds up to max
 * ended entries no one else holds (how many); then, told which of them are gone, takes
 * those out (unless held or read meanwhile) and returns them chained by next_ended:
 * the caller deletes their references and frees them (threads_free). */
int threads_ended_take(struct thread_table *t, struct thread_info **out, int max);
struct thread_info *threads_ended_reclaim(struct thread_table *t, struct thread_info **held, const bool *gone, int n);
/* Frees an entry out of the table (its reference deleted by the caller). */
void threads_free(struct thread_info *ti);

/* CPU sampling on or off for every live thread. */
void threads_set_sampled_all(struct thread_table *t, bool on);
/* The same for the live thread with this object ID; false when there is none. */
bool threads_set_sampled_by_id(struct thread_table *t, uint32_t object_id, bool on);

#endif
