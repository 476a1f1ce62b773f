/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: how many of each site's objects are still alive, from the objects held
 * weakly (sources/alloc/alloc_live.c, site_objects.h).
 */
#ifndef HPROF_ALLOC_LIVE_H
#define HPROF_ALLOC_LIVE_H

#include <jni.h>
#include <jvmti.h>

struct host;

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

#endif
