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
struct alloc_tracker;
struct class_info;

/* The tracker's steps for exact counting (alloc_state.h). */
extern const struct alloc_mode alloc_exact_mode;

bool alloc_exact_bound(struct host *h);
/* The JIT flags that keep compiled code from allocating without the counting bytecode
 * (callers=sampled shares them). */
void alloc_exact_keep_compiled(struct host *h);
/* An object's size: once per class (ci) for instances, asked for each array. */
jlong alloc_exact_object_size(struct host *h, jobject obj, struct class_info *ci);
/* Method name of class cls (static or not) is one of the frames a walk drops from the top
 * of an allocation's stack (the Tracker's, Object.<init>), if it exists and room is left. */
void alloc_exact_add_skip(struct alloc_tracker *t, JNIEnv *jni, jclass cls, const char *name, const char *sig,
                          bool is_static);
/* Whether a clone() of class cls runs Object.clone itself, not an override (asked once per class). */
bool alloc_exact_clone_is_objects(struct alloc_tracker *t, JNIEnv *jni, struct class_info *ci, jclass cls);
/* JNI AllocObject replaced by alloc_object, which calls the original (t->jni_table), and
 * whatever more (NULL: nothing) replaces in the new table. */
void alloc_exact_wrap_jni(struct host *h, jobject(JNICALL *alloc_object)(JNIEnv *, jclass),
                          void (*more)(jniNativeInterface *ours));
void JNICALL alloc_exact_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                         jlong size);

#endif
