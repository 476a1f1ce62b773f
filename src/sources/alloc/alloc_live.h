/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: how many of each site's objects are still alive, from the objects held
 * weakly (sources/alloc/alloc_live.c, site_objects.h). The rest of the agent asks
 * through alloc_tracker.h.
 */
#ifndef HPROF_ALLOC_LIVE_H
#define HPROF_ALLOC_LIVE_H

#include <jni.h>
#include <jvmti.h>

struct host;

void JNICALL alloc_live_gc_started(jvmtiEnv *jvmti);
void JNICALL alloc_live_gc_finished(jvmtiEnv *jvmti);
/* The live objects and bytes of every site, after a forced GC, or as a reference walk
 * from the roots reaches them (alloc_tracker_count_live). */
void alloc_live_count(struct host *h, JNIEnv *jni);
/* The live counts as the last GC left them (alloc_tracker_sweep_live). */
void alloc_live_sweep(struct host *h, JNIEnv *jni);
/* Every counted object still held tagged with its site id in env (alloc_tracker_tag_sites). */
void alloc_live_tag_sites(struct host *h, jvmtiEnv *env);

#endif
