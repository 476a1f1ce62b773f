/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,alloc_sample=<bytes>: the JVM samples about one allocation every <bytes>
 * (JVMTI SampledObjectAlloc), and each sample stands for the objects around it.
 */
#include "sources/alloc/alloc_sampled.h"

#include "sources/alloc/alloc_trace.h"
#include "sources/resolve.h"
#include "util/log.h"

/* The JVM's sampling interval; -1 when it refused it. Set at load: a thread's sampling
 * point is set when it takes a new TLAB, so starting late would miss the first TLAB of
 * every thread already running. */
static int set_interval(struct host *h)
{
    long every = atomic_load(&h->alloc_sample);
    if ((*h->jvmti)->SetHeapSamplingInterval(h->jvmti, (jint)every) != JVMTI_ERROR_NONE) {
        log_error("the JVM refused the allocation sampling interval %ld", every);
        return -1;
    }
    return 0;
}

static void capabilities(struct host *h, jvmtiCapabilities *caps)
{
    caps->can_generate_sampled_object_alloc_events = 1;
}

static int ready(struct host *h)
{
    if (set_interval(h) != 0) return -1;
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    return 0;
}

/* Sampling counts from VM start. */
static void start(struct host *h) { atomic_store(&alloc_of(h)->on, true); }

/* The JVM's sampling off too, so that a paused agent costs nothing; on, at the session's
 * interval. */
static void enable(struct host *h, bool on)
{
    if (on) set_interval(h);
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                          NULL);
}

const struct alloc_mode alloc_sampled_mode = {.init = capabilities, .ready = ready, .start = start, .enable = enable};

/* One sampled object stands for about alloc_sample bytes of objects like it. */
void JNICALL alloc_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                        jlong size)
{
    struct host *h = host_get();
    if (!counting(h)) return;
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_thread *at = this_thread(t);
    struct trace *tr = at ? alloc_site_trace(h, at, jni, thread, SKIP_NONE, NULL, NULL, NULL) : NULL;
    if (!tr) return;
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
    struct site *s = site_of(t, at, tr, ci);
    if (!s) return;
    /* In 8-byte units, as the objects held keep it (HotSpot's sizes are anyway). */
    uint64_t bytes = size > 8 ? ((uint64_t)size + 7) & ~(uint64_t)7 : 8;
    uint64_t every = (uint64_t)atomic_load_explicit(&h->alloc_sample, memory_order_relaxed);
    /* The one weight of this sample, for its allocated counts now and its live ones at
     * every dump while it lives (site_objects keeps it beside the reference). */
    uint32_t weight = bytes >= every ? 1 : (uint32_t)((every + bytes / 2) / bytes);
    atomic_fetch_add_explicit(&s->alloc_objs, weight, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, weight * bytes, memory_order_relaxed);
    site_objects_add_weighted(&t->live.objects, at->log, jni, object, s->id, bytes, weight);
}
