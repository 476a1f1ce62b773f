/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Threads: every Java thread (but the agent's own) is registered in the thread table
 * when it starts, or at VM init for those already running, and its THREAD START and
 * THREAD END records are handed over as they happen. See thread_events_source.
 */
#ifndef HPROF_THREAD_EVENTS_H
#define HPROF_THREAD_EVENTS_H

#include <jni.h>

#include "sources/source.h"

struct host;
struct thread_info;

/* Enters a thread (its THREAD START handed over) unless it has an entry or is one of the
 * agent's own; returns its entry, held (threads_release it), NULL for the agent's own or
 * when out of memory. A thread keeps its entry after its end while it still runs (heap
 * dumps find the thread that ends the VM by it); the entry goes once the thread is gone. */
struct thread_info *thread_events_enter(struct host *h, JNIEnv *jni, jthread thread);

/* A thread's end: its THREAD END handed over (once, for a thread that has an entry). */
void thread_events_leave(struct host *h, JNIEnv *jni, jthread thread);

#endif
