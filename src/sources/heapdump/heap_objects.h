/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump, the JVMTI walk: the record of the object being visited; objects read
 * through JNI (sources/heapdump/heap_objects.c).
 */
#ifndef HPROF_HEAP_OBJECTS_H
#define HPROF_HEAP_OBJECTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/heapdump/heap_walk_state.h"

void walk_measure_arrays(struct walk *w);
void walk_begin(struct walk *w, jlong tag, jlong class_tag);
void walk_finish(struct walk *w);
void walk_reference(struct walk *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, uint32_t id);
void walk_primitive(struct walk *w, jvmtiHeapReferenceKind kind, jint index, jvmtiPrimitiveType type, jvalue value);
void walk_prim_array(struct walk *w, jlong size, jint count, jvmtiPrimitiveType type, const void *elements);
void walk_write_object_jni(struct walk *w, jobject o, jlong tag);

#endif
