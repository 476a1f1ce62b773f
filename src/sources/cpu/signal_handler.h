/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=samples' SIGPROF handler and the guard of its stack walk (see signal_internal.h).
 *
 * The handler runs on the sampled thread, at whatever instruction the thread was: it
 * finds the thread's record (gettid, then a lock-free map), claims a slot of the ring,
 * has HotSpot's AsyncGetCallTrace walk the Java stack from the interrupted context
 * straight into the slot, and publishes it. A signal that is not ours (another timer of
 * the program's, a kill) goes to the handler that was there before.
 *
 * The guard: AsyncGetCallTrace reads VM structures that another thread may be changing,
 * and has faulted on some JDK updates. A SIGSEGV/SIGBUS handler placed in front of the
 * JVM's jumps back out of the walk when the faulting thread is inside one (its record
 * holds the jump buffer) and passes every other fault, untouched, to the JVM's handler,
 * which relies on them (implicit null checks, safepoint polls, stack banging).
 */
#ifndef HPROF_SAMPLE_SIGNAL_H
#define HPROF_SAMPLE_SIGNAL_H

#include <stdbool.h>

struct signal_sampler;

/* Installs the SIGPROF handler (SA_RESTART: interrupted system calls resume). */
int sample_signal_install(struct signal_sampler *s);
/* Installs the guard in front of the JVM's SIGSEGV and SIGBUS handlers. */
int sample_signal_guard(struct signal_sampler *s);
/* Whether the SIGPROF handler is still ours (the program may have put its own). */
bool sample_signal_is_ours(void);

#endif
