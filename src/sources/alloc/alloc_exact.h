/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites exact: the Tracker's natives, which the instrumented bytecode calls for
 * every object and array it makes (sources/alloc/alloc_exact.c).
 */
#ifndef HPROF_ALLOC_EXACT_H
#define HPROF_ALLOC_EXACT_H

#include <jni.h>
#include <stdbool.h>

struct host;

/* At VM init, once the Tracker class is loaded: binds its natives. Classes instrumented
 * after that call Tracker.newObject / newArray straight (alloc_tracker_bound), the
 * ones before through Tracker.ObjectInit / NewArray. */
void alloc_tracker_bind(struct host *h, JNIEnv *jni, jclass tracker);
bool alloc_tracker_bound(struct host *h);

#endif
