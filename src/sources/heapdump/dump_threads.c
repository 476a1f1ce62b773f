/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The threads of one heap dump and their stacks (see dump_threads.h).
 */
#include "sources/heapdump/dump_threads.h"

#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/jvm/thread_events.h"

/* Frames asked for each thread at first; the JVM sets room for this many per thread,
 * so deeper stacks are asked for again alone, whole. */
#define FIRST_FRAMES 1024
/* No stack is taken deeper than this. */
#define MAX_FRAMES 65536

/* The stack of a thread whose first look was cut at FIRST_FRAMES, whole. */
static struct trace *deep_stack(struct host *h, JNIEnv *jni, jthread t, uint32_t serial)
{
    jint n = 0;
    if ((*h->jvmti)->GetFrameCount(h->jvmti, t, &n) != JVMTI_ERROR_NONE || n <= 0) return NULL;
    if (n > MAX_FRAMES) n = MAX_FRAMES;
    jvmtiFrameInfo *f = malloc((size_t)n * sizeof *f);
    struct trace *tr = NULL;
    jint got = 0;
    if (f && (*h->jvmti)->GetStackTrace(h->jvmti, t, 0, n, f, &got) == JVMTI_ERROR_NONE)
        tr = traces_of(&h->t.traces, h->jvmti, jni, serial, f, got);
    free(f);
    return tr;
}

/* Each thread's stack, as a trace on that thread. */
static void take_stacks(struct host *h, JNIEnv *jni, struct dump_threads *d, jthread *refs)
{
    jvmtiStackInfo *info = NULL;
    if (!d->n ||
        (*h->jvmti)->GetThreadListStackTraces(h->jvmti, (jint)d->n, refs, FIRST_FRAMES, &info) != JVMTI_ERROR_NONE)
        return;
    for (uint32_t i = 0; i < d->n; i++) {
        const jvmtiStackInfo *s = &info[i];
        uint32_t serial = d->t[i].ti->serial;
        if (s->frame_count >= FIRST_FRAMES) d->t[i].trace = deep_stack(h, jni, refs[i], serial);
        if (!d->t[i].trace && s->frame_count >= 0)
            d->t[i].trace = traces_of(&h->t.traces, h->jvmti, jni, serial, s->frame_buffer, s->frame_count);
    }
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)info);
}

static int by_object_id(const void *x, const void *y)
{
    uint32_t a = ((const struct dump_thread *)x)->ti->object_id, b = ((const struct dump_thread *)y)->ti->object_id;
    return (a > b) - (a < b);
}

bool dump_threads_take(struct host *h, JNIEnv *jni, struct dump_threads *d)
{
    memset(d, 0, sizeof *d);
    jint n = 0;
    jthread *all = NULL;
    if ((*h->jvmti)->GetAllThreads(h->jvmti, &n, &all) != JVMTI_ERROR_NONE) return false;
    d->t = calloc((size_t)n + 1, sizeof *d->t);
    jthread *refs = calloc((size_t)n + 1, sizeof *refs);
    (*jni)->EnsureLocalCapacity(jni, n + 16);
    for (jint i = 0; i < n; i++) {
        struct thread_info *ti = d->t && refs ? thread_events_enter(h, jni, all[i]) : NULL;
        if (!ti) {
            (*jni)->DeleteLocalRef(jni, all[i]);
            continue;
        }
        d->t[d->n].ti = ti;
        d->t[d->n].ref = refs[d->n] = all[i];
        d->n++;
    }
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)all);
    if (d->t && refs) take_stacks(h, jni, d, refs);
    free(refs);
    if (d->t) qsort(d->t, d->n, sizeof *d->t, by_object_id);
    return d->t != NULL;
}

void dump_threads_drop_refs(JNIEnv *jni, struct dump_threads *d)
{
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->t[i].ref) (*jni)->DeleteLocalRef(jni, d->t[i].ref);
        d->t[i].ref = NULL;
    }
}

void dump_threads_free(struct host *h, JNIEnv *jni, struct dump_threads *d)
{
    dump_threads_drop_refs(jni, d);
    for (uint32_t i = 0; i < d->n; i++) threads_release(&h->t.threads, d->t[i].ti);
    free(d->t);
    memset(d, 0, sizeof *d);
}
