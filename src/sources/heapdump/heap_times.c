/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HPROF_HEAP_TIMES: the phases of a heap dump on stderr.
 */
#include "sources/heapdump/heap_times.h"

#include <stdio.h>

#include "util/clock.h"

void heap_phase(const char *what, double t0)
{
    if (heap_times()) fprintf(stderr, "heap dump: %-10s %.3f s\n", what, clock_s() - t0);
}
