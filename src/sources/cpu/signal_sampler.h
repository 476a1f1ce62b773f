/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=samples' default engine: stacks taken by a signal on the sampled thread itself,
 * where it is (no safepoint bias), with HotSpot's AsyncGetCallTrace.
 *
 * Per thread: a record (Linux thread ID, JNIEnv, thread-table entry) and, with clock=cpu,
 * a timer on its CPU-time clock, made in ThreadStart on the thread and deleted in
 * ThreadEnd. The handler (sources/cpu/signal_handler.c) puts each stack in a lock-free ring
 * (util/sample_ring.h); the "HPROF cpu sampling thread" drains it into the trace table
 * every 20 ms (every interval with clock=wall, after signalling each thread).
 *
 * AsyncGetCallTrace names methods by jmethodID and only those that exist: each class's
 * are made as it is prepared (and at VM init for the classes loaded before).
 *
 * Falls back to the JVMTI sampler (sources/cpu/jvmti_sampler.c), saying so once on stderr,
 * where AsyncGetCallTrace is missing, where the signal cannot be had, and when the
 * program replaces the SIGPROF handler while it runs.
 */
#ifndef HPROF_CPU_SIGNAL_SAMPLER_H
#define HPROF_CPU_SIGNAL_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

struct host;

/* This engine's sampling on or off, the threads' timers armed or disarmed with it;
 * false when it is not running. A net= CONTROL for one thread turns it on so; the whole
 * of CPU sampling goes through cpu_signal_sampler_source's enable hook. */
bool cpu_signal_sampler_enable(struct host *h, bool on);
/* Our SIGPROFs that arrived since the start (0 when this engine is not running). */
uint64_t cpu_signal_sampler_signals(struct host *h);
/* The frames a sample holds, fixed when the engine started (0 when it is not running):
 * a deeper depth set later is cut to it. */
int cpu_signal_sampler_max_frames(struct host *h);

struct thread_info;

/* Called on a carrier thread: its samples name `vthread` from now on (a virtual thread
 * mounted), or again the carrier itself (NULL: unmounted). */
void cpu_signal_sampler_mounted(struct host *h, struct thread_info *vthread);

#include "sources/source.h"

#endif
