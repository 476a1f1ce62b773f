/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/async_trace.h"
#include "util/env.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define AGCT_NATIVE_BCI  (-3)
#define LOCAL_FRAMES     80
#define MAX_BARRIERS     8
#define CONTINUATION_SIG "Ljdk/internal/vm/Continuation;"

struct async_trace {
    agct_fn walk;
    /* The native methods of jdk.internal.vm.Continuation: a walk that meets one has left
     * a virtual thread's frames. Published once, when that class is prepared. */
    jmethodID barriers[MAX_BARRIERS];
    _Atomic int nbarriers;
    _Atomic uint32_t prepared; /* classes prepared since VM init */
};

struct async_trace *async_trace_new(void)
{
    /* A switch for tests: compare what the fast walk finds with GetStackTrace's frames. */
    if (env_switch("HPROF_JVMTI_STACKS", false)) return NULL;
    return async_trace_open();
}

struct async_trace *async_trace_open(void)
{
    agct_fn walk = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (!walk) {
        /* libjvm may have been opened without RTLD_GLOBAL. */
        void *jvm = dlopen("libjvm.so", RTLD_LAZY | RTLD_NOLOAD);
        if (jvm) walk = (agct_fn)dlsym(jvm, "AsyncGetCallTrace");
    }
    if (!walk) return NULL;
    struct async_trace *w = calloc(1, sizeof *w);
    if (w) w->walk = walk;
    return w;
}

void JNICALL async_trace_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls) {}

void async_trace_enable_events(struct async_trace *w, jvmtiEnv *jvmti)
{
    if (!w) return;
    /* The walker declines to answer unless ClassLoad events are on. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
}

static bool is_continuation(jvmtiEnv *jvmti, jclass cls)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return false;
    bool yes = strcmp(sig, CONTINUATION_SIG) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return yes;
}

static void note_barriers(struct async_trace *w, jvmtiEnv *jvmti, const jmethodID *methods, jint n)
{
    int k = atomic_load(&w->nbarriers);
    for (jint i = 0; i < n && k < MAX_BARRIERS; i++) {
        jint mods = 0;
        if ((*jvmti)->GetMethodModifiers(jvmti, methods[i], &mods) == JVMTI_ERROR_NONE && (mods & 0x0100))
            w->barriers[k++] = methods[i]; /* ACC_NATIVE */
    }
    atomic_store(&w->nbarriers, k);
}

/* Asking for a class's methods makes their jmethodIDs, which the walker only reads. */
void async_trace_class_prepared(struct async_trace *w, jvmtiEnv *jvmti, jclass cls)
{
    if (!w) return;
    jint n = 0;
    jmethodID *methods = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &methods) != JVMTI_ERROR_NONE) return;
    if (atomic_load(&w->nbarriers) == 0 && is_continuation(jvmti, cls)) note_barriers(w, jvmti, methods, n);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
    atomic_fetch_add_explicit(&w->prepared, 1, memory_order_release);
}

const _Atomic uint32_t *async_trace_prepared(const struct async_trace *w) { return w ? &w->prepared : NULL; }

void async_trace_vm_init(struct async_trace *w, jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (!w) return;
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE) return;
    if (jni) (*jni)->EnsureLocalCapacity(jni, n + 32);
    for (jint i = 0; i < n; i++) {
        async_trace_class_prepared(w, jvmti, classes[i]);
        /* Hundreds of classes: their local references go as they are done with. */
        if (jni) (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

static bool is_barrier(const struct async_trace *w, jmethodID m, int nbarriers)
{
    for (int i = 0; i < nbarriers; i++)
        if (w->barriers[i] == m) return true;
    return false;
}

agct_fn async_trace_fn(const struct async_trace *w) { return w ? w->walk : NULL; }

int async_trace_barrier_cut(const struct async_trace *w, const struct agct_frame *frames, int n)
{
    /* Atomic loads and compares only: called from a signal handler. */
    int nbarriers = atomic_load_explicit(&w->nbarriers, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (frames[i].bci == AGCT_NATIVE_BCI && is_barrier(w, frames[i].method, nbarriers)) return i;
    return n;
}

int async_trace_current(struct async_trace *w, JNIEnv *jni, jvmtiFrameInfo *frames, int max)
{
    if (!w || max < 0 || max > LOCAL_FRAMES) return -1;
    struct agct_frame raw[LOCAL_FRAMES];
    struct agct_trace t = {jni, 0, raw};
    /* In a native method or a JVMTI callback the walker starts from the thread's last
     * Java frame and never looks at a signal context. */
    w->walk(&t, max, NULL);
    if (t.nframes <= 0) return -1;
    int nbarriers = atomic_load_explicit(&w->nbarriers, memory_order_acquire);
    for (int i = 0; i < t.nframes; i++) {
        if (!raw[i].method || (raw[i].bci < 0 && raw[i].bci != AGCT_NATIVE_BCI)) return -1;
        if (raw[i].bci == AGCT_NATIVE_BCI && is_barrier(w, raw[i].method, nbarriers)) return -1;
        frames[i].method = raw[i].method;
        frames[i].location = raw[i].bci == AGCT_NATIVE_BCI ? -1 : raw[i].bci;
    }
    return t.nframes;
}
