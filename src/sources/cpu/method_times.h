/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times and cpu=old: turns the Tracker's method entry/exit events into call
 * counts and times per stack trace.
 *
 * Each Java thread keeps a shadow call stack here. An exit closes the frame it names
 * (frames above it were left by an exception); the time between entry and exit, less
 * the callees' time, is the method's own time (cpu=times); cpu=old counts the whole
 * time. Times are the Tracker's System.nanoTime() at each event; the time the thread
 * spent off the CPU in a batch (its clock less its CPU time) is cut from the longest gaps
 * between events, where it happened, so a method that sleeps, blocks or is descheduled
 * is not charged for the wait. The hand-overs themselves are charged to no method (see
 * TRACKER_MARK_BIT), nor is the Tracker's own work, as near as it can be measured.
 *
 * Threads hand their batches over without ever waiting: the timer thread counts them
 * while it keeps up; when it falls behind, a thread counts its own (method_times.c).
 * Each stack remembers the steps it took (the trace below, the method called: the trace
 * above), so that most calls are counted without naming the method or hashing the stack.
 */
#ifndef HPROF_METHOD_TIMES_H
#define HPROF_METHOD_TIMES_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct method_times;

struct batch;
struct bci_class;

/* timing=sampled: from now on method (cnum, mnum), of a class of nmethods methods, is
 * timed by sample (on) or at every call. */
typedef void method_times_sampler(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, uint32_t nmethods,
                                  bool on);
struct method_times *method_times_new(method_times_sampler *sampler);
/* The deepest stack cpu=times and cpu=old keep: deeper ones are cut to their top frames. */
#define METHOD_TIMES_MAX_DEPTH 64
/* Starts the timer thread that counts batches off the threads that made them. */
int method_times_start(struct host *h, JNIEnv *jni);
/* A batch of nslots slots of events (an event, then its time if it read the clock): fill
 * method_times_batch_slots(b), then submit. */
struct batch *method_times_batch_new(struct method_times *m, int nslots);
int64_t *method_times_batch_slots(struct batch *b);
/* Hands the batch (and its ownership) over, for the Java thread with this id; cpu_ns is its
 * CPU time now, or -1 when not known. `last`: the thread records nothing more (it ended),
 * so its call stack is given up (kept for another thread) once the batch is counted; a
 * last batch may be empty. Never waits. */
void method_times_submit(struct host *h, JNIEnv *jni, struct batch *b, int64_t tid, int64_t cpu_ns,
                         uint32_t thread_serial, bool last);
/* Names the methods of a class that may be unloaded before its calls are counted (its
 * loader is not one of the JDK's own), now that it is prepared: once for its bytes. */
void method_times_name_class(struct host *h, JNIEnv *jni, struct bci_class *c);
/* The frame of method (cnum, mnum) of the instrumented classes (the unknown method's when
 * it cannot be named any more); NULL when out of memory. */
struct frame *method_times_frame(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum);
/* HPROF_STACK_STATS: how many call stacks were made, and given up (stderr). */
void method_times_log_stats(struct host *h);
/* Waits until every batch handed over so far is counted (before a dump). */
void method_times_flush(struct host *h);

/* An event is (class number << 16 | method number), with this bit for an exit; the next
 * slot holds its time, but for an event with the LEAF or UNTIMED bit, which has none. */
#define TRACKER_EXIT_BIT INT64_MIN
/* With this bit: a call of a trivial method (cf_method_trivial), counted and not timed; it
 * has no exit event, and no time slot. */
#define TRACKER_LEAF_BIT ((int64_t)1 << 61)
/* A mark, which the agent writes first in a buffer it hands back: (this bit | the thread's
 * CPU time, clock) when the hand-over returned: two slots. */
#define TRACKER_MARK_BIT ((int64_t)1 << 62)
/* With this bit: an entry or exit of a method timed by sample (timing=sampled) that read no
 * clock (no time slot); the call is charged its method's learned mean. */
#define TRACKER_UNTIMED_BIT ((int64_t)1 << 60)

#endif
