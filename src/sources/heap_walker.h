/*
 * heap=dump: walks the live heap with JVMTI (after a GC) and writes the HEAP DUMP
 * section through the text or binary heap dump writer (writers/heap_dump.h).
 */
#ifndef HPROF_HEAP_WALKER_H
#define HPROF_HEAP_WALKER_H

#include <jni.h>
#include <stdint.h>

struct host;
struct heap_sink;

/* Walks the heap into sink: one whole heap dump. */
void heap_walker_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink);

/* Objects whose monitor a live thread owns (roots of their own), as local references the
 * caller deletes; NULL and *count 0 when JVMTI cannot tell. (HotSpot does not tell of
 * monitors entered through JNI.) */
jobject *heap_owned_monitors(struct host *h, JNIEnv *jni, uint32_t *count);

#endif
