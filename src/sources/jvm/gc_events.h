/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline=gc|<ms>: the collections the JVM runs (JVMTI GarbageCollectionStart and
 * GarbageCollectionFinish) and the run over time.
 *
 * The GC callbacks run in the JVM's GC (the VM thread, at a safepoint) and may call
 * neither JNI nor most of JVMTI: they only read the clock and the JVM's jvmstat
 * counters (util/perfdata.h: heap used and committed), snapshot the sites' counts
 * (heap=sites, so that an interval ends exactly at its GC) and queue a gc_record. The
 * "HPROF timeline thread", an agent thread, hands each record to the host to write
 * (host_services.timeline) and, with heap=sites, asks for the interval's allocation
 * record: after every GC (timeline=gc), or every <ms> (timeline=<ms>).
 *
 * A GC's time is from the JVM's start event to its finish event: the GC's own pause;
 * what the agent does for the record happens after, on its own thread.
 */
#ifndef HPROF_GC_EVENTS_H
#define HPROF_GC_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tables/timeline.h"

struct host;

/* The timeline's table (NULL when timeline= is off). */
struct timeline_table *gc_events_table(struct host *h);

/* The life cycle: gc_events_source (sources/source.h). */
#include "sources/source.h"

#endif
