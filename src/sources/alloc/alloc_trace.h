/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the trace of an allocation (sources/alloc/alloc_trace.c), from each
 * thread's caches, a code site's, a deep chain's, or a stack walk, and the thread's cache
 * of sites. The helpers of the allocation path are static inline: they run on every
 * allocation.
 */
#ifndef HPROF_ALLOC_TRACE_H
#define HPROF_ALLOC_TRACE_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/alloc/alloc_state.h"

struct site_chain;
struct deep_chain;

/* How many frames of ours stand above the allocation site, so that the walk takes that
 * many more frames than the trace keeps: allocated + Tracker.ObjectInit + Object.<init>,
 * or allocated + Tracker.NewArray; none in a JVMTI event or our JNI wrapper. */
#define SKIP_CONSTRUCTED 3
#define SKIP_ARRAY       2
/* Tracker.newObject + Object.<init>, or Tracker.newArray: called straight from the
 * instrumented code, without the Java method between. */
#define SKIP_DIRECT_OBJECT 2
#define SKIP_DIRECT_ARRAY  1
#define SKIP_NONE          0

/*
 * The caches start small (a thread that allocates a little costs about 50 KiB) and double,
 * up to 64 times their first size, while more than 1 in 64 lookups miss: a program
 * like javac allocates at tens of thousands of traces in turn.
 */
#define FIRST_SLOTS 512

struct site_slot { /* by trace: the site of its class last seen */
    struct trace *trace;
    struct class_info *cls;
    struct site *site;
    struct class_info *array_cls; /* the class of the arrays the bytecode at the
                                          trace's top makes (see array_class_at) */
};

/* The calling thread's state, made on first need; NULL when out of memory. */
struct alloc_thread *alloc_thread_new(struct alloc_tracker *t);
/* Counts a lookup in the thread's caches (of traces, of deep chains); now and then
 * grows them, empty, if too many missed. */
void alloc_thread_note_lookup(struct alloc_tracker *t, struct alloc_thread *at, bool missed);
/* The thread's deep chain and its cache of chains' traces, made on first need; false
 * without memory. */
bool alloc_thread_deep(struct alloc_thread *at);
/* The pthread key's destructor (no JNI there). */
void alloc_thread_ended(void *p);

/* NULL when out of memory: the allocation is then not counted. */
static inline struct alloc_thread *this_thread(struct alloc_tracker *t)
{
    struct alloc_thread *at = pthread_getspecific(t->per_thread);
    return at ? at : alloc_thread_new(t);
}

static inline unsigned site_slot(const struct alloc_thread *at, struct trace *tr)
{
    return (unsigned)(hash_mix64((uint64_t)(uintptr_t)tr) >> 40) & (at->nslots - 1);
}

/* The site of trace tr and class ci: this thread's cached one, else the table's. */
static inline struct site *site_of(struct alloc_tracker *t, struct alloc_thread *at, struct trace *tr,
                                   struct class_info *ci)
{
    unsigned slot = site_slot(at, tr);
    if (at->sites[slot].trace == tr && at->sites[slot].cls == ci) return at->sites[slot].site;
    struct site *s = sites_of(&t->sites, tr, ci);
    if (s) {
        if (at->sites[slot].trace != tr) at->sites[slot].array_cls = NULL;
        at->sites[slot].trace = tr;
        at->sites[slot].cls = ci;
        at->sites[slot].site = s;
    }
    return s;
}

/* The trace of these frames: this thread's cached one (by the frames' hash), else the
 * table's, found or made. */
struct trace *alloc_thread_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, uint32_t serial,
                                 const jvmtiFrameInfo *frames, int n);
/* The current thread's stack, up to want frames (thread: NULL or the current thread). */
jint alloc_walk_stack(struct host *h, JNIEnv *jni, jthread thread, jvmtiFrameInfo *frames, int want);
/* How many of the n frames on top (at most max) are the agent's own (the Tracker's, its
 * hooks', Object.<init>'s: not the allocation site). */
int alloc_frames_skipped(const struct alloc_tracker *t, const jvmtiFrameInfo *frames, int n, int max);
/*
 * The allocation site of the current thread (thread NULL), or of the thread a JVMTI
 * event names: its stack without our frames (the walk takes top_skip more frames than
 * the depth, for them). With a code site, the trace is cached there (or for its chain,
 * when chain->n > 0) when the walk confirms what the sites say was inlined.
 */
struct trace *alloc_site_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, jthread thread, int top_skip,
                               struct code_site *cs, const struct site_chain *chain, const struct deep_chain *deep);

#endif
