/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the life cycle of the allocation source (its files: alloc_internal.h).
 */
#include "sources/alloc/alloc_tracker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_internal.h"
#include "util/env.h"
#include "util/log.h"

/* As set up, or as the load's options ask before that. */
bool alloc_tracker_exact(const struct host *h)
{
    const struct alloc_tracker *t = alloc_of(h);
    return t ? t->exact : (h->opt->heap & HEAP_SITES) && h->opt->alloc_sample == 0;
}

struct site_table *alloc_tracker_sites(struct host *h)
{
    struct alloc_tracker *t = alloc_of(h);
    return t ? &t->sites : NULL;
}

static struct async_trace *alloc_tracker_walker(struct host *h)
{
    struct alloc_tracker *t = alloc_of(h);
    return t ? t->walker : NULL;
}

/* The capabilities in caps; if the code sites' one is refused, again without it (the
 * stack is then walked for every allocation). */
static int add_capabilities(struct host *h, struct alloc_tracker *t, jvmtiCapabilities *caps)
{
    if (t->code_ok && (*h->jvmti)->AddCapabilities(h->jvmti, caps) != JVMTI_ERROR_NONE) {
        caps->can_generate_compiled_method_load_events = 0;
        code_sites_destroy(&t->code);
        t->code_ok = false;
    }
    if (!t->code_ok && (*h->jvmti)->AddCapabilities(h->jvmti, caps) != JVMTI_ERROR_NONE) {
        log_error("cannot set up allocation counting for heap=sites (the JVM refused its JVMTI capabilities)");
        return -1;
    }
    return 0;
}

/* The events it uses, on now: sampled allocations or, for exact counts, what the stack
 * walker needs (alloc_tracker_vm_init turns on the rest once the Tracker is bound). */
static void set_callbacks(struct host *h, jvmtiEventCallbacks *cb)
{
    jvmtiEnv *jvmti = h->jvmti;
    cb->VMObjectAlloc = alloc_exact_vm_object_alloc;
    cb->SampledObjectAlloc = alloc_sampled_object_alloc;
    cb->GarbageCollectionStart = alloc_live_gc_started;
    cb->GarbageCollectionFinish = alloc_live_gc_finished;
    cb->CompiledMethodLoad = alloc_code_sites_loaded;
    cb->CompiledMethodUnload = alloc_code_sites_unloaded;
    cb->ClassLoad = async_trace_on_class_load;
    async_trace_enable_events(alloc_tracker_walker(h), jvmti);
    if (!alloc_tracker_exact(h))
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    if (h->opt->live == LIVE_SAMPLED)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
}

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    struct alloc_tracker *t = calloc(1, sizeof *t);
    if (!t) return -1;
    sites_init(&t->sites);
    site_objects_init(&t->objects);
    if (pthread_key_create(&t->per_thread, alloc_thread_ended) != 0) return -1;
    t->exact = alloc_tracker_exact(h);
    host_set_state(h, SOURCE_ALLOC, t);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_garbage_collection_events = 1; /* when the logs are worth a sweep */
    if (t->exact)
        alloc_exact_init(h, &caps);
    else
        caps.can_generate_sampled_object_alloc_events = 1;
    if (add_capabilities(h, t, &caps) != 0) return -1;
    if (!t->exact && alloc_sampled_init(h) != 0) return -1;
    set_callbacks(h, cb);
    return 0;
}

/* Exact counting starts when the tracker binds its natives (alloc_tracker_vm_init);
 * sampling at VM init. */
static void start(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t) return;
    /* Sweeps read the weak references' slots (site_objects_read_slots); alone where the
     * collector works in pauses, which is where a GC can be forced at VM death (not ZGC
     * or Shenandoah: util/collector.h). HPROF_WEAK_SLOTS=0 asks the JVM about each. */
    jclass probe = env_switch("HPROF_WEAK_SLOTS", true) ? (*jni)->FindClass(jni, "java/lang/Object") : NULL;
    site_objects_read_slots(&t->objects, jni, probe, h->gc_at_exit);
    if (probe) (*jni)->DeleteLocalRef(jni, probe);
    t->live_sampled = t->exact && h->opt->live == LIVE_SAMPLED && site_objects_can_note(&t->objects);
    if (t->exact && h->opt->live == LIVE_SAMPLED && !t->live_sampled)
        log_plain("HPROF: live=sampled: this collector moves objects while the program runs (or the JVM's "
                  "references are not laid out as expected): every object is held, live counts are exact");
    if (!t->exact) atomic_store(&t->on, true);
}

void alloc_tracker_vm_init(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t || !t->tracker) return;
    alloc_exact_vm_init(h);
    alloc_tracker_enable(h, jni, true);
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
    if (t->code_ok) {
        (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
        (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    }
}

void alloc_tracker_enable(struct host *h, JNIEnv *jni, bool on)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t) return;
    atomic_store(&t->on, on);
    if (t->tracker && t->allocs) (*jni)->SetStaticIntField(jni, t->tracker, t->allocs, on ? 1 : 0);
    /* Sampled: the JVM's sampling off too, so that a paused agent costs nothing; on, at
     * the session's interval. */
    if (t->exact) return;
    if (on) alloc_sampled_init(h);
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                          NULL);
}

static void class_prepare(struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    async_trace_class_prepared(alloc_tracker_walker(h), h->jvmti, cls);
}

static bool wanted(const struct options *o) { return (o->heap & HEAP_SITES) != 0; }

static void enable(struct host *h, JNIEnv *jni, const struct options *o, bool on) { alloc_tracker_enable(h, jni, on); }

const struct source alloc_tracker_source = {
    .name = "allocation sites",
    .wanted = wanted,
    .init = init,
    .start = start,
    .enable = enable,
    .class_prepare = class_prepare,
};
