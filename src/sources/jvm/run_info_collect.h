/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run header's fields, gathered at VMInit (sources/jvm/run_info_collect.c):
 *   command          sun.java.command (the main class or jar, and its arguments)
 *   java.class.path  as the JVM was given it
 *   os.name, os.arch, os.version     uname(2), named as the JDK names them
 *   java.vm.name, java.vm.version    the JVM's properties (JVMTI GetSystemProperty)
 *   heap.initial, heap.max           InitialHeapSize and MaxHeapSize, bytes (HotSpot's
 *                                    flags, sources/hotspot/vm_flags.h)
 *   gc               the collector: Serial, Parallel, G1, Z, Shenandoah, Epsilon
 *   pid, host        getpid(2), gethostname(2)
 *   start            when the JVM finished starting, ms since the epoch (its jvmstat
 *                    counter sun.rt.vmInitDoneTime, what RuntimeMXBean.getStartTime
 *                    says; the agent's clock when there is no such counter)
 *   options          the session's options as given (the load's, or a later
 *                    `hprof start|profile`'s)
 *   depth            the stack depth the session started with (a view's 64 when
 *                    depth= is not given): readers of the text need not guess it
 */
#ifndef HPROF_RUN_INFO_COLLECT_H
#define HPROF_RUN_INFO_COLLECT_H

#include "tables/run_info.h"

struct host;
struct options;

/* o: the session's options (the file's), not necessarily the load's. */
void run_info_collect(struct host *h, const struct options *o, struct run_info *r);

#endif
