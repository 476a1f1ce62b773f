/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/running_threads.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/hotspot/vm_structs.h"

/* Where the id is: JavaThread or Thread::_osthread (by release), OSThread::_thread_id. */
struct layout {
    jfieldID eetop;
    uint64_t osthread_at, tid_at;
    intptr_t env_at;                       /* JNIEnv minus JavaThread, the same for every thread */
    uint64_t stack_base_at, stack_size_at; /* 0: not found (the stack is then not known) */
};

/* JNIEnv minus JavaThread, from the calling thread's own. */
static bool env_offset(jvmtiEnv *jvmti, JNIEnv *jni, jfieldID eetop, intptr_t *env_at)
{
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || !self) return false;
    jlong me = (*jni)->GetLongField(jni, self, eetop);
    (*jni)->DeleteLocalRef(jni, self);
    *env_at = (intptr_t)jni - (intptr_t)me;
    return me != 0;
}

static jfieldID eetop_field(JNIEnv *jni)
{
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jfieldID f = cls ? (*jni)->GetFieldID(jni, cls, "eetop", "J") : NULL;
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    if (!f) (*jni)->ExceptionClear(jni);
    return f;
}

bool running_threads_env_offset(jvmtiEnv *jvmti, JNIEnv *jni, intptr_t *env_at)
{
    jfieldID eetop = eetop_field(jni);
    return eetop && env_offset(jvmti, jni, eetop, env_at);
}

static bool find_layout(jvmtiEnv *jvmti, JNIEnv *jni, struct layout *l)
{
    memset(l, 0, sizeof *l);
    if (!(vm_structs_offset(jvmti, "JavaThread", "_osthread", &l->osthread_at) ||
          vm_structs_offset(jvmti, "Thread", "_osthread", &l->osthread_at)) ||
        !vm_structs_offset(jvmti, "OSThread", "_thread_id", &l->tid_at))
        return false;
    /* JavaThread's since JDK 17 (Thread's before): optional. */
    uint64_t base, size;
    if ((vm_structs_offset(jvmti, "JavaThread", "_stack_base", &base) ||
         vm_structs_offset(jvmti, "Thread", "_stack_base", &base)) &&
        (vm_structs_offset(jvmti, "JavaThread", "_stack_size", &size) ||
         vm_structs_offset(jvmti, "Thread", "_stack_size", &size))) {
        l->stack_base_at = base;
        l->stack_size_at = size;
    }
    l->eetop = eetop_field(jni);
    if (!l->eetop) return false;
    return env_offset(jvmti, jni, l->eetop, &l->env_at);
}

/* A suspended thread's id and JNIEnv; false when it has no JavaThread (it ended). */
static bool read_thread(JNIEnv *jni, const struct layout *l, jthread t, struct running_thread *out)
{
    jlong jt = (*jni)->GetLongField(jni, t, l->eetop);
    if (!jt) return false;
    const char *os = *(const char *const *)((const char *)(intptr_t)jt + l->osthread_at);
    if (!os) return false;
    out->tid = *(const int32_t *)(os + l->tid_at);
    out->env = (JNIEnv *)((intptr_t)jt + l->env_at);
    /* The stack grows down from its base. */
    uintptr_t hi = l->stack_base_at ? *(const uintptr_t *)((const char *)(intptr_t)jt + l->stack_base_at) : 0;
    size_t size = l->stack_size_at ? *(const size_t *)((const char *)(intptr_t)jt + l->stack_size_at) : 0;
    out->stack_lo = hi > size ? hi - size : 0;
    out->stack_hi = hi > size && size ? hi : 0;
    out->thread = t;
    return out->tid > 0;
}

int running_threads_take(jvmtiEnv *jvmti, JNIEnv *jni, struct running_thread **out, char *why, size_t whylen)
{
    *out = NULL;
    struct layout l;
    if (!find_layout(jvmti, jni, &l)) {
        snprintf(why, whylen, "this JVM's thread structures were not found");
        return -1;
    }
    jint n = 0;
    jthread *all = NULL, self = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE) {
        snprintf(why, whylen, "the JVM did not list its threads");
        return -1;
    }
    (*jni)->EnsureLocalCapacity(jni, n + 16);
    /* The others, suspended: the caller would stop itself. */
    jthread *others = calloc((size_t)n + 1, sizeof *others);
    jvmtiError *errs = calloc((size_t)n + 1, sizeof *errs);
    struct running_thread *r = calloc((size_t)n + 1, sizeof *r);
    jthread *resume = calloc((size_t)n + 1, sizeof *resume); /* before: resuming may not fail */
    int nothers = 0, nr = 0;
    for (jint i = 0; others && i < n; i++) {
        if ((*jni)->IsSameObject(jni, all[i], self))
            (*jni)->DeleteLocalRef(jni, all[i]);
        else
            others[nothers++] = all[i];
    }
    (*jni)->DeleteLocalRef(jni, self);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    if (!others || !errs || !r || !resume ||
        (nothers && (*jvmti)->SuspendThreadList(jvmti, nothers, others, errs) != JVMTI_ERROR_NONE)) {
        snprintf(why, whylen, "the running threads could not be suspended for a moment");
        for (int i = 0; others && i < nothers; i++) (*jni)->DeleteLocalRef(jni, others[i]);
        free(others), free(errs), free(r), free(resume);
        return -1;
    }
    /* Suspended (by us, or already by someone else), none can free its JavaThread until
     * resumed; those that ended meanwhile (JVMTI_ERROR_THREAD_NOT_ALIVE) are left out.
     * Only those suspended here are resumed, each of them whatever was read. */
    int nresume = 0;
    for (int i = 0; i < nothers; i++) {
        bool held = errs[i] == JVMTI_ERROR_NONE || errs[i] == JVMTI_ERROR_THREAD_SUSPENDED;
        if (errs[i] == JVMTI_ERROR_NONE) resume[nresume++] = others[i];
        if (!(held && read_thread(jni, &l, others[i], &r[nr]))) continue;
        nr++;
        others[i] = NULL; /* kept in r */
    }
    if (nresume) (*jvmti)->ResumeThreadList(jvmti, nresume, resume, errs);
    for (int i = 0; i < nothers; i++)
        if (others[i]) (*jni)->DeleteLocalRef(jni, others[i]);
    free(resume), free(others), free(errs);
    *out = r;
    return nr;
}

void running_threads_free(JNIEnv *jni, struct running_thread *r, int n)
{
    for (int i = 0; r && i < n; i++) (*jni)->DeleteLocalRef(jni, r[i].thread);
    free(r);
}
