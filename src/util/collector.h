/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which kind of collector the JVM runs, as far as the agent needs to know.
 *
 * HotSpot stops the threads of its concurrent collectors before VM death; ZGC and
 * Shenandoah then never finish a GC asked for (JVMTI ForceGarbageCollection waits
 * forever), while G1, Parallel, Serial and Epsilon run a forced GC in the VM thread.
 * JVMTI does not name the collector; the threads of the process do (their names as
 * /proc shows them, cut to 15 characters): ZDirector, ZDriver (ZDriverMajor,
 * ZDriverMinor), Shenandoah Cont(rol Thread). Checked on JDK 17 and 25. Ask while the VM
 * runs: those threads have ended by VM death.
 */
#ifndef HPROF_COLLECTOR_H
#define HPROF_COLLECTOR_H

#include <stdbool.h>

/* True when a GC can be forced at VM death. False when unsure (no /proc, or a thread
 * name that looks like ZGC's or Shenandoah's, even a program's own). */
bool collector_gc_at_exit(void);

#endif
