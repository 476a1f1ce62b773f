/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HPROF_HEAP_TIMES: the phases of a heap dump on stderr, for both ways of dumping
 * (sources/heapdump/heap_times.c; bench/heap-dump.sh reads them).
 */
#ifndef HPROF_HEAP_TIMES_H
#define HPROF_HEAP_TIMES_H

#include <stdbool.h>

#include "util/env.h"

/* With HPROF_HEAP_TIMES in the environment, a line on stderr: the phase of a heap dump
 * that ends now, `t0` being when the dump began (clock_s). */
void heap_phase(const char *what, double t0);
/* Whether HPROF_HEAP_TIMES asks for those lines (and other details of a dump on stderr). */
static inline bool heap_times(void) { return env_switch("HPROF_HEAP_TIMES", false); }

#endif
