/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times,timing=sampled: which methods are too cheap to time at every call.
 *
 * The replays report the own time of the calls timed at both ends; per method, a window
 * of calls is averaged, and a method whose mean is under a threshold is switched to
 * timing by sample (its calls mostly read no clock, and are charged that mean), one whose
 * mean grew over another back to timing every call. The state is per method, in the
 * instrumented classes' table (struct method_cost), shared by every thread's replay.
 */
#ifndef HPROF_CPU_METHOD_COSTS_H
#define HPROF_CPU_METHOD_COSTS_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#include "options/options.h"

struct host;
struct method_cost;
struct method_costs;

/* Tells the Tracker that from now on method (cnum, mnum), of a class of nmethods
 * methods, is timed by sample (on) or at every call. */
typedef void method_costs_switch(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, uint32_t nmethods, bool on);

/* The most own time one call adds to its method's window: longer ones count as this. */
#define METHOD_COST_MAX_NS ((int64_t)1 << 27)

/* Whether the options time cheap methods by sample (else no mean is kept). */
static inline bool method_costs_wanted(const struct options *o)
{
    return o->cpu == CPU_TIMES && o->timing == TIMING_SAMPLED;
}

/* switch_to: NULL when there is no Tracker to tell. NULL when out of memory. */
struct method_costs *method_costs_new(method_costs_switch *switch_to);

/* The mean and window of method (cnum, mnum), made on first use; NULL when it has no such
 * method, or out of memory. *nmethods: how many methods its class has. */
struct method_cost *method_cost_of(struct host *h, uint32_t cnum, uint32_t mnum, uint32_t *nmethods);

/* `calls` calls of (cnum, mnum) timed at both ends took `ns` of their own (each at most
 * METHOD_COST_MAX_NS): added to the method's window (c: its costs, NULL to look them up).
 * Whoever fills the window decides on it, and may switch the method's timing. */
void method_costs_add(struct host *h, JNIEnv *jni, struct method_costs *mc, uint32_t cnum, uint32_t mnum,
                      struct method_cost *c, uint32_t calls, uint64_t ns);

/* n more calls were charged their method's mean (HPROF_TIMING_STATS). */
void method_costs_charged(struct method_costs *mc, uint64_t n);

/* HPROF_TIMING_STATS: the methods timed by sample, with their mean (stderr). */
void method_costs_log(struct host *h, struct method_costs *mc);

#endif
