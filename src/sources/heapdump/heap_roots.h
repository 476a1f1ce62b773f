/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump, the JVMTI walk's ROOT records: its roots, owned monitors (sources/heapdump/heap_roots.c).
 */
#ifndef HPROF_HEAP_ROOTS_H
#define HPROF_HEAP_ROOTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/heapdump/heap_walk_state.h"

/* Objects whose monitor a live thread owns (roots of their own), as local references the
 * caller deletes; NULL and *count 0 when JVMTI cannot tell. (HotSpot does not tell of
 * monitors entered through JNI.) */
jobject *heap_owned_monitors(struct host *h, JNIEnv *jni, uint32_t *count);

void walk_find_monitors(struct walk *w);
void walk_monitor_roots(struct walk *w);
void walk_root(struct walk *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong tag, uint32_t id);

#endif
