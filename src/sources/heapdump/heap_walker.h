/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump by the JVMTI walk (sources/heapdump/heap_walk.c and the heap_*.c files it is made
 * of): walks the live heap after a GC and hands the HEAP DUMP section's records to the
 * sink the report layer gives it.
 */
#ifndef HPROF_HEAP_WALKER_H
#define HPROF_HEAP_WALKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/env.h"

struct host;
struct heap_sink;

/* Walks the heap into sink: one whole heap dump. */
void heap_walker_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink);

/* Objects whose monitor a live thread owns (roots of their own), as local references the
 * caller deletes; NULL and *count 0 when JVMTI cannot tell. (HotSpot does not tell of
 * monitors entered through JNI.) */
jobject *heap_owned_monitors(struct host *h, JNIEnv *jni, uint32_t *count);

/* Links a class loaded and not linked yet (without initializing it), so that JVMTI
 * tells its fields; true when it is linked (or needs no linking). */
bool heap_link_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

/* With HPROF_HEAP_TIMES in the environment, a line on stderr: the phase of a heap dump
 * that ends now, `t0` being when the dump began (clock_s). */
void heap_phase(const char *what, double t0);
/* Whether HPROF_HEAP_TIMES asks for those lines (and other details of a dump on stderr). */
static inline bool heap_times(void) { return env_switch("HPROF_HEAP_TIMES", false); }

#endif
