/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump by the JVMTI walk (sources/heapdump/heap_walk.c and the heap_*.c files it is made
 * of): walks the live heap after a GC and hands the HEAP DUMP section's records to the
 * sink the report layer gives it.
 */
#ifndef HPROF_HEAP_WALK_H
#define HPROF_HEAP_WALK_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct heap_sink;

/* Walks the heap into sink: one whole heap dump. */
void heap_walk_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink);

#endif
