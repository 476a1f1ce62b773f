/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The heap dump's ROOT records: those the walk reports (JNI references, system classes,
 * stack locals, threads), and the monitors live threads own, which JVMTI asks for apart.
 */
#include "sources/heapdump/heap_roots.h"

#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/heap_names.h"
#include "sources/heapdump/heap_classes.h"
#include "sources/host.h"
#include "util/buf.h"

jobject *heap_owned_monitors(struct host *h, JNIEnv *jni, uint32_t *count)
{
    jvmtiEnv *jvmti = h->jvmti;
    jvmtiCapabilities caps;
    jobject *out = NULL;
    uint32_t n = 0;
    size_t cap = 0;
    jint nt = 0;
    jthread *all = NULL;
    *count = 0;
    memset(&caps, 0, sizeof caps);
    if ((*jvmti)->GetCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE || !caps.can_get_owned_monitor_info ||
        (*jvmti)->GetAllThreads(jvmti, &nt, &all) != JVMTI_ERROR_NONE)
        return NULL;
    for (jint i = 0; i < nt; i++) {
        jint k = 0;
        jobject *owned = NULL;
        if ((*jvmti)->GetOwnedMonitorInfo(jvmti, all[i], &k, &owned) == JVMTI_ERROR_NONE) {
            for (jint j = 0; j < k; j++) {
                if (grow_array((void **)&out, &cap, (size_t)n + 1, sizeof *out))
                    out[n++] = owned[j];
                else
                    (*jni)->DeleteLocalRef(jni, owned[j]);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)owned);
        }
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    *count = n;
    return out;
}

/* The monitor roots of this dump, named. */
void walk_find_monitors(struct walk *w)
{
    uint32_t n = 0;
    jobject *owned = heap_owned_monitors(w->h, w->jni, &n);
    w->monitors = calloc(n ? n : 1, sizeof *w->monitors);
    for (uint32_t i = 0; i < n; i++) {
        if (w->monitors) w->monitors[w->nmonitors++] = walk_id_of_object(w, owned[i]);
        (*w->jni)->DeleteLocalRef(w->jni, owned[i]);
    }
    free(owned);
}

static void root(struct walk *w, int kind, uint32_t id, uint32_t serial, int frame, const char *name)
{
    struct hd_root_info r = {.kind = kind,
                             .id = id,
                             .thread_serial = serial,
                             .frame = frame,
                             .trace_serial = SERIAL_TRACE_BASE,
                             .name = name};
    if (kind == HD_ROOT_JNI_GLOBAL) r.gref = ++w->gref;
    w->wr->root(w->s, &r);
}

void walk_monitor_roots(struct walk *w)
{
    for (uint32_t i = 0; i < w->nmonitors; i++) root(w, HD_ROOT_MONITOR_USED, w->monitors[i], 0, 0, NULL);
}

/* A root on a thread's stack: of one of the dump's threads, else (the agent's own
 * threads, threads the JVM started after the dump began) a root of unknown kind, so that
 * no root names a thread the profile does not have. */
static void stack_root(struct walk *w, int kind, uint32_t id, jlong thread_tag, jint depth)
{
    uint32_t serial = walk_thread_serial(w, thread_tag, NULL);
    root(w, serial ? kind : HD_ROOT_UNKNOWN, id, serial, depth, NULL);
}

/* A thread's object: its root names the thread's serial and stack trace; it is also its
 * block's root. */
static void thread_root(struct walk *w, uint32_t id, jlong tag)
{
    uint32_t trace = SERIAL_TRACE_BASE;
    uint32_t serial = walk_thread_serial(w, tag, &trace);
    if (!serial) {
        root(w, HD_ROOT_UNKNOWN, id, 0, 0, NULL);
        return;
    }
    struct hd_root_info r = {.kind = HD_ROOT_THREAD_OBJECT, .id = id, .thread_serial = serial, .trace_serial = trace};
    w->wr->root(w->s, &r);
    root(w, HD_ROOT_THREAD_BLOCK, id, serial, 0, NULL);
}

/* A root the walk reports: the object tagged `tag`, with ID `id`. */
void walk_root(struct walk *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong tag, uint32_t id)
{
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL: root(w, HD_ROOT_JNI_GLOBAL, id, 0, 0, NULL); break;
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: {
        struct hd_class *c = walk_class_of_tag(w, tag);
        root(w, HD_ROOT_STICKY_CLASS, id, 0, 0, c ? c->info->name : "<Unknown Class>");
        break;
    }
    case JVMTI_HEAP_REFERENCE_MONITOR: root(w, HD_ROOT_MONITOR_USED, id, 0, 0, NULL); break;
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        stack_root(w, HD_ROOT_JAVA_FRAME, id, info->stack_local.thread_tag, info->stack_local.depth);
        break;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        stack_root(w, HD_ROOT_JNI_LOCAL, id, info->jni_local.thread_tag, info->jni_local.depth);
        break;
    case JVMTI_HEAP_REFERENCE_THREAD: thread_root(w, id, tag); break;
    default: root(w, HD_ROOT_UNKNOWN, id, 0, 0, NULL); break;
    }
}
