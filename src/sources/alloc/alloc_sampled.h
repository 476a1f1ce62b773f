/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,alloc_sample=<bytes>: the JVM samples about one allocation every <bytes>
 * (JVMTI SampledObjectAlloc), and each sample stands for the objects around it
 * (sources/alloc/alloc_sampled.c).
 */
#ifndef HPROF_ALLOC_SAMPLED_H
#define HPROF_ALLOC_SAMPLED_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct host;
struct alloc_mode;

/* The tracker's steps for sampled counting (alloc_state.h). */
extern const struct alloc_mode alloc_sampled_mode;

void JNICALL alloc_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                        jlong size);

#endif
