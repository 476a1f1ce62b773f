/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Virtual threads (JDK 21+) as threads of the profile, with thread=y: each gets its entry
 * in the thread table and its THREAD START / THREAD END records, and what it does while
 * mounted on a carrier (CPU samples, allocations, contention) names it, not the carrier.
 * See virtual_threads_source.
 *
 * JDK 17's jvmti.h, which the agent may be built against, names none of this: the event
 * numbers are written here, and the agent's table of callbacks (union event_table) has
 * room for the two events whichever header it was built with, as the table holds one
 * pointer per event number from 50 on.
 */
#ifndef HPROF_VIRTUAL_THREADS_H
#define HPROF_VIRTUAL_THREADS_H

#include <jvmti.h>

#include "sources/source.h"

enum {
    EVENT_NUMBER_FIRST = 50, /* VMInit: the table's first slot */
    EVENT_VIRTUAL_THREAD_START = 87,
    EVENT_VIRTUAL_THREAD_END = 88,
};

union event_table {
    jvmtiEventCallbacks cb;
    jvmtiEventReserved slot[EVENT_VIRTUAL_THREAD_END - EVENT_NUMBER_FIRST + 1];
};

#endif
