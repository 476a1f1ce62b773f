/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump, who is who in a heap dump by the JVMTI walk: objects' IDs (tags), marks,
 * sites, classes, threads (sources/heapdump/heap_names.c).
 */
#ifndef HPROF_HEAP_NAMES_H
#define HPROF_HEAP_NAMES_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/heapdump/heap_walk_state.h"

jlong walk_class_tag(uint32_t k);
struct hd_class *walk_class_of_tag(struct walk *w, jlong tag);
struct hd_class *walk_class_of_ref(struct walk *w, jclass c);
/* The trace serial an object's record carries. */
uint32_t walk_trace_of(struct walk *w, uint32_t id);
/* Sets a mark; true when it was not set before. */
bool walk_mark(struct walk *w, uint32_t id, unsigned bit);
unsigned walk_marks_of(struct walk *w, uint32_t id);
void walk_count_pending(struct walk *w, struct hd_class *c, int delta);
uint32_t walk_id_of_object(struct walk *w, jobject o);
jlong walk_name_referee(struct walk *w, jlong *tag_ptr, jint length, jlong class_tag);
uint32_t walk_id_of_tag(struct walk *w, jlong tag);
void walk_tag_threads(struct walk *w);
/* The serial of the dump's thread tagged so (0: not one of them), and its trace's. */
uint32_t walk_thread_serial(struct walk *w, jlong thread_tag, uint32_t *trace);

#endif
