/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the trace of an allocation. The stack is walked (the fast walk when it can
 * answer, else JVMTI's), the frames of ours on top are dropped, and the trace is found
 * in the allocating thread's own cache before the shared table.
 */
#include "sources/alloc/alloc_trace.h"

#include <pthread.h>
#include <stdlib.h>

#include "sources/alloc/alloc_code_sites.h"
#include "sources/alloc/alloc_deep.h"
#include "sources/hotspot/async_trace.h"
#include "sources/resolve.h"

/* The caches grow up to 64 times their first size (alloc_trace.h), looking at their
 * misses every GROW_WINDOW lookups. */
#define MAX_SLOTS   (FIRST_SLOTS * 64)
#define GROW_WINDOW 65536

struct trace_slot {
    uint64_t hash;
    struct trace *trace;
};

static void thread_free(struct alloc_thread *at)
{
    free(at->traces);
    free(at->sites);
    free(at->chains);
    free(at->deep);
    free(at->deep_slots);
    free(at->names);
    free(at->refs);
    free(at);
}

/* The caches, empty, with n slots each (deep chains' once the thread met one); false
 * (and the old ones kept) without memory. */
static bool resize_caches(struct alloc_thread *at, uint32_t n)
{
    struct trace_slot *tr = calloc(n, sizeof *tr);
    struct site_slot *si = calloc(n, sizeof *si);
    struct chain_slot *pa = calloc(n, sizeof *pa);
    struct deep_slot *de = at->deep ? calloc(n, sizeof *de) : NULL;
    struct code_site_ref *re = calloc(n, sizeof *re);
    if (!tr || !si || !pa || (at->deep && !de) || !re) {
        free(tr);
        free(si);
        free(pa);
        free(de);
        free(re);
        return false;
    }
    free(at->traces);
    free(at->sites);
    free(at->chains);
    free(at->deep_slots);
    free(at->refs);
    at->traces = tr;
    at->sites = si;
    at->chains = pa;
    at->deep_slots = de;
    at->refs = re;
    at->nslots = n;
    return true;
}

bool alloc_thread_deep(struct alloc_thread *at)
{
    if (at->deep) return true;
    struct deep_chain *d = malloc(sizeof *d);
    struct deep_slot *slots = calloc(at->nslots, sizeof *slots);
    struct interp_name *names = calloc(DEEP_NAMES, sizeof *names);
    if (!d || !slots || !names) {
        free(d);
        free(slots);
        free(names);
        return false;
    }
    at->deep = d;
    at->deep_slots = slots;
    at->names = names;
    return true;
}

void alloc_thread_note_lookup(struct alloc_tracker *t, struct alloc_thread *at, bool missed)
{
    at->misses += missed;
    if (++at->lookups < GROW_WINDOW) return;
    if (at->misses > GROW_WINDOW / 64 && at->nslots < MAX_SLOTS && resize_caches(at, at->nslots * 2)) {
        uint32_t most = atomic_load_explicit(&t->stats.most_slots, memory_order_relaxed);
        while (most < at->nslots && !atomic_compare_exchange_weak(&t->stats.most_slots, &most, at->nslots)) {}
    }
    at->lookups = at->misses = 0;
}

struct alloc_thread *alloc_thread_new(struct alloc_tracker *t)
{
    struct alloc_thread *at = calloc(1, sizeof *at);
    if (!at) return NULL;
    if (!resize_caches(at, FIRST_SLOTS) || !(at->log = site_objects_log(&t->live.objects)) ||
        pthread_setspecific(t->per_thread, at) != 0) {
        site_objects_release(&t->live.objects, at->log);
        thread_free(at);
        return NULL;
    }
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *base = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &base, &size) == 0) at->stack_end = (uintptr_t)base + size;
        pthread_attr_destroy(&attr);
    }
    return at;
}

/* Its log goes to the next thread; its pending references, if any, stay behind (a
 * constructor that never ran). */
void alloc_thread_ended(void *p)
{
    struct alloc_thread *at = p;
    struct host *h = host_get();
    if (h && alloc_of(h)) site_objects_release(&alloc_of(h)->live.objects, at->log);
    thread_free(at);
}

