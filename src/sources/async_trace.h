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
 * Whenever the fast walk cannot answer (another VM, a GC in progress, a frame whose
 * method has no ID yet), async_trace_current returns -1 and the caller falls back to
 * GetStackTrace: the frames are the same either way.
 */
#ifndef HPROF_ASYNC_TRACE_H
#define HPROF_ASYNC_TRACE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

/* In Agent_OnLoad, before the event callbacks are set: looks the walker up. */
bool async_trace_available(void);
/* Once the callbacks are set: turns on the events the walker depends on. */
void async_trace_enable_events(jvmtiEnv *jvmti);
/* At VM init: makes the method IDs of the classes loaded before the events were on. */
void async_trace_vm_init(jvmtiEnv *jvmti);
/* ClassPrepare: makes the method IDs of a new class. */
void async_trace_class_prepared(jvmtiEnv *jvmti, jclass cls);
void JNICALL async_trace_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls);

/*
 * Up to max frames of the calling thread, top first, skipping `skip` frames, in
 * GetStackTrace's form (location: bytecode index, -1 in a native method). The thread
 * must be in a JNI native method or a JVMTI callback. Returns the number of frames, or
 * -1 when the caller must use GetStackTrace instead.
 */
int async_trace_current(JNIEnv *jni, int skip, jvmtiFrameInfo *frames, int max);

#endif
