/*
 * heap=dump: walks the live heap with JVMTI (after a GC) and writes the HEAP DUMP
 * section through the text or binary heap dump writer (writers/heap_dump.h).
 */
#ifndef HPROF_HEAP_WALKER_H
#define HPROF_HEAP_WALKER_H

#include <jni.h>
#include <stdint.h>

struct agent;

/* Writes one whole heap dump (takes the output lock itself). */
void heap_walker_dump(struct agent *a, JNIEnv *jni);

/* Objects whose monitor a live thread owns (roots of their own), as local references the
 * caller deletes; NULL and *count 0 when JVMTI cannot tell. (HotSpot does not tell of
 * monitors entered through JNI.) */
jobject *heap_owned_monitors(struct agent *a, JNIEnv *jni, uint32_t *count);

#endif
