/*
 * heap=dump: walks the live heap with JVMTI (after a GC) and writes the HEAP DUMP
 * section through the text or binary heap dump writer (writers/heap_dump.h).
 */
#ifndef HPROF_HEAP_WALKER_H
#define HPROF_HEAP_WALKER_H

#include <jni.h>

struct agent;

/* Writes one whole heap dump (takes the output lock itself). */
void heap_walker_dump(struct agent *a, JNIEnv *jni);

#endif
