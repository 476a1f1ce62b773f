/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/jvm/thread_events.h"

#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/source.h"

/* Enters a thread and hands over its THREAD START, unless it is ours; returns its entry
 * (the one it had, if known already), held, NULL for the agent's own. */
struct thread_info *thread_events_enter(struct host *h, JNIEnv *jni, jthread thread)
{
    if (host_is_own_thread(h, jni, thread)) return NULL;
    struct thread_info *existing;
    struct thread_info *ti = threads_started(&h->t.threads, h->jvmti, jni, thread, &h->t.ids, &existing);
    if (!ti) return existing;
    /* A baseline for the CPU sampler, which counts a thread only once it used CPU. */
    jlong ns = 0;
    if ((*h->jvmti)->GetThreadCpuTime(h->jvmti, thread, &ns) == JVMTI_ERROR_NONE) ti->last_cpu_ns = ns > 0 ? ns : 1;
    host_record(h, &(struct live_record){.kind = LIVE_THREAD_START, .thread = ti});
    return ti;
}

static void thread_seen(struct host *h, JNIEnv *jni, jthread thread)
{
    if (!host_live(h)) return;
    struct thread_info *ti = thread_events_enter(h, jni, thread);
    if (ti) threads_release(&h->t.threads, ti);
}

static bool wanted(const struct options *o) { return true; }

/* The thread running VMInit (main), then every thread already there. */
static void start(struct host *h, JNIEnv *jni)
{
    jvmtiEnv *jvmti = h->jvmti;
    jthread main_thread = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &main_thread) == JVMTI_ERROR_NONE && main_thread) {
        thread_seen(h, jni, main_thread);
        (*jni)->DeleteLocalRef(jni, main_thread);
    }
    /* Events first, then the list: a thread starting in between is seen once, by either. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    jint n = 0;
    jthread *all = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
    (*jni)->EnsureLocalCapacity(jni, n + 32);
    for (jint i = 0; i < n; i++) {
        thread_seen(h, jni, all[i]);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

void thread_events_leave(struct host *h, JNIEnv *jni, jthread thread)
{
    struct thread_info *ti = threads_ended(&h->t.threads, h->jvmti, jni, thread);
    if (ti) host_record(h, &(struct live_record){.kind = LIVE_THREAD_END, .thread = ti});
    /* Those that ended before and are gone now: memory follows the live threads. This
     * one is still alive, so its entry stays until a later end. */
    threads_reclaim(&h->t.threads, h->jvmti, jni);
}

const struct source thread_events_source = {
    .name = "threads",
    .wanted = wanted,
    .start = start,
    .thread_start = thread_seen,
    .thread_end = thread_events_leave,
};