struct trace *alloc_thread_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, uint32_t serial,
                                 const jvmtiFrameInfo *frames, int n)
{
    uint64_t hash = traces_key_hash(serial, frames, n);
    unsigned slot = (unsigned)(hash >> 40) & (at->nslots - 1);
    struct trace *tr = at->traces[slot].trace;
    bool hit = tr && at->traces[slot].hash == hash && traces_key_equals(tr, serial, frames, n);
    alloc_thread_note_lookup(alloc_of(h), at, !hit);
    if (hit) return tr;
    slot = (unsigned)(hash >> 40) & (at->nslots - 1); /* the caches may have grown */
    tr = traces_of_hashed(&h->t.traces, h->jvmti, jni, hash, serial, frames, n);
    if (tr) {
        at->traces[slot].hash = hash;
        at->traces[slot].trace = tr;
    }
    return tr;
}

/* Every caller runs on the allocating thread. */
jint alloc_walk_stack(struct host *h, JNIEnv *jni, jthread thread, jvmtiFrameInfo *frames, int want)
{
    struct alloc_tracker *t = alloc_of(h);
    int fast = async_trace_current(t->walker, jni, frames, want);
    if (t->stats.on)
        atomic_fetch_add_explicit(fast >= 0 ? &t->stats.fast_walks : &t->stats.jvmti_walks, 1, memory_order_relaxed);
    if (fast >= 0) return fast;
    jint n = 0;
    if ((*h->jvmti)->GetStackTrace(h->jvmti, thread, 0, want, frames, &n) != JVMTI_ERROR_NONE) return -1;
    return n;
}

static bool skipped(const struct alloc_tracker *t, jmethodID m)
{
    for (int i = 0; i < t->nskip; i++)
        if (t->skip[i] == m) return true;
    return false;
}

int alloc_frames_skipped(const struct alloc_tracker *t, const jvmtiFrameInfo *frames, int n, int max)
{
    int skip = 0;
    while (skip < n && skip < max && skipped(t, frames[skip].method)) skip++;
    return skip;
}

/*
 * A clone hook on top of a walk stands where the VM's own report of a copy has
 * Object.clone, over the call's own bytecode: the hook follows the 3-byte invoke and a
 * dup. So both ways give a copy the same trace.
 */
#define CLONE_HOOK_AFTER 4

static void as_clone(struct alloc_tracker *t, jvmtiFrameInfo *frames, int n)
{
    frames[0] = (jvmtiFrameInfo){t->object_clone, -1};
    if (n > 1 && frames[1].location >= CLONE_HOOK_AFTER) frames[1].location -= CLONE_HOOK_AFTER;
}

struct trace *alloc_site_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, jthread thread, int top_skip,
                               struct code_site *cs, const struct site_chain *chain, const struct deep_chain *deep)
{
    struct alloc_tracker *t = alloc_of(h);
    int depth = host_depth(h);
    jvmtiFrameInfo local[64], *frames = local;
    int want = depth + top_skip;
    if (want > 64 && !(frames = malloc((size_t)want * sizeof *frames))) return NULL;
    struct trace *tr = NULL;
    jint n = alloc_walk_stack(h, jni, thread, frames, want);
    if (n >= 0) {
        if (n > 0 && frames[0].method &&
            (frames[0].method == t->clone_hooks[0] || frames[0].method == t->clone_hooks[1]))
            as_clone(t, frames, n);
        int skip = alloc_frames_skipped(t, frames, n, MAX_SKIP);
        int keep = n - skip < depth ? n - skip : depth;
        uint32_t serial = 0;
        if (h->opt->thread) {
            struct thread_info *ti = threads_lookup(h->jvmti, thread);
            serial = ti ? ti->serial : 0;
        }
        tr = alloc_thread_trace(h, at, jni, serial, frames + skip, keep);
        /* Learnt only from a walk that found the Tracker's native (and, for an object,
         * Object.<init>) on top, as called from the code site. */
        if (tr && cs && skip == top_skip && keep == depth)
            alloc_code_sites_learn(t, at, cs, chain, frames, depth, top_skip - 1, tr);
        if (tr && deep && skip == top_skip) alloc_deep_learn(t, at, deep, frames, n, want, tr);
    }
    if (frames != local) free(frames);
    return tr;
}
