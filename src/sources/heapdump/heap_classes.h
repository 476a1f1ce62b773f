/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump, the JVMTI walk's view of every loaded class, and its field layout (sources/heapdump/heap_classes.c).
 */
#ifndef HPROF_HEAP_CLASSES_H
#define HPROF_HEAP_CLASSES_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/heapdump/heap_walk_state.h"

/* Links a class loaded and not linked yet (without initializing it), so that JVMTI
 * tells its fields; true when it is linked (or needs no linking). */
bool heap_link_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

int walk_load_classes(struct walk *w);
void walk_free_classes(struct walk *w);

#endif
