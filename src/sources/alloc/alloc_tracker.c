/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the life cycle of the allocation source and its public API, the one front
 * of its files (alloc_state.h lists them). A way of counting (exact, sampled) is a
 * struct alloc_mode: this file calls it at each step.
 */
#include "sources/alloc/alloc_tracker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_code_sites.h"
#include "sources/alloc/alloc_counted.h"
#include "sources/alloc/alloc_exact.h"
#include "sources/alloc/alloc_live.h"
#include "sources/alloc/alloc_sampled.h"
#include "sources/alloc/alloc_state.h"
#include "sources/alloc/alloc_trace.h"
#include "sources/hotspot/async_trace.h"
#include "util/env.h"
#include "util/log.h"

/* As set up (alloc_of(h)), or as the load's options ask before that. */
bool alloc_tracker_exact(const struct host *h)
{
    return alloc_of(h) ? alloc_of(h)->exact : (h->opt->heap & HEAP_SITES) && h->opt->alloc_sample == 0;
}

bool alloc_tracker_counted(const struct host *h)
{
    return alloc_of(h) ? alloc_of(h)->mode == &alloc_counted_mode
                       : alloc_tracker_exact(h) && h->opt->callers == CALLERS_SAMPLED;
}

long alloc_tracker_number_sites(struct host *h, unsigned n) { return alloc_counted_number(h, n); }
void alloc_tracker_add_site(struct host *h, unsigned cnum, const cf_site_info *site)
{
    alloc_counted_add(h, cnum, site);
}
void alloc_tracker_collect(struct host *h, JNIEnv *jni) { alloc_counted_collect(h, jni); }

struct site_table *alloc_tracker_sites(struct host *h) { return alloc_of(h) ? &alloc_of(h)->sites : NULL; }
static struct async_trace *alloc_tracker_walker(struct host *h) { return alloc_of(h) ? alloc_of(h)->walker : NULL; }

/* The capabilities in caps; if the code sites' one is refused, again without it (the
 * stack is then walked for every allocation). */
static int add_capabilities(struct host *h, struct alloc_tracker *t, jvmtiCapabilities *caps)
{
    if (t->code.ok && (*h->jvmti)->AddCapabilities(h->jvmti, caps) != JVMTI_ERROR_NONE) {
        caps->can_generate_compiled_method_load_events = 0;
        code_sites_destroy(&t->code.sites);
        t->code.ok = false;
    }
    if (!t->code.ok && (*h->jvmti)->AddCapabilities(h->jvmti, caps) != JVMTI_ERROR_NONE) {
        log_error("cannot set up allocation counting for heap=sites (the JVM refused its JVMTI capabilities)");
        return -1;
    }
    return 0;
}

/* The events it uses, on now: for exact counts, what the stack walker needs
 * (alloc_tracker_vm_init turns on the rest once the Tracker is bound). */
static void set_callbacks(struct host *h, jvmtiEventCallbacks *cb)
{
    jvmtiEnv *jvmti = h->jvmti;
    const struct alloc_mode *m = alloc_of(h)->mode;
    if (!m->vm_reports || m->vm_reports(h))
        cb->VMObjectAlloc = m->vm_object_alloc ? m->vm_object_alloc : alloc_exact_vm_object_alloc;
    cb->SampledObjectAlloc = m->sampled_object_alloc ? m->sampled_object_alloc : alloc_sampled_object_alloc;
    cb->GarbageCollectionStart = alloc_live_gc_started;
    cb->GarbageCollectionFinish = alloc_live_gc_finished;
    cb->CompiledMethodLoad = alloc_code_sites_loaded;
    cb->CompiledMethodUnload = alloc_code_sites_unloaded;
    cb->ClassLoad = async_trace_on_class_load;
    async_trace_enable_events(alloc_tracker_walker(h), jvmti);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    if (h->opt->live == LIVE_SAMPLED)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
}

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    struct alloc_tracker *t = calloc(1, sizeof *t);
    if (!t) return -1;
    sites_init(&t->sites);
    site_objects_init(&t->live.objects);
    if (pthread_key_create(&t->per_thread, alloc_thread_ended) != 0) return -1;
    t->exact = alloc_tracker_exact(h);
    t->mode = !t->exact ? &alloc_sampled_mode : alloc_tracker_counted(h) ? &alloc_counted_mode : &alloc_exact_mode;
    host_set_state(h, SOURCE_ALLOC, t);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_garbage_collection_events = 1; /* when the logs are worth a sweep */
    if (t->mode->init) t->mode->init(h, &caps);
    if (add_capabilities(h, t, &caps) != 0) return -1;
    if (t->mode->ready && t->mode->ready(h) != 0) return -1;
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
    site_objects_read_slots(&t->live.objects, jni, probe, h->gc_at_exit);
    if (probe) (*jni)->DeleteLocalRef(jni, probe);
    if (t->mode->start) t->mode->start(h);
}

