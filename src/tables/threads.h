/*
 * Java threads hprof has seen: serial number, object ID, names, and a global reference
 * while the thread lives (the CPU sampler and the dumps reach live threads through it).
 *
 * sources/resolve.c names a thread and makes its reference; the table numbers it and
 * keeps the live ones. A reference is valid while the table's lock is held, or while it
 * is lent (threads_lend*): a thread that ends meanwhile gives its reference up to its
 * last borrower (threads_unlend), for deletion.
 */
#ifndef HPROF_THREADS_H
#define HPROF_THREADS_H

#include <jvmti.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/registry.h"

struct ids;

struct thread_info {
    uint32_t serial;        /* 200001 ... */
    uint32_t object_id;
    char *name;
    char *group;            /* thread group name, or NULL */
    char *parent_group;     /* the group's parent name, or NULL */
    jthread ref;            /* global reference; NULL once the thread has ended */
    jthread ended_ref;      /* the reference of an ended thread, while it is still lent */
    uint32_t lent;          /* borrowers of the reference now */
    bool sampled;           /* CPU sampling on for this thread (socket CONTROL) */
    int64_t last_cpu_ns;    /* the sampler's last look at its CPU time */
};

struct thread_table {
    pthread_mutex_t lock;   /* guards the live list and each entry's ref, ended_ref, lent, sampled */
    /* Held by sources/resolve.c from its check that a thread has no entry (JVMTI
     * thread-local storage) to the storing of its new one, and at its end likewise, so a
     * thread is entered once. Nothing slow runs under it. */
    pthread_mutex_t naming;
    struct registry all;
    struct thread_info **live;
    uint32_t nlive, caplive;
};

void threads_init(struct thread_table *t);
/* Enters a thread, named and with its global reference set by the caller (live if it
 * has one): its serial and object ID, sampling on. -1 when out of memory (ti is still
 * the caller's). */
int threads_add(struct thread_table *t, struct thread_info *ti, struct ids *ids);
/* The thread has ended: out of the live list. Returns its reference when no one borrows
 * it (the caller deletes it), else NULL (its last borrower gets it back). */
jthread threads_end(struct thread_table *t, struct thread_info *ti);

/* Lends the references of the live threads being sampled (at most max); returns how many. */
int threads_lend_sampled(struct thread_table *t, jthread *refs, struct thread_info **infos, int max);
/* Lends the reference of one live thread; NULL when it has none or has ended. */
jthread threads_lend(struct thread_table *t, struct thread_info *ti);
/* Gives back a lent reference. Returns it when it must be deleted now (the thread ended
 * meanwhile and this was its last borrower), else NULL. */
jthread threads_unlend(struct thread_table *t, struct thread_info *ti);
int threads_live_count(struct thread_table *t);

/* CPU sampling on or off for every live thread. */
void threads_set_sampled_all(struct thread_table *t, bool on);
/* The same for the live thread with this object ID; false when there is none. */
bool threads_set_sampled_by_id(struct thread_table *t, uint32_t object_id, bool on);

uint32_t threads_count(struct thread_table *t);
struct thread_info *threads_at(struct thread_table *t, uint32_t i);

#endif
