/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: every allocation counted at its site (stack trace + class), exactly. This
 * header is the source's one front (sources/alloc/alloc_tracker.c); its files and their
 * order: alloc_state.h.
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

#include "classfile/classfile.h"

struct host;
struct site_table;

/* Exact counting (bytecode instrumentation), rather than alloc_sample=<bytes> sampling. */
bool alloc_tracker_exact(const struct host *h);
/* Of those, callers=sampled: bytecode sites counted in Java, callers by sample. */
bool alloc_tracker_counted(const struct host *h);
/* callers=sampled, for the instrumenter: n consecutive site numbers (the first; -1:
 * none), and each site it hooked in class cnum. */
long alloc_tracker_number_sites(struct host *h, unsigned n);
void alloc_tracker_add_site(struct host *h, unsigned cnum, const cf_site_info *site);
/* callers=sampled: the Tracker's counts into the site table (a window's end). */
void alloc_tracker_collect(struct host *h, JNIEnv *jni);
/* At VM init, once the Tracker class is loaded: binds its natives. Classes instrumented
 * after that call Tracker.newObject / newArray straight (alloc_tracker_bound), the
 * ones before through Tracker.ObjectInit / NewArray. */
void alloc_tracker_bind(struct host *h, JNIEnv *jni, jclass tracker);
bool alloc_tracker_bound(struct host *h);
/* At VM init, after alloc_tracker_bind and the classes' catch-up: start counting. */
void alloc_tracker_vm_init(struct host *h, JNIEnv *jni);
/* Allocation counting on or off (the source's enable hook; the tracker's stop). */
void alloc_tracker_enable(struct host *h, JNIEnv *jni, bool on);
/* The sites counted so far (their live counts: alloc_tracker_count_live). */
struct site_table *alloc_tracker_sites(struct host *h);

/* Before a SITES section: the live objects and bytes of every site, after a forced GC;
 * at VM death with ZGC or Shenandoah, which cannot run one then, the objects a
 * reference walk from the roots reaches. */
void alloc_tracker_count_live(struct host *h, JNIEnv *jni);
/* timeline=: the live counts of every site as the last GC left them, no GC forced. */
void alloc_tracker_sweep_live(struct host *h, JNIEnv *jni);
/* Tags every counted object still held with its site id (1, 2, ...) in env, an
 * environment with can_tag_objects (a heap dump's, so that its objects carry their
 * allocation sites). */
void alloc_tracker_tag_sites(struct host *h, jvmtiEnv *env);

/* The life cycle: alloc_tracker_source (sources/source.h). */
#include "sources/source.h"

#endif
