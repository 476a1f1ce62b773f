/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump written by the JDK's own dumper: the JVM writes its binary dump (through
 * com.sun.management.HotSpotDiagnosticMXBean.dumpHeap, a GC first) to a file beside the
 * output, and the agent rewrites it into hprof's HEAP DUMP (sources/heapdump/jdk_dump_reader.h).
 * Several times faster than naming every object through JVMTI tags (heap_walk.c), and
 * the agent's memory stays flat.
 *
 * Used for binary output without allocation sites (heap=dump,format=b): the text format
 * needs every object's size and heap=all every object's site, which only the JVMTI walk
 * tells. Not at VM death under ZGC or Shenandoah either (no GC can run then), nor with
 * HPROF_HEAP_DUMPER=jvmti in the environment.
 */
#ifndef HPROF_JDK_DUMPER_H
#define HPROF_JDK_DUMPER_H

#include <jni.h>
#include <stdbool.h>

struct host;
struct heap_sink;

/* Writes one whole heap dump this way; false (nothing written) when it cannot, so that
 * the caller walks the heap instead. */
bool jdk_dumper_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink);

#endif
