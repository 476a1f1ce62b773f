/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: every allocation counted at its site (stack trace + class), exactly.
 *
 * Objects are seen as they are made: the Tracker calls in at the entry of
 * java.lang.Object.<init> and after each array allocation, and the VM reports the
 * objects it makes itself for Java code (clone, reflection, JNI) with VMObjectAlloc.
 * Each counted object is held weakly with its site (sources/alloc/site_objects.h), so that a
 * dump can count, after a GC, the objects of each site that are still alive; the
 * references of collected objects are swept away after GCs, so memory follows the live
 * objects and the sites, not the number of allocations.
 *
 * With alloc_sample=<bytes> nothing is instrumented: the JVM samples about one
 * allocation every <bytes> (JVMTI SampledObjectAlloc) and each sample stands for the
 * allocations around it, so counts are estimates, and say so.
 */
#ifndef HPROF_ALLOC_TRACKER_H
#define HPROF_ALLOC_TRACKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct site_table;

/* Exact counting (bytecode instrumentation), rather than alloc_sample=<bytes> sampling. */
bool alloc_tracker_exact(const struct host *h);
/* At VM init, after alloc_tracker_bind (alloc_exact.h) and the classes' catch-up: start
 * counting. */
void alloc_tracker_vm_init(struct host *h, JNIEnv *jni);
/* Allocation counting on or off (the source's enable hook; the tracker's stop). */
void alloc_tracker_enable(struct host *h, JNIEnv *jni, bool on);
/* The sites counted so far (their live counts: alloc_live.h). */
struct site_table *alloc_tracker_sites(struct host *h);

/* The life cycle: alloc_tracker_source (sources/source.h). */
#include "sources/source.h"

#endif
