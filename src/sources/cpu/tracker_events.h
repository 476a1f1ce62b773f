/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the Tracker (java/hprof/Tracker.java) and the agent agree on for cpu=times and
 * cpu=old: how a method is coded in its events, and the bits an event carries.
 *
 * A method of an instrumented class is coded as (class number << 16 | method number):
 * the instrumented code passes the two numbers, and the Tracker packs them so. The
 * timing=gprof counts (call_counts.c) key their nodes by the same code.
 */
#ifndef HPROF_CPU_TRACKER_EVENTS_H
#define HPROF_CPU_TRACKER_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

/* The deepest stack cpu=times and cpu=old keep: deeper ones are cut to their top frames. */
#define TRACKER_MAX_DEPTH 64

/* The bits of a method code that hold its method number. */
#define METHOD_NUMBER_BITS 16

/* The code of method number mnum of class number cnum. */
static inline uint64_t method_code(uint32_t cnum, uint32_t mnum) { return (uint64_t)cnum << METHOD_NUMBER_BITS | mnum; }

/* The class and method numbers of a code (the event bits below taken off first). */
static inline void method_code_split(uint64_t code, uint32_t *cnum, uint32_t *mnum)
{
    *cnum = (uint32_t)(code >> METHOD_NUMBER_BITS);
    *mnum = (uint32_t)(code & (((uint64_t)1 << METHOD_NUMBER_BITS) - 1));
}

/* An event is a method code with this bit for an exit; the next slot holds its time, but
 * for an event with the LEAF or UNTIMED bit, which has none. */
#define TRACKER_EXIT_BIT INT64_MIN
/* With this bit: a call of a trivial method (cf_method_trivial), counted and not timed; it
 * has no exit event, and no time slot. */
#define TRACKER_LEAF_BIT ((int64_t)1 << 61)
/* A mark, which the agent writes first in a buffer it hands back: (this bit | the thread's
 * CPU time, clock) when the hand-over returned: two slots. */
#define TRACKER_MARK_BIT ((int64_t)1 << 62)
/* With this bit: an entry or exit of a method timed by sample (timing=sampled) that read no
 * clock (no time slot); the call is charged its method's mean own time
 * (method_costs.h). */
#define TRACKER_UNTIMED_BIT ((int64_t)1 << 60)
/* Every bit of an event that is not its method's code. */
#define TRACKER_EVENT_BITS (TRACKER_EXIT_BIT | TRACKER_LEAF_BIT | TRACKER_UNTIMED_BIT)

static inline uint64_t event_code(int64_t ev) { return (uint64_t)ev & ~(uint64_t)TRACKER_EVENT_BITS; }
static inline bool event_is_exit(int64_t ev) { return ev < 0; }
static inline bool event_is_mark(int64_t ev) { return ev >= 0 && (ev & TRACKER_MARK_BIT); }
static inline bool event_is_leaf(int64_t ev) { return ev >= 0 && (ev & TRACKER_LEAF_BIT); }
static inline bool event_is_untimed(int64_t ev) { return !event_is_mark(ev) && (ev & TRACKER_UNTIMED_BIT); }

/* An entry or exit that read the clock (not a trivial call, not an untimed one, not a
 * mark): none of those bits, which a method's code never reaches. */
static inline bool event_is_timed(int64_t ev)
{
    return !(ev & (TRACKER_LEAF_BIT | TRACKER_MARK_BIT | TRACKER_UNTIMED_BIT));
}

#endif
