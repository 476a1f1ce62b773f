/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pace of an agent thread that works in rounds with a pause between them (the CPU
 * samplers, the class sweeper): a stop cuts the pause short and waits, a bounded time,
 * for the round under way to end, so a thread stuck in the VM cannot hang the exit.
 */
#ifndef HPROF_PACER_H
#define HPROF_PACER_H

#include <pthread.h>
#include <stdbool.h>

struct pacer {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;    /* asked to stop */
    bool running; /* the thread is in its rounds */
};

void pacer_init(struct pacer *p);
/* Before the thread is started: marks it running, and asked to go on. False when it
 * runs already (started again before its stop had ended it: it goes on). */
bool pacer_begin(struct pacer *p);
/* On the thread, between rounds: pauses `ms` milliseconds. False once asked to stop. */
bool pacer_pause(struct pacer *p, int ms);
/* The thread's last call (or the starter's, when the thread could not be started). */
void pacer_end(struct pacer *p);
/* Asks the thread to stop, cutting its pause short, and waits up to wait_ms for it. */
void pacer_stop(struct pacer *p, int wait_ms);

#endif
