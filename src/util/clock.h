/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The clocks the agent reads. Monotonic time for durations and deadlines (never jumps
 * with the wall clock); the wall clock only where a record says when something happened.
 */
#ifndef HPROF_CLOCK_H
#define HPROF_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds. */
static inline uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic seconds, for phase timings. */
static inline double clock_s(void) { return (double)clock_ns() / 1e9; }

/* Wall-clock microseconds since the epoch. */
static inline uint64_t clock_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A condition whose timed waits take CLOCK_MONOTONIC deadlines (clock_deadline_after):
 * a change of the wall clock neither cuts a pause short nor stretches it. */
static inline void clock_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(c, &ca);
    pthread_condattr_destroy(&ca);
}

/* A CLOCK_MONOTONIC deadline `ms` from now, for pthread_cond_timedwait on a condition
 * made by clock_cond_init. */
static inline void clock_deadline_after(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

#endif
