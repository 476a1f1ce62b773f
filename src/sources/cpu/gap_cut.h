/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times: cutting the time a thread spent off the CPU out of its events' timeline.
 *
 * The replay (call_replay.c) knows how long a thread was off the CPU during a batch (its
 * clock less its CPU time) but not when. Being descheduled, sleeping or blocking shows as
 * one long gap between two timed events, while the thread's own work between two events
 * is short; so the off-CPU time is cut from the longest gaps of the batch (and the one
 * after its last event), all down to a common level, and a method is charged for neither
 * its own waits nor those of others in the batch. Pure functions of the slots.
 */
#ifndef HPROF_CPU_GAP_CUT_H
#define HPROF_CPU_GAP_CUT_H

#include <stdint.h>

/* No timed event before: the first gap is none. */
#define GAP_NO_TIME INT64_MIN

/* The part of the gap from the timed event before (at prev) to one at t that lies above
 * `level`: what is cut of it. Called at every timed event. */
static inline int64_t gap_cut(int64_t prev, int64_t t, int64_t level)
{
    int64_t g = prev == GAP_NO_TIME ? 0 : t - prev;
    return g > level ? g - level : 0;
}

/* The time of the first event of slots p[0..n) that read the clock; `otherwise` if none. */
int64_t gap_first_time(const int64_t *p, int n, int64_t otherwise);

/* The gaps between the timed events of slots p[0..n) (from `prev`, the one before them,
 * GAP_NO_TIME if none), and from the last to `end` (the hand-over), into gaps[], which has
 * room for n + 1; returns their count. A gap is never negative. */
int gap_list(int64_t *gaps, const int64_t *p, int n, int64_t end, int64_t prev);

/* The highest level such that cutting every one of the n gaps down to it cuts at least
 * `off` (0 if all of them together are less). */
int64_t gap_level(const int64_t *gaps, int n, int64_t off);

/* The time of an event that read no clock, the next one at slot i of p[0..n): that of the
 * next event that did (or `end`, the hand-over's), less the time cut so far (`paused`) and
 * in the gap before it (from `prev`, cut to `level`). No gap is its own, so no time is cut
 * from it or charged to it. */
int64_t gap_untimed_when(const int64_t *p, int i, int n, int64_t end, int64_t prev, int64_t level, int64_t paused);

#endif
