/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=samples for the threads that are not Java threads (threads=all, the default with
 * the signal sampler on the CPU clock): the JIT's compiler threads, the GC's workers,
 * the VM's own threads, the agent's, and any other native thread of the process. JVMTI
 * tells of none of them, so the sampling thread lists /proc/self/task five times a
 * second (a thread that starts meanwhile is missed until then; a listing costs some tens
 * of microseconds): each thread that has no Java record gets a record in the sampler's `natives` map (this
 * thread alone adds and removes them) and a timer on its CPU clock, as a Java thread
 * does at its start (signal_timers.c); a thread gone from the list, or become a Java
 * thread, loses both. Its kind comes from the name HotSpot gives it (/proc's comm:
 * "C2 CompilerThre", "GC Thread#0", "G1 Conc#0", "VM Thread", "HPROF cpu sampl" ...),
 * the frame's name from the same, written whole where the kernel cut a name HotSpot or
 * the agent gives ("C2 CompilerThread"; native_threads.c says why not read from HotSpot).
 *
 * The signal handler records such a sample (SAMPLE_NATIVE) with the thread's native
 * stack (native=y: native_frames.h), or none (native=n); the drain makes it a trace of
 * that stack under the thread's kind and name, [GC].G1 Conc#, its root.
 */
#ifndef HPROF_NATIVE_THREADS_H
#define HPROF_NATIVE_THREADS_H

#include <jvmti.h>

struct host;
struct signal_sampler;
struct sample;
struct native_threads;
struct native_frames;

/* The pseudo-classes and tables, before any sample; NULL when out of memory. */
struct native_threads *native_threads_new(struct host *h);
/* On the sampling thread: the records and timers brought up to date with the threads.
 * How many threads are new. */
int native_threads_rescan(struct native_threads *nt, struct signal_sampler *s);
/* Every native thread's timer deleted (VM death, the JVMTI sampler taking over). */
void native_threads_stop(struct signal_sampler *s);
/* The frame that stands for the CPU the process used before sampling began (the JVM's
 * start-up, before VM init), [VM].JVM start-up, into f[0]: 1. */
int native_threads_start_up(struct native_threads *nt, jvmtiFrameInfo *f);
/* The frames of a SAMPLE_NATIVE sample, top first, into f (at most depth >= 1: the
 * native ones nf names, cut to leave room for the thread's own at the root): how many. */
int native_threads_frames(struct native_threads *nt, struct native_frames *nf, const struct sample *smp,
                          jvmtiFrameInfo *f, int depth);

#endif
