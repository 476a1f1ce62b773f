/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times and cpu=old: turns the Tracker's method entry/exit events into call counts
 * and times per stack trace. This file hands the threads' batches of events over to be
 * replayed (call_replay.h: one shadow call stack per thread); the events' coding is in
 * tracker_events.h, timing=sampled's choice of methods in method_costs.h.
 *
 * Threads hand their batches over without ever waiting: the timer thread replays them
 * while it keeps up; when it falls behind, a thread replays its own.
 */
#ifndef HPROF_METHOD_TIMES_H
#define HPROF_METHOD_TIMES_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/cpu/method_costs.h"
#include "sources/cpu/tracker_events.h"

struct host;
struct method_times;

struct batch;

/* switch_to: tells the Tracker to time a method by sample or not (timing=sampled). */
struct method_times *method_times_new(method_costs_switch *switch_to);
/* The deepest stack cpu=times and cpu=old keep: deeper ones are cut to their top frames. */
#define METHOD_TIMES_MAX_DEPTH TRACKER_MAX_DEPTH
/* Starts the timer thread that replays batches off the threads that made them. */
int method_times_start(struct host *h, JNIEnv *jni);
/* A batch of nslots slots of events (an event, then its time if it read the clock): fill
 * method_times_batch_slots(b), then submit. */
struct batch *method_times_batch_new(struct method_times *m, int nslots);
int64_t *method_times_batch_slots(struct batch *b);
/* Hands the batch (and its ownership) over, for the Java thread with this id; cpu_ns is its
 * CPU time now, or -1 when not known. `last`: the thread records nothing more (it ended),
 * so its call stack is released (kept for another thread) once the batch is replayed; a
 * last batch may be empty. Never waits. */
void method_times_submit(struct host *h, JNIEnv *jni, struct batch *b, int64_t tid, int64_t cpu_ns,
                         uint32_t thread_serial, bool last);
/* HPROF_STACK_STATS: how many call stacks were made, and released (stderr);
 * HPROF_TIMING_STATS: the methods timed by sample. */
void method_times_log_stats(struct host *h);
/* Waits until every batch handed over so far is replayed (before a dump). */
void method_times_flush(struct host *h);

#endif
