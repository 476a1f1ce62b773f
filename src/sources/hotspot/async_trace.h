/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fast stack walk of the current thread, for sources that need one per event
 * (exact heap=sites takes one per allocation).
 *
 * JVMTI's GetStackTrace builds a chain of frame objects in the VM for every call and
 * costs 3-4 us for a handful of frames. HotSpot also exports AsyncGetCallTrace, the
 * walker profilers call from signal handlers: it streams over the same frames without
 * building anything and costs well under half of that. It answers only while the VM
 * posts ClassLoad events, and it names a method only once its jmethodID exists, so this
 * module turns on the event and makes the IDs of every class as it is prepared.
 *
 * It does not understand the stacks of virtual threads (JDK 21+): below the frames
 * thawed onto the carrier's stack it jumps to the carrier's own frames, through
 * jdk.internal.vm.Continuation's native entry. A walk that meets a native method of
 * that class is therefore refused.
 *
 * Whenever the fast walk cannot answer (another VM, a GC in progress, a frame whose
 * method has no ID yet, a virtual thread), async_trace_current returns -1 and the
 * caller falls back to GetStackTrace: the frames are the same either way.
 */
#ifndef HPROF_ASYNC_TRACE_H
#define HPROF_ASYNC_TRACE_H

#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct async_trace;

/* The walker's own frame and trace shapes (HotSpot's, unchanged since JDK 6). */
struct agct_frame {
    jint bci; /* -3 in a native method; other negative values: no answer */
    jmethodID method;
};

struct agct_trace {
    JNIEnv *env;
    jint nframes; /* <= 0: the walk failed (GC active, not walkable, ...) */
    struct agct_frame *frames;
};

typedef void (*agct_fn)(struct agct_trace *, jint, void *);

/* In Agent_OnLoad: the walker, or NULL when this VM has none (or HPROF_JVMTI_STACKS=1). */
struct async_trace *async_trace_new(void);
/* The walker whatever HPROF_JVMTI_STACKS says (the CPU sampler's), or NULL. */
struct async_trace *async_trace_open(void);
/* The walker's entry itself, for a signal handler (NULL when w is). */
agct_fn async_trace_fn(const struct async_trace *w);
/* Async-signal-safe: how many of these frames (top first) are above the first native
 * method of jdk.internal.vm.Continuation, i.e. belong to the virtual thread mounted on
 * the carrier (n when there is none). */
int async_trace_barrier_cut(const struct async_trace *w, const struct agct_frame *frames, int n);
/* Once the callbacks are set: turns on the events the walker depends on. */
void async_trace_enable_events(struct async_trace *w, jvmtiEnv *jvmti);
/* At VM init: what async_trace_class_prepared does, for the classes loaded before. */
void async_trace_vm_init(struct async_trace *w, jvmtiEnv *jvmti, JNIEnv *jni);
/* ClassPrepare: makes the method IDs of a new class. */
void async_trace_class_prepared(struct async_trace *w, jvmtiEnv *jvmti, jclass cls);
/* How many classes were prepared so far (counted once their IDs are made): a Method*
 * seen before may stand for another method only after a class was, for the memory of
 * an unloaded one is then reused. NULL when w is. */
const _Atomic uint32_t *async_trace_prepared(const struct async_trace *w);
/* The ClassLoad callback the walker needs turned on (it does nothing). */
void JNICALL async_trace_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls);

/*
 * Up to max frames of the calling thread, top first, in GetStackTrace's form (location:
 * bytecode index, -1 in a native method). The thread must be in a JNI native method or
 * a JVMTI callback. Returns the number of frames, or -1 when the caller must use
 * GetStackTrace instead (also when w is NULL).
 */
int async_trace_current(struct async_trace *w, JNIEnv *jni, jvmtiFrameInfo *frames, int max);

#endif
