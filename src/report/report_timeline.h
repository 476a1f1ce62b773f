/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline= in the report layer: the run header at VMInit, what each GC and interval
 * writes (handed over by the timeline's thread, sources/jvm/gc_events.h), the net= command
 * ALLOCS, and at exit the leak suspects (text) and the HTML page of the run over time
 * (<file>.timeline.html: heap used and live per GC, the growing sites).
 */
#ifndef HPROF_REPORT_TIMELINE_H
#define HPROF_REPORT_TIMELINE_H

#include <jni.h>
#include <stdbool.h>

struct report;
struct gc_record;

/* VMInit: the timeline's state (NULL when out of memory, said once). */
struct report_timeline *report_timeline_open(void);
/* A GC's record (g may be NULL), then, when allocs, the interval's allocation record. */
void report_timeline(struct report *r, JNIEnv *jni, const struct gc_record *g, bool allocs);
/* The net= command ALLOCS: the allocations since the previous record, no GC, no live
 * counts. false when heap=sites is off. Called between report_begin/end_command. */
bool report_allocs(struct report *r, JNIEnv *jni);
/* At the dump at exit: LEAK SUSPECTS (text) and the HTML page. */
void report_timeline_end(struct report *r, JNIEnv *jni);

#endif
