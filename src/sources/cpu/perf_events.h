/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=samples' kernel frames (kernel=y): each sampled thread's CPU time counted by a perf
 * event of its own (perf_event_open, the software task clock) instead of a POSIX timer.
 * Every `interval` of the thread's CPU time the kernel writes a record with the kernel's
 * call chain (PERF_SAMPLE_CALLCHAIN, its user part left out: the handler walks that) into
 * the event's ring (two pages mapped per thread) and sends SIGPROF to that thread alone
 * (F_SETSIG, F_SETOWN_EX). The handler, on the interrupted thread, takes the kernel's
 * frames from the newest record of its own ring, then walks the user stack as the timers'
 * samples do. Why a signal to the thread rather than the rings read by the sampling
 * thread: AsyncGetCallTrace and the native walk need the thread stopped at the point the
 * record was taken, which only its own signal handler has.
 * Where perf_event_open is not allowed (kernel.perf_event_paranoid >= 2 without root or
 * CAP_PERFMON, a seccomp filter, no perf events), perf_events_probe says why and the
 * timers serve as before.
 */
#ifndef HPROF_PERF_EVENTS_H
#define HPROF_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct signal_sampler;
struct sig_thread;

/* The kernel frames a sample holds at most (the event's sample_max_stack too). */
#define PERF_MAX_KERNEL 64

/* 0 when this process may open a perf event with the kernel's call chain for its threads;
 * else -1 and why (with the sysctl to change) in why. HPROF_PERF_DENIED=1 (tests): as if
 * the kernel refused. Also sets the sizes of the rings in s. */
int perf_events_probe(struct signal_sampler *s, char *why, size_t len);
/* The thread's event (every interval of its CPU time, its signal to it alone), its ring
 * mapped, enabled: 0, or -1 (errno set) with nothing left open. */
int perf_thread_open(struct signal_sampler *s, struct sig_thread *t);
/* Its event enabled at the interval set now, or disabled (kept): paused, no signals. */
void perf_thread_arm(struct signal_sampler *s, struct sig_thread *t, bool on);
/* Its event closed; its ring unmapped when no handler of its thread can be reading it
 * (the thread itself calls, or it has ended), else left mapped (VM death, fall-back). */
void perf_thread_close(struct signal_sampler *s, struct sig_thread *t);
/* In the handler, on t's own thread (async-signal-safe: reads of its own ring, then the
 * ring's tail moved on): the kernel pcs of the newest sample record, top first, into pcs
 * (at most max): how many. *samples: the sample records read (each an interval of CPU
 * time; 0: the signal's record was taken by an earlier signal). */
int perf_thread_take(const struct signal_sampler *s, struct sig_thread *t, uintptr_t *pcs, int max, uint32_t *samples);

#endif
