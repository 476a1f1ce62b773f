/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Java thread's last Java frame, as HotSpot records it when the thread leaves Java code
 * for the VM or native code (JavaThread::_anchor, a JavaFrameAnchor: the frame's sp, fp
 * and pc). AsyncGetCallTrace walks such a thread from there, but refuses while the pc is
 * not yet filled in: a thread that left compiled code through a runtime stub has its sp
 * recorded and its pc still at 0 until the VM needs it, when HotSpot reads it from the
 * word below sp (the return address of the call). walk_recover fills it in the same way.
 *
 * The offsets come from the VMStructs tables (vm_structs.h) and the JavaThread from the
 * thread's JNIEnv, which lies inside it (running_threads_env_offset).
 */
#ifndef HPROF_THREAD_ANCHOR_H
#define HPROF_THREAD_ANCHOR_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct thread_anchor {
    intptr_t env_at; /* JNIEnv minus JavaThread */
    uint64_t sp_at;  /* of the anchor's sp in JavaThread */
    uint64_t pc_at;  /* of its pc */
    bool found;
};

/* Fills *out at VM init, on a Java thread; false (out->found false) when not found. */
bool thread_anchor_find(jvmtiEnv *jvmti, JNIEnv *jni, struct thread_anchor *out);

/* Async-signal-safe, on the thread that env belongs to (its JavaThread is alive). */
static inline uintptr_t *thread_anchor_slot(const struct thread_anchor *a, JNIEnv *env, uint64_t at)
{
    return (uintptr_t *)((uintptr_t)env - (uintptr_t)a->env_at + at);
}

#endif
