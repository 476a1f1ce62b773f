/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,callers=sampled: the classes MethodHandles.Lookup defines hidden (lambda
 * proxies, which make the objects of constructor references such as ArrayList::new;
 * JDK 24+'s string concatenation, which makes every String of a `+`). JVMTI hands
 * hidden classes to no class-file hook, so their `new` would go uncounted: the Tracker's
 * hook in ClassDefiner.defineClass (classfile.h: definer_name) passes their bytes here,
 * and they are defined with the allocation-site hooks of every other class.
 */
#ifndef HPROF_HIDDEN_CLASSES_H
#define HPROF_HIDDEN_CLASSES_H

#include <jni.h>

struct host;

/* At VM init, with the Tracker loaded: its native bound, its hook turned on. */
void hidden_classes_bind(struct host *h, JNIEnv *jni, jclass tracker);

#endif
