/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times and cpu=old: replays one thread's method entry and exit events on a shadow
 * call stack, counting each call and its time on its stack trace.
 *
 * An exit closes the frame it names (frames above it were left by an exception); the time
 * between entry and exit, less the callees' time, is the method's own time (cpu=times);
 * cpu=old counts the whole time. Times are the Tracker's System.nanoTime() at each event;
 * the time the thread spent off the CPU in a batch is cut from its longest gaps
 * (gap_cut.h). The hand-overs themselves are charged to no method (TRACKER_MARK_BIT),
 * nor is the Tracker's own work, as near as it can be measured.
 *
 * Each replay remembers the steps its stack took (the trace below, the method called: the
 * trace above), so that most calls are counted without naming the method or hashing the
 * stack. One thread's batches are replayed by one thread at a time (method_times.c).
 */
#ifndef HPROF_CPU_CALL_REPLAY_H
#define HPROF_CPU_CALL_REPLAY_H

#include <jni.h>
#include <stdint.h>

struct host;
struct call_replay;
struct method_costs;

/* A batch of one thread's events: slots of events, each followed by its time if it read
 * the clock (tracker_events.h); the thread's CPU time when it handed them over (-1: not
 * known) and the clock then, and its serial. */
struct replay_batch {
    const int64_t *slots;
    int nslots;
    int64_t cpu_ns, wall_ns;
    uint32_t thread_serial;
};

/* How the replays found their steps, for HPROF_STACK_STATS. */
struct replay_stats {
    uint64_t by_hint, by_hash; /* calls whose step was found by hint, and by hash */
    uint32_t most_edges;       /* the most steps a replay held */
    uint32_t full;             /* times a replay's steps filled their table and it started again */
};

/* A replay for a new thread; costs: the methods' mean own times (timing=sampled), shared
 * by every replay. NULL when out of memory. */
struct call_replay *call_replay_new(struct method_costs *costs);
/* Replays a batch of the replay's thread; returns how many events it counted. */
uint64_t call_replay_batch(struct host *h, JNIEnv *jni, struct call_replay *r, const struct replay_batch *b);
/* The thread ended: calls still open are not counted (they never returned), as at VM
 * death, and the replay is emptied for another thread; it keeps a small table of steps
 * (the next thread may take the same ones). */
void call_replay_clear(struct call_replay *r);
/* Adds the replay's figures to *sum. */
void call_replay_add_stats(const struct call_replay *r, struct replay_stats *sum);

#endif
