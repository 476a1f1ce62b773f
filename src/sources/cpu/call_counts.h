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

/* Tracker.openCalls, on the thread: the method codes (tracker_events.h) of the
 * instrumented calls it is in, outermost first, but for the Tracker's frames and, when the
 * hook that asks is an entry, the method entering; NULL when none. */
jlongArray call_counts_open_calls(struct host *h, JNIEnv *jni);

/* The Tracker's own methods (class `tracker`), whose time is the agent's, not the
 * program's: a sample in one, or in a JDK method it called, is not counted. */
void call_counts_bind(struct host *h, JNIEnv *jni, jclass tracker);

/* A sample's n frames, top first (a native method's location -1; NULL: a frame without
 * an ID), keyed in place as the counted calls are: no lines; a frame still running the
 * code from before its class was instrumented (a late attach) named by the method's
 * current ID; the frames of methods with no count of their own left out, so that their
 * time is their caller's and the trace is the one their caller's calls are counted on:
 * native methods (no hooks) and those of classes never instrumented (hidden classes,
 * such as lambdas' and method handles': no agent may change them); at most depth of
 * them. Returns how many are kept; 0 when there are none or the sample is of the
 * Tracker's own work; -1 when frames were left but none of a counted method. */
int call_counts_frames(struct host *h, JNIEnv *jni, jvmtiFrameInfo *f, int n, int depth, jmethodID no_id);

/* Samples (in intervals) that CPU TIME cannot charge to a trace, reported apart from
 * it: walk failed (no stack) or in no counted method (call_counts_frames -1). */
enum call_counts_apart { APART_UNWALKED, APART_NO_METHOD, APART_KINDS };
void call_counts_set_apart(struct host *h, enum call_counts_apart why, uint64_t weight);
/* Those since the last dump (zeroed): how many of each kind into n[APART_KINDS], the
 * time they stand for (one interval each, as it was then) into *ns. */
void call_counts_take_apart(struct host *h, uint64_t n[APART_KINDS], uint64_t *ns);

/* The samplers' part: a sample of `weight` intervals on trace t, its frames keyed as
 * this mode keys them (no lines, no native frames: a native method's time is its
 * caller's, as cpu=times charges it), is its time. */
void call_counts_sampled(struct host *h, struct trace *t, uint64_t weight);

#endif
