/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Java threads already running when the agent is attached to a JVM: each one's OS
 * thread id and JNIEnv, which the signal sampler needs to give it a CPU timer and walk
 * its stack, and which a thread otherwise hands over itself at its start.
 *
 * JVMTI tells neither, so they are read from HotSpot's own structures (vm_structs.h):
 * java.lang.Thread.eetop holds the thread's JavaThread, whose OSThread holds the id;
 * the JNIEnv lies inside the JavaThread, at the offset the attaching thread's own shows.
 * Its stack's bounds come from there too. The threads are suspended meanwhile, so none can end and free its JavaThread under
 * the reads.
 */
#ifndef HPROF_RUNNING_THREADS_H
#define HPROF_RUNNING_THREADS_H

#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct running_thread {
    jthread thread; /* a local reference */
    int32_t tid;
    JNIEnv *env;
    uintptr_t stack_lo, stack_hi; /* its stack (JavaThread::_stack_base, _size); 0, 0 unknown */
};

/* The other live Java threads (not the caller): how many, with *out from malloc, or -1
 * with the reason in why (HotSpot's structures not found, a thread cannot be suspended).
 * Needs can_suspend. The caller frees them with running_threads_free. */
int running_threads_take(jvmtiEnv *jvmti, JNIEnv *jni, struct running_thread **out, char *why, size_t whylen);
void running_threads_free(JNIEnv *jni, struct running_thread *r, int n);
/* Where a thread's JNIEnv lies in its JavaThread (the same for every thread), from the
 * calling Java thread's own: JNIEnv minus JavaThread. */
bool running_threads_env_offset(jvmtiEnv *jvmti, JNIEnv *jni, intptr_t *env_at);

#endif