void alloc_tracker_bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    if (alloc_of(h) && alloc_of(h)->mode->bind) alloc_of(h)->mode->bind(h, jni, tracker);
}
bool alloc_tracker_bound(struct host *h) { return alloc_exact_bound(h); }

void alloc_tracker_vm_init(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t || !t->tracker) return;
    if (t->mode->vm_init) t->mode->vm_init(h);
    alloc_tracker_enable(h, jni, true);
    if (!t->mode->vm_reports || t->mode->vm_reports(h))
        (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
    if (t->code.ok) {
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
    if (t->mode->enable) t->mode->enable(h, on);
}

/* HPROF_STACK_STATS: how the allocations' traces were found, and the caches' size. */
static void log_stack_stats(struct alloc_tracker *t)
{
    log_plain(
        "HPROF: heap=sites stacks: %llu by the fast walk, %llu by GetStackTrace, %llu by the code site; %llu "
        "walks of the top frame alone",
        (unsigned long long)atomic_load(&t->stats.fast_walks), (unsigned long long)atomic_load(&t->stats.jvmti_walks),
        (unsigned long long)atomic_load(&t->stats.code_hits), (unsigned long long)atomic_load(&t->stats.top_walks));
    log_plain("HPROF: heap=sites code sites: %llu of those with their caller's",
              (unsigned long long)atomic_load(&t->stats.chain_hits));
    log_plain("HPROF: heap=sites deep chains: %llu traces, %llu of them across a call into Java",
              (unsigned long long)atomic_load(&t->stats.deep_hits),
              (unsigned long long)atomic_load(&t->stats.deep_entry_hits));
    log_plain("HPROF: heap=sites deep chains learnt: %llu (%llu with interpreted frames), %llu found by their "
              "frames' names, %llu again (outdated since: a class unloaded, or prepared without jvmstat), %llu not "
              "confirmed by the walk",
              (unsigned long long)atomic_load(&t->stats.deep_learnt),
              (unsigned long long)atomic_load(&t->stats.deep_learnt_interp),
              (unsigned long long)atomic_load(&t->stats.deep_named),
              (unsigned long long)atomic_load(&t->stats.deep_relearnt),
              (unsigned long long)atomic_load(&t->stats.deep_unconfirmed));
    if (t->live.sampled)
        log_plain("HPROF: heap=sites objects noted, not held (live=sampled): %llu",
                  (unsigned long long)atomic_load(&t->stats.noted));
    uint32_t most = atomic_load(&t->stats.most_slots);
    log_plain("HPROF: heap=sites caches: up to %u slots per thread", (unsigned)(most ? most : FIRST_SLOTS));
}

void alloc_tracker_count_live(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t) return;
    if (t->mode->count_live)
        t->mode->count_live(h, jni, true);
    else
        alloc_live_count(h, jni);
    if (t->stats.on) log_stack_stats(t);
}

void alloc_tracker_sweep_live(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (t && t->mode->count_live)
        t->mode->count_live(h, jni, false);
    else
        alloc_live_sweep(h, jni);
}

/* callers=sampled holds samples under their bytecode sites, not under the rows. */
void alloc_tracker_tag_sites(struct host *h, jvmtiEnv *env)
{
    if (alloc_of(h) && !alloc_of(h)->mode->count_live) alloc_live_tag_sites(h, env);
}

static void class_prepare(struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    async_trace_class_prepared(alloc_tracker_walker(h), h->jvmti, cls);
    if (alloc_of(h) && alloc_of(h)->mode->class_prepare) alloc_of(h)->mode->class_prepare(h, jni, cls);
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
