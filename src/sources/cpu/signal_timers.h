/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What makes cpu=samples' signals (see signal_internal.h).
 *
 * clock=cpu: each Java thread has a POSIX timer on its own CPU-time clock
 * (pthread_getcpuclockid), delivered to that thread alone (SIGEV_THREAD_ID), firing
 * every interval of CPU time it uses: a thread that waits uses none and gets no signal.
 * Where a thread's timer cannot be made, setitimer(ITIMER_PROF) on the process's CPU
 * time is the fallback (the kernel sends its signal to a thread that is running).
 * kernel=y, where allowed: a perf event per thread instead of its timer (perf_events.h),
 * its timer where the event cannot be had.
 *
 * clock=wall: the agent's thread sends each Java thread a signal every interval, with
 * rt_tgsigqueueinfo so that it carries the sampler's address like the timers' do.
 */
#ifndef HPROF_SAMPLE_TIMERS_H
#define HPROF_SAMPLE_TIMERS_H

#include <stdbool.h>
#include <sys/types.h>

struct signal_sampler;
struct sig_thread;

/* Called on the thread itself (or, for a thread that is not Java's, on the sampler's):
 * the thread's CPU-time timer, armed, its signals carrying tag (the handler's way to tell
 * which map the thread is in: s itself for Java threads, &s->natives for the others; a
 * perf event's signal carries no tag: the handler finds the thread in either map).
 * -1 when it cannot be had. */
int sample_timer_start(struct signal_sampler *s, struct sig_thread *t, const void *tag);
/* Its timer armed again (every interval) or disarmed, kept: sampling paused costs no
 * signal. A thread whose timer is being deleted meanwhile is left alone. */
void sample_timer_arm(struct signal_sampler *s, struct sig_thread *t, bool on);
/* Disarms and deletes the thread's timer (any thread may call it, once counts). */
void sample_timer_stop(struct signal_sampler *s, struct sig_thread *t);
/* The process-wide fallback, on or off. */
int sample_timer_process(struct signal_sampler *s, bool on);
/* clock=wall: signals thread tid of this process now. false when it has gone. */
bool sample_timer_poke(struct signal_sampler *s, pid_t tid);

#endif
