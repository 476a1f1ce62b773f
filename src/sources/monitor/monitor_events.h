/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor=y: JVMTI monitor events feed two monitor tables; a dump takes a snapshot of
 * them and of the monitors in use and every thread's state (MONITOR DUMP, MONITOR TIME,
 * MONITOR WAIT TIME).
 *
 * Contended enters are timed from MonitorContendedEnter to MonitorContendedEntered into
 * the contention table (MONITOR TIME, contention only, as in the original); waits
 * (Object.wait, and Thread.join where it waits on the thread) from MonitorWait to
 * MonitorWaited into the wait table, each on the thread's own clock of events
 * (the callbacks run on the thread that blocks). The stack trace and the monitor's
 * class are taken when the thread starts to block.
 */
#ifndef HPROF_MONITOR_EVENTS_H
#define HPROF_MONITOR_EVENTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct monitor_snapshot;
struct host;

/* The life cycle: monitor_events_source (sources/source.h). */
#include "sources/source.h"

/* What a dump shows now (the time counts are taken); free with monitor_snapshot_free.
 * false when monitor=y is off. */
bool monitor_events_snapshot(struct host *h, JNIEnv *jni, struct monitor_snapshot *snap);

#endif
