/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites exact: every allocation counted at its site (sources/alloc/alloc_exact.c):
 * the Tracker's natives, which the instrumented bytecode calls for every object and
 * array it makes; VMObjectAlloc for what the VM makes; JNI AllocObject wrapped.
 */
#ifndef HPROF_ALLOC_EXACT_H
#define HPROF_ALLOC_EXACT_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct host;
struct alloc_mode;

/* The tracker's steps for exact counting (alloc_state.h). */
extern const struct alloc_mode alloc_exact_mode;

/* At VM init, once the Tracker class is loaded: binds its natives. */
void alloc_exact_bind(struct host *h, JNIEnv *jni, jclass tracker);
bool alloc_exact_bound(struct host *h);
/* At VM init, once bound: JNI AllocObject wrapped, the walker's method IDs made. */
void alloc_exact_vm_init(struct host *h);
void JNICALL alloc_exact_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                         jlong size);

#endif
