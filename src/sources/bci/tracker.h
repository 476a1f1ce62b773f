/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bytecode tracker source: instruments classes as they load so that they call
 * the Tracker class (java/hprof/Tracker.java), which the agent delivers on the
 * bootstrap class path so classes of every module, java.base included, reach it.
 *
 * With the early class-hook capabilities the hook sees every class, java.lang.Object
 * first. Those that load before the module system is up, when the boot loader cannot
 * find the Tracker yet, are left as they are and retransformed at VM init (start).
 * Instrumentation is on only for the options that need it (cpu=times, cpu=old, exact
 * heap=sites).
 *
 * The life cycle (tracker_source, sources/source.h):
 *   init           capabilities, the Tracker class on the boot class path, the class hook
 *   start          name the classes loaded so far, bind the natives, engage the Tracker
 *   enable         the Tracker's timing on or off (cpu=times|old)
 *   stop           hand over what threads still hold, then go inert
 *   thread_end     hand over what the thread's Tracker buffer still holds (on that thread)
 *   class_prepare  number the methods of an instrumented class
 */
#ifndef HPROF_TRACKER_H
#define HPROF_TRACKER_H

#include "sources/source.h"

#include "sources/bci/bci_spec.h" /* TRACKER_CLASS */

#include <jni.h>
#include <stdbool.h>

struct host;

/* timing=gprof: what every thread has counted so far, to the traces (before a dump). */
void tracker_collect(struct host *h, JNIEnv *jni);

#endif
