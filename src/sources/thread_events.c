#include "sources/thread_events.h"

#include "agent/agent.h"
#include "sources/tracker.h"

/* Registers a thread and writes its THREAD START, unless it is ours or known already. */
static void thread_seen(struct agent *a, JNIEnv *jni, jthread thread)
{
    if (atomic_load(&a->phase) != PHASE_LIVE || agent_is_own_thread(a, jni, thread)) return;
    struct thread_info *existing;
    struct thread_info *ti = threads_started(&a->threads, a->jvmti, jni, thread, &a->ids, &existing);
    if (!ti) return;
    /* A baseline for the CPU sampler, which counts a thread only once it used CPU. */
    jlong ns = 0;
    if ((*a->jvmti)->GetThreadCpuTime(a->jvmti, thread, &ns) == JVMTI_ERROR_NONE) ti->last_cpu_ns = ns > 0 ? ns : 1;
    output_lock(&a->out);
    a->writer->thread_start(&a->wctx, ti);
    output_unlock(&a->out);
}

void thread_events_vm_init(struct agent *a, JNIEnv *jni, jthread main_thread)
{
    jvmtiEnv *jvmti = a->jvmti;
    thread_seen(a, jni, main_thread);
    /* Events first, then the list: a thread starting in between is seen once, by either. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    jint n = 0;
    jthread *all = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
    (*jni)->EnsureLocalCapacity(jni, n + 32);
    for (jint i = 0; i < n; i++) {
        thread_seen(a, jni, all[i]);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

void JNICALL thread_events_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    thread_seen(agent_get(), jni, thread);
}

void JNICALL thread_events_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    struct agent *a = agent_get();
    if (atomic_load(&a->phase) != PHASE_LIVE) return;
    if (a->tracker) tracker_thread_end(a, jni, thread);
    struct thread_info *ti = threads_ended(&a->threads, jvmti, jni, thread);
    if (!ti) return;
    output_lock(&a->out);
    a->writer->thread_end(&a->wctx, ti);
    output_unlock(&a->out);
}
