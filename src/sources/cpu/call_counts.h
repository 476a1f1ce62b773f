/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times,timing=gprof: every call counted by the calling thread itself, on its own
 * table of traces in the Tracker (java/hprof/Tracker.java, "timing=gprof"), with no event
 * buffer, no replay and no clock; the times are CPU samples, one interval each, as gprof
 * takes them.
 *
 * The agent reads a thread's table when the Tracker gives it (the table outgrew its
 * array, the thread ended, a dump asked for every thread's): each node's calls since the
 * last reading go to the trace the node stands for. A node is named once per table
 * generation by following its key down to `depth` frames; the count already read is
 * kept per node, so a table read twice (a dump while the thread runs) adds nothing twice.
 */
#ifndef HPROF_CPU_CALL_COUNTS_H
#define HPROF_CPU_CALL_COUNTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct options;
struct trace;

/* Whether the options count calls this way. */
bool call_counts_wanted(const struct options *o);
struct call_counts *call_counts_new(void);
/* Adds what the Tracker's counts array of thread `tid` counted since it was last read
 * (its generation's); last: the thread counts no more, its state goes. */
void call_counts_take(struct host *h, JNIEnv *jni, jlongArray counts, int64_t tid, uint32_t thread_serial, bool last);

/* The Tracker stops counting (a session's end): instrumented calls may begin uncounted
 * from now on, and a thread's first count looks for them on its stack. */
void call_counts_paused(struct host *h);

/* Tracker.openCalls, on the thread: the codes (class number << 16 | method number) of the
 * instrumented calls it is in, outermost first, but for the Tracker's frames and, when the
 * hook that asks is an entry, the method entering; NULL when none. */
jlongArray call_counts_open_calls(struct host *h, JNIEnv *jni);

/* The Tracker's own methods (class `tracker`), whose time is the agent's, not the
 * program's: a sample in one, or in a JDK method it called, is not counted. */
void call_counts_bind(struct host *h, JNIEnv *jni, jclass tracker);

/* A sample's n frames, top first (a native method's location -1; NULL: a frame without
 * an ID), keyed in place as the counted calls are: no lines; a frame still running the
 * code from before its class was instrumented (a late attach) named by the method's
 * current ID; a native method's time its caller's (it has no hooks, so no count of its
 * own); at most depth of them. Returns how many are kept; 0 when there are none or the
 * sample is of the Tracker's own work. */
int call_counts_frames(struct host *h, JNIEnv *jni, jvmtiFrameInfo *f, int n, int depth, jmethodID no_id);

/* The samplers' part: a sample of `weight` intervals on trace t, its frames keyed as
 * this mode keys them (no lines, no native frames: a native method's time is its
 * caller's, as cpu=times charges it), is its time. */
void call_counts_sampled(struct host *h, struct trace *t, uint64_t weight);

#endif
