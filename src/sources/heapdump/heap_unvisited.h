/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump, the JVMTI walk: objects it named and never visited (sources/heapdump/heap_unvisited.c).
 */
#ifndef HPROF_HEAP_UNVISITED_H
#define HPROF_HEAP_UNVISITED_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/heapdump/heap_walk_state.h"

void walk_write_unvisited(struct walk *w);

#endif
