/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,callers=sampled: every allocating bytecode is a numbered site (the
 * instrumenter asks tracker.c, which asks alloc_counted_number), and the hook after it
 * counts in Java, per thread (java/hprof/Tracker.java), with no JNI call. On a sample
 * of a thread's allocations at a site the Tracker calls `sampled`, which walks the stack
 * and adds the allocations since the thread's last sample there to that trace's weight.
 * At a dump the Tracker's counts are read, and each site's new allocations are split
 * among its traces by those weights (a site with one trace keeps its exact count).
 *
 * What the VM makes with no bytecode that allocates is counted in Java too, by a hook
 * after each call of the JDK natives that make it (classfile.h: Unsafe.allocateInstance,
 * which method handles use for every capturing lambda, javac millions a round;
 * Array.newArray; reflection's native newInstance0 and member arrays; Object.clone), at
 * a site per call and class the agent numbers when the Tracker first meets the pair.
 * The rest the VM makes comes with VMObjectAlloc only before JDK 22: from JDK 22 the
 * event, once enabled, makes compiled code call the runtime for every allocateInstance
 * (javac 2.2x against 1.4x), so there the strings the VM interns for names, the errors
 * it throws and the like are not counted. JNI AllocObject and NewObject are counted one
 * by one (wrapped), and so is a clone() an override may have answered.
 *
 * Live counts are estimates: the JVM samples an allocation every LIVE_INTERVAL bytes
 * (SampledObjectAlloc), each sample is held weakly under its bytecode site (the frame it
 * was made at, and its class: a live_group), and a row's live count at a dump is its
 * allocations times the share of its group's samples still alive.
 */
#include "sources/alloc/alloc_counted.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/alloc/alloc_exact.h"
#include "sources/alloc/alloc_site_classes.h"
#include "sources/alloc/alloc_trace.h"
#include "sources/hotspot/async_trace.h"
#include "sources/resolve.h"
#include "util/log.h"
#include "util/env.h"

#define LIVE_INTERVAL (512 * 1024) /* bytes between the JVM's allocation samples */
#define CAP_ONE       4096         /* a site with one trace: sampled one in about this many */
#define CAP_MANY      64           /* a site seen with several traces ... */
#define MANY_SETTLED  256          /* ... until it has this many samples; then half as often */
#define ELEMENT_CODES 13           /* newarray's atype 4..11, 12 for references */
#define OVER_BYTECODE 5            /* frames walked over a sample's depth first (site_trace): */
#define OVER_MADE     9            /* the Tracker's 4, or 7-8 (or 4 + a level of a multi-array's) */

static struct alloc_count *count_of(struct host *h) { return alloc_of(h) ? alloc_of(h)->count : NULL; }

/* ---- numbering, as classes are instrumented ---- */

long alloc_counted_number(struct host *h, unsigned n)
{
    struct alloc_count *c = count_of(h);
    return c ? alloc_sites_number(&c->sites, n) : -1;
}

void alloc_counted_add(struct host *h, unsigned cnum, const cf_site_info *si)
{
    struct alloc_count *c = count_of(h);
    if (!c) return;
    for (unsigned d = 0; d < (si->kind == CF_SITE_MULTI ? si->dims : 1); d++) {
        /* The class a dimension makes: "[[I" then "[I" for new int[3][4]. */
        char sig[1024];
        const char *type = si->type ? si->type : "";
        if (si->kind == CF_SITE_NEW)
            snprintf(sig, sizeof sig, "L%s;", type);
        else
            snprintf(sig, sizeof sig, "%s", type + (d < strlen(type) ? d : 0));
        struct alloc_site s = {.number = (uint32_t)si->number + d,
                               .cnum = cnum,
                               .mnum = si->mnum,
                               .bci = si->bci,
                               .new_bci = si->new_bci,
                               .kind = (uint8_t)si->kind,
                               .signature = sig};
        alloc_sites_add(&c->sites, &s);
    }
}

static void class_prepare(struct host *h, JNIEnv *jni, jclass cls)
{
    classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
}

/* ---- callers, on a sample ---- */

/* The trace of the allocation at site s that the Tracker's frames on top of this
 * thread's stack were called for: those frames dropped, and the top frame's location
 * the allocating instruction's (the hook follows it), as a walk at the allocation finds. */
static struct trace *site_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, const struct alloc_site *s)
{
    struct alloc_tracker *t = alloc_of(h);
    /* The Tracker's frames over a sample: 4 for a bytecode site, 7-8 for what the VM
     * makes, 4 and one a level for a multi-dimensional array's inner arrays (past the
     * fifth level walked again). A walk costs by the frame (AsyncGetCallTrace decodes
     * each), so it asks for no more. */
    int over = s->made || s->kind == ASITE_MULTI ? OVER_MADE : OVER_BYTECODE;
    int depth = host_depth(h), want = depth + over;
    jvmtiFrameInfo local[72],
        *frames = depth + MAX_SKIP <= 72 ? local : malloc((size_t)(depth + MAX_SKIP) * sizeof *frames);
    if (!frames) return NULL;
    struct trace *tr = NULL;
    jint n = alloc_walk_stack(h, jni, NULL, frames, want);
    int skip = alloc_frames_skipped(t, frames, n, over);
    if (skip == over && n == want && over < MAX_SKIP) {
        over = MAX_SKIP;
        n = alloc_walk_stack(h, jni, NULL, frames, depth + over);
        skip = alloc_frames_skipped(t, frames, n, over);
    }
    if (n >= 0 && skip < n) {
        if (s->new_bci != ASITE_NO_BCI) frames[skip].location = s->new_bci;
        int keep = n - skip < depth ? n - skip : depth;
        uint32_t serial = 0;
        if (h->opt->thread) {
            struct thread_info *ti = threads_lookup(h->jvmti, NULL);
            serial = ti ? ti->serial : 0;
        }
        tr = alloc_thread_trace(h, at, jni, serial, frames + skip, keep);
    }
    if (frames != local) free(frames);
    return tr;
}

static uint32_t next_random(struct alloc_thread *at)
{
    uint32_t x = at->rng ? at->rng : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return at->rng = x;
}

/*
 * The count of the next sample at site s after one at count n (n >= 1): the 2nd, 4th,
 * 8th ... then one in about CAP_ONE, at a random point of each span, so that no pattern
 * of the program's lines up with the samples. A site seen with several traces is
 * sampled one in about CAP_MANY until it has MANY_SETTLED samples (a share of its split
 * known to about 3%), then half as often for each MANY_SETTLED more, down to CAP_ONE
 * (its samples go on adding up, and each stands for every allocation since the last):
 * javac's sites called from everywhere took 280,000 walks a round at one in CAP_MANY,
 * 43,000 once settled with 1,024 to settle, 19,000 with 256 (a walk costs about 7 us
 * there; HPROF_STACK_STATS=1 says how many and their CPU). With 64 to settle, 10,000,
 * but a site's 3:1 split came out 77:23 and javac's steady rounds no faster.
 *
 * A site that had shown one trace for long and then shows a second does not start over
 * at CAP_MANY: its span is at least the one a site with several traces from the start
 * would have reached at this thread's count (n / MANY_SETTLED, a power of two), since
 * the samples it has stand for its past as well. javac's sites of rare second callers
 * found late (a tenth of its walks in rounds 7-12) were walked from one in 64 again.
 */
static uint64_t next_mark(struct alloc_thread *at, const struct alloc_site *s, uint64_t n)
{
    uint64_t cap = CAP_ONE;
    if (atomic_load_explicit(&s->ntraces, memory_order_relaxed) > 1) {
        uint32_t halvings = atomic_load_explicit(&s->samples, memory_order_relaxed) / MANY_SETTLED;
        cap = halvings >= 6 ? CAP_ONE : (uint64_t)CAP_MANY << halvings;
        while (cap < CAP_ONE && 2 * cap * MANY_SETTLED <= n) cap *= 2;
    }
    if (n < cap) return 2 * n;
    return n + cap / 2 + next_random(at) % cap;
}

/* Tracker.sampled: the thread's n-th allocation at site `site`, standing for objs
 * objects and bytes (arrays; objects' bytes come from their class's size) since its
 * last sample there. Returns the count of its next sample at the site. */
static jlong JNICALL native_sampled(JNIEnv *jni, jclass tracker, jint site, jlong n, jlong objs, jlong bytes)
{
    struct host *h = host_get();
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_site *s = t && t->count ? alloc_sites_at(&t->count->sites, (uint32_t)site) : NULL;
    struct alloc_thread *at = t ? this_thread(t) : NULL;
    if (!s || !at || !counting(h) || at->busy || n < 1) return n + CAP_ONE;
    at->busy = true;
    struct timespec t0, t1;
    if (t->stats.on) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    struct trace *tr = site_trace(h, at, jni, s);
    struct class_info *ci = alloc_site_class(h, jni, s);
    uint64_t b = (uint64_t)bytes;
    if (s->kind == ASITE_NEW) b = ci ? (uint64_t)objs * alloc_instance_size(h, jni, ci) : 0;
    if (tr) alloc_sites_sample(&t->count->sites, s, tr, (uint64_t)objs, b);
    at->busy = false;
    if (t->stats.on) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        atomic_fetch_add_explicit(&t->count->samples, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->count->sample_ns,
                                  (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)),
                                  memory_order_relaxed);
    }
    return (jlong)next_mark(at, s, (uint64_t)n);
}

/* ---- the allocations counted one by one ---- */

/* One object counted at trace tr, with its class and size. */
static void count_one(struct host *h, JNIEnv *jni, jobject obj, struct class_info *ci, struct trace *tr)
{
    struct site *s = ci && tr ? sites_of(&alloc_of(h)->sites, tr, ci) : NULL;
    if (!s) return;
    uint64_t size = (uint64_t)alloc_exact_object_size(h, obj, ci);
    atomic_fetch_add_explicit(&s->alloc_objs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, size, memory_order_relaxed);
    __atomic_fetch_add(&s->given_objs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->given_bytes, size, __ATOMIC_RELAXED);
}

static struct class_info *class_of_object(struct host *h, JNIEnv *jni, jobject obj)
{
    jclass cls = (*jni)->GetObjectClass(jni, obj);
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
    (*jni)->DeleteLocalRef(jni, cls);
    return ci;
}

/* The thread of a JVMTI allocation event, when it is to be counted: counting, not one of
 * ours, not inside the agent's own work on it. */
static struct alloc_thread *event_thread(struct host *h, JNIEnv *jni, jthread thread)
{
    if (!counting(h) || host_is_own_current(h, jni, thread)) return NULL;
    struct alloc_thread *at = this_thread(alloc_of(h));
    return at && !at->busy ? at : NULL;
}

/*
 * JDK 17 (vm_reports): an object the VM made for Java code and reported. Those of the
 * natives whose calls are hooked (allocateInstance, Array.newArray, clone, ...: their
 * reports have that native on top) the hooks count; the rest (the strings the VM makes
 * for names, JDK 17's native reflection boxes, ...) one by one, with their traces.
 */
static void JNICALL vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                    jlong size)
{
    struct host *h = host_get();
    struct alloc_thread *at = event_thread(h, jni, thread);
    if (!at) return;
    struct alloc_tracker *t = alloc_of(h);
    jvmtiFrameInfo top;
    if (t->stats.on) atomic_fetch_add_explicit(&t->stats.top_walks, 1, memory_order_relaxed);
    if (alloc_walk_stack(h, jni, thread, &top, 1) != 1) return;
    for (int i = 0; i < t->count->nhooked; i++)
        if (top.method == t->count->hooked[i]) return;
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
    if (ci) count_one(h, jni, object, ci, alloc_site_trace(h, at, jni, thread, SKIP_NONE, NULL, NULL, NULL));
}

/* The natives whose calls the rewriter hooks (classfile.h: cf_made_natives) and
 * Object.clone: the VM's reports of their objects are left to the hooks. */
static void learn_hooked_natives(struct alloc_count *c, JNIEnv *jni, jmethodID object_clone)
{
    size_t n = 0;
    const cf_made_native *natives = cf_made_natives(&n);
    if (object_clone) c->hooked[c->nhooked++] = object_clone;
    for (size_t i = 0; i < n && c->nhooked < HOOKED_NATIVES; i++) {
        jclass k = (*jni)->FindClass(jni, natives[i].owner);
        jmethodID m = !k           ? NULL
            : natives[i].is_static ? (*jni)->GetStaticMethodID(jni, k, natives[i].name, natives[i].desc)
                                   : (*jni)->GetMethodID(jni, k, natives[i].name, natives[i].desc);
        (*jni)->ExceptionClear(jni);
        if (m) c->hooked[c->nhooked++] = m;
        if (k) (*jni)->DeleteLocalRef(jni, k);
    }
}

/* Tracker.newVirtualClone: after a call of clone() that may have run an override, which
 * counted its own copy; a copy Object.clone made is counted here. */
static void JNICALL native_new_virtual_clone(JNIEnv *jni, jclass tracker, jobject obj)
{
    struct host *h = host_get();
    if (!obj || !counting(h)) return;
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_thread *at = this_thread(t);
    if (!at || at->busy) return;
    struct class_info *ci = class_of_object(h, jni, obj);
    jclass cls = (*jni)->GetObjectClass(jni, obj);
    bool objects = alloc_exact_clone_is_objects(t, jni, ci, cls);
    (*jni)->DeleteLocalRef(jni, cls);
    if (objects) count_one(h, jni, obj, ci, alloc_site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL, NULL));
}

/* Tracker.allocatedInstance: an object the VM made (after Unsafe.allocateInstance, a
 * clone, ...) of a class with no site (the hook's frames are ours). */
static void JNICALL native_allocated_instance(JNIEnv *jni, jclass tracker, jobject obj)
{
    struct host *h = host_get();
    if (!obj || !counting(h)) return;
    struct alloc_thread *at = this_thread(alloc_of(h));
    if (!at || at->busy) return;
    count_one(h, jni, obj, class_of_object(h, jni, obj),
              alloc_site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL, NULL));
}

/* Tracker.instanceSite: the site at which the Tracker counts class c's objects that the
 * VM makes (allocateInstance, Array.newArray, clones, ...) for call number `call`, as a
 * `new` or newarray is counted (-1: none, count them one by one). */
static jint JNICALL native_instance_site(JNIEnv *jni, jclass tracker, jclass c, jint call)
{
    struct host *h = host_get();
    struct alloc_tracker *t = alloc_of(h);
    struct class_info *ci =
        c && t && t->count ? classes_canonical(classes_of(&h->t.classes, h->jvmti, jni, c, &h->t.ids)) : NULL;
    if (!ci || !ci->signature) return -1;
    struct alloc_site *by = call >= 0 ? alloc_sites_at(&t->count->sites, (uint32_t)call) : NULL;
    struct alloc_site *s =
        alloc_sites_made(&t->count->sites, ci, ci->signature, by && by->kind == ASITE_CALL ? by : NULL);
    return s ? (jint)s->number : -1;
}

/* An object JNI made (no bytecode, no event), counted at the native method's stack. */
static jobject jni_made(JNIEnv *jni, jclass cls, jobject obj)
{
    struct host *h = host_get();
    struct alloc_thread *at = obj && counting(h) ? this_thread(alloc_of(h)) : NULL;
    if (at && !at->busy)
        count_one(h, jni, obj, classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids),
                  alloc_site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL, NULL));
    return obj;
}

static jobject JNICALL jni_alloc_object(JNIEnv *jni, jclass cls)
{
    return jni_made(jni, cls, alloc_of(host_get())->jni_table->AllocObject(jni, cls));
}

/* JNI NewObject runs the constructor but makes the object without a `new`. */
static jobject JNICALL jni_new_object_v(JNIEnv *jni, jclass cls, jmethodID init, va_list args)
{
    return jni_made(jni, cls, alloc_of(host_get())->jni_table->NewObjectV(jni, cls, init, args));
}

static jobject JNICALL jni_new_object_a(JNIEnv *jni, jclass cls, jmethodID init, const jvalue *args)
{
    return jni_made(jni, cls, alloc_of(host_get())->jni_table->NewObjectA(jni, cls, init, args));
}

static jobject JNICALL jni_new_object(JNIEnv *jni, jclass cls, jmethodID init, ...)
{
    va_list args;
    va_start(args, init);
    jobject obj = alloc_of(host_get())->jni_table->NewObjectV(jni, cls, init, args);
    va_end(args);
    return jni_made(jni, cls, obj);
}

static void wrap_new_object(jniNativeInterface *ours)
{
    ours->NewObject = jni_new_object;
    ours->NewObjectV = jni_new_object_v;
    ours->NewObjectA = jni_new_object_a;
}

/* ---- live estimates ---- */

/* Sample object of class ci (bytes) held weakly under the group of frame top. */
static void hold_sample(struct alloc_tracker *t, struct alloc_thread *at, JNIEnv *jni, jobject object,
                        const struct frame *top, struct class_info *ci, uint64_t bytes)
{
    struct live_group *g = alloc_sites_group(&t->count->sites, top, ci);
    if (!g) return;
    atomic_fetch_add_explicit(&g->samples, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g->sample_bytes, bytes, memory_order_relaxed);
    site_objects_add(&t->live.objects, at->log, jni, object, g->id, bytes);
}

/*
 * An allocation sample of the JVM's: held weakly under its bytecode site's group (the
 * frame it was made at). One made in a native method is held under its caller's frame
 * too: the rows of what the VM makes (Array.newArray, allocateInstance, clone) start at
 * the call, those of JNI's objects at the native method itself.
 */
static void JNICALL sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                         jlong size)
{
    struct host *h = host_get();
    struct alloc_thread *at = event_thread(h, jni, thread);
    if (!at) return;
    struct alloc_tracker *t = alloc_of(h);
    struct class_info *ci = classes_canonical(classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids));
    if (!ci) return;
    uint64_t bytes = size > 8 ? ((uint64_t)size + 7) & ~(uint64_t)7 : 8;
    if (host_depth(h) <= 0) {
        hold_sample(t, at, jni, object, NULL, ci, bytes);
        return;
    }
    jvmtiFrameInfo f[2];
    jint n = alloc_walk_stack(h, jni, thread, f, 2);
    for (jint i = 0; i < n && i < 2; i++) {
        struct trace *tr = traces_of(&h->t.traces, h->jvmti, jni, 0, &f[i], 1);
        if (tr && tr->nframes) hold_sample(t, at, jni, object, tr->frames[0], ci, bytes);
        if (f[i].location != -1) break; /* a Java frame: the site itself */
    }
}

static void add_group_live(uint32_t id, uint64_t size, uint32_t weight, void *ctx)
{
    struct live_group *g = alloc_sites_group_by_id(ctx, id & ~SITE_REF_SAMPLED);
    if (g) {
        g->live++;
        g->live_bytes += size;
    }
}

static uint64_t scaled(uint64_t n, uint64_t part, uint64_t whole)
{
    return whole ? (uint64_t)((long double)n * (long double)part / (long double)whole + 0.5L) : 0;
}

/* Each row's live counts: its allocations so far times its group's share alive. */
static void estimate_live(struct alloc_tracker *t)
{
    uint32_t n = sites_count(&t->sites);
    for (uint32_t i = 1; i <= n; i++) {
        struct site *s = sites_by_id(&t->sites, i);
        const struct frame *top = s->trace->nframes ? s->trace->frames[0] : NULL;
        struct live_group *g = alloc_sites_group_find(&t->count->sites, top, s->cls);
        uint64_t objs = __atomic_load_n(&s->given_objs, __ATOMIC_RELAXED);
        uint64_t bytes = __atomic_load_n(&s->given_bytes, __ATOMIC_RELAXED);
        s->live_objs = g ? scaled(objs, g->live, atomic_load(&g->samples)) : 0;
        s->live_bytes = g ? scaled(bytes, g->live_bytes, atomic_load(&g->sample_bytes)) : 0;
    }
}

/* ---- a dump: the Tracker's counts into the site table ---- */

/* Site s's new allocations (objs, bytes) split among its traces by their weights. */
static void give(struct host *h, struct alloc_site *s, struct class_info *ci, uint64_t objs, uint64_t bytes)
{
    struct alloc_tracker *t = alloc_of(h);
    uint32_t k = 0;
    for (struct site_trace *p = atomic_load(&s->traces); p; p = p->next) k++;
    if (k == 0) { /* never sampled (the first allocation always is): not lost all the same */
        struct site *row = sites_of(&t->sites, &h->t.traces.empty, ci);
        if (!row) return;
        atomic_fetch_add(&row->alloc_objs, objs);
        atomic_fetch_add(&row->alloc_bytes, bytes);
        __atomic_fetch_add(&row->given_objs, objs, __ATOMIC_RELAXED);
        __atomic_fetch_add(&row->given_bytes, bytes, __ATOMIC_RELAXED);
        return;
    }
    uint64_t *w = calloc(4 * (size_t)k, sizeof *w);
    struct site_trace **tr = calloc(k, sizeof *tr);
    if (!w || !tr) {
        free(w);
        free(tr);
        return;
    }
    uint32_t i = 0;
    for (struct site_trace *p = atomic_load(&s->traces); p && i < k; p = p->next, i++) {
        tr[i] = p;
        w[i] = atomic_load(&p->objs);
        w[k + i] = s->kind == ASITE_NEW ? w[i] : atomic_load(&p->bytes);
    }
    alloc_sites_split(objs, w, k, w + 2 * k);
    alloc_sites_split(bytes, w + k, k, w + 3 * k);
    for (i = 0; i < k; i++) {
        struct site *row = sites_of(&t->sites, tr[i]->trace, ci);
        if (!row) continue;
        atomic_fetch_add(&row->alloc_objs, w[2 * k + i]);
        atomic_fetch_add(&row->alloc_bytes, w[3 * k + i]);
        __atomic_fetch_add(&row->given_objs, w[2 * k + i], __ATOMIC_RELAXED);
        __atomic_fetch_add(&row->given_bytes, w[3 * k + i], __ATOMIC_RELAXED);
        if (k > 1) atomic_store(&row->apportioned, true);
    }
    free(w);
    free(tr);
}

/* The Tracker's counts so far (two longs a site), from every thread. */
static void merge(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_count *c = t->count;
    if (!t->tracker || !c->sites_sum) return;
    struct alloc_thread *at = this_thread(t);
    if (at) at->busy = true;
    jlongArray sums = (*jni)->CallStaticObjectMethod(jni, t->tracker, c->sites_sum);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    jsize len = sums ? (*jni)->GetArrayLength(jni, sums) : 0;
    jlong *v = len ? malloc((size_t)len * sizeof *v) : NULL;
    if (v) (*jni)->GetLongArrayRegion(jni, sums, 0, len, v);
    uint32_t n = v ? (uint32_t)(len / 2) : 0, known = alloc_sites_count(&c->sites);
    for (uint32_t i = 0; i < n && i < known; i++) {
        struct alloc_site *s = alloc_sites_at(&c->sites, i);
        uint64_t objs = (uint64_t)v[2 * i];
        if (!s || objs <= s->given_objs) continue;
        struct class_info *ci = alloc_site_class(h, jni, s);
        if (!ci) continue; /* kept for a dump that knows the class */
        uint64_t more = objs - s->given_objs, size = s->kind == ASITE_NEW ? alloc_instance_size(h, jni, ci) : 0;
        uint64_t bytes = s->kind == ASITE_NEW ? more * size : (uint64_t)v[2 * i + 1] - s->given_bytes;
        give(h, s, ci, more, bytes);
        s->given_objs = objs;
        s->given_bytes += bytes;
    }
    free(v);
    if (sums) (*jni)->DeleteLocalRef(jni, sums);
    if (at) at->busy = false;
}

void alloc_counted_collect(struct host *h, JNIEnv *jni)
{
    struct alloc_count *c = count_of(h);
    if (!c || !jni) return;
    pthread_mutex_lock(&c->merge_lock);
    merge(h, jni);
    pthread_mutex_unlock(&c->merge_lock);
}

/* At a dump (gc: a GC may be forced first) or after a GC (timeline=): the counts merged,
 * the samples swept, each row's live estimated. */
static void count_live(struct host *h, JNIEnv *jni, bool gc)
{
    struct alloc_tracker *t = alloc_of(h);
    alloc_counted_collect(h, jni);
    uint32_t ng = alloc_sites_group_count(&t->count->sites);
    for (uint32_t i = 1; i <= ng; i++) {
        struct live_group *g = alloc_sites_group_by_id(&t->count->sites, i);
        g->live = g->live_bytes = 0;
    }
    if (gc && host_can_force_gc(h)) (*h->jvmti)->ForceGarbageCollection(h->jvmti);
    if (gc)
        site_objects_sweep(&t->live.objects, jni, add_group_live, &t->count->sites);
    else
        site_objects_sweep_at_gc(&t->live.objects, jni, add_group_live, &t->count->sites, true);
    estimate_live(t);
    if (t->stats.on)
        log_plain("HPROF: callers=sampled: %u sites numbered, %llu samples of callers (%llu ms of CPU), %u live groups",
                  alloc_sites_count(&t->count->sites), (unsigned long long)atomic_load(&t->count->samples),
                  (unsigned long long)(atomic_load(&t->count->sample_ns) / 1000000), ng);
}

/* ---- set-up ---- */

/* Whether VMObjectAlloc leaves compiled code as it is: before JDK 22 (JDK-8307462) the
 * JIT's inline Unsafe.allocateInstance did not look at it. JVMTI's major version is the
 * JDK's feature release. */
static bool vm_reports_cheap(jvmtiEnv *jvmti)
{
    jint v = 0;
    return (*jvmti)->GetVersionNumber(jvmti, &v) == JVMTI_ERROR_NONE &&
        ((v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) < 22;
}

static bool vm_reports(struct host *h) { return count_of(h) && count_of(h)->vm_reports; }

static void init(struct host *h, jvmtiCapabilities *caps)
{
    struct alloc_tracker *t = alloc_of(h);
    t->count = calloc(1, sizeof *t->count);
    if (t->count) {
        alloc_sites_init(&t->count->sites);
        pthread_mutex_init(&t->count->merge_lock, NULL);
    }
    alloc_exact_keep_compiled(h);
    if (t->count && (t->count->vm_reports = vm_reports_cheap(h->jvmti))) caps->can_generate_vm_object_alloc_events = 1;
    caps->can_generate_sampled_object_alloc_events = 1;
    t->walker = async_trace_new();
    t->stats.on = env_switch("HPROF_STACK_STATS", false);
}

static int ready(struct host *h)
{
    if (!alloc_of(h)->count) return -1;
    if ((*h->jvmti)->SetHeapSamplingInterval(h->jvmti, LIVE_INTERVAL) != JVMTI_ERROR_NONE) {
        log_error("the JVM refused the allocation sampling interval of callers=sampled's live counts");
        return -1;
    }
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    return 0;
}

/* The sizes of arrays by element code, from the JVM's own for lengths 0..8: each
 * array's bytes are (base + length << shift) rounded up to 8. */
static void learn_array_sizes(struct host *h, JNIEnv *jni, jclass tracker)
{
    jlong base[ELEMENT_CODES] = {0};
    jint shift[ELEMENT_CODES] = {0};
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    for (int code = 4; code < ELEMENT_CODES && object; code++) {
        jlong size[9] = {0};
        for (int len = 0; len <= 8; len++) {
            jobject a = NULL;
            switch (code) {
            case 4: a = (*jni)->NewBooleanArray(jni, len); break;
            case 5: a = (*jni)->NewCharArray(jni, len); break;
            case 6: a = (*jni)->NewFloatArray(jni, len); break;
            case 7: a = (*jni)->NewDoubleArray(jni, len); break;
            case 8: a = (*jni)->NewByteArray(jni, len); break;
            case 9: a = (*jni)->NewShortArray(jni, len); break;
            case 10: a = (*jni)->NewIntArray(jni, len); break;
            case 11: a = (*jni)->NewLongArray(jni, len); break;
            default: a = (*jni)->NewObjectArray(jni, len, object, NULL); break;
            }
            if (a) (*h->jvmti)->GetObjectSize(h->jvmti, a, &size[len]);
            if (a) (*jni)->DeleteLocalRef(jni, a);
        }
        jlong elem = (size[8] - size[0]) / 8;
        int s = 0;
        while (s < 3 && (1 << s) < elem) s++;
        shift[code] = s;
        /* The header before rounding: the smallest that rounds to every size seen. */
        for (jlong hdr = size[0] - 7; hdr <= size[0]; hdr++) {
            bool fits = hdr > 0;
            for (int len = 0; len <= 8 && fits; len++) fits = ((hdr + ((jlong)len << s) + 7) & ~7L) == size[len];
            if (fits) {
                base[code] = hdr;
                break;
            }
        }
    }
    (*jni)->ExceptionClear(jni);
    if (object) (*jni)->DeleteLocalRef(jni, object);
    jfieldID fb = (*jni)->GetStaticFieldID(jni, tracker, "ARRAY_BASE", "[J");
    jfieldID fs = fb ? (*jni)->GetStaticFieldID(jni, tracker, "ARRAY_SHIFT", "[I") : NULL;
    jobject ab = fs ? (*jni)->GetStaticObjectField(jni, tracker, fb) : NULL;
    jobject as = ab ? (*jni)->GetStaticObjectField(jni, tracker, fs) : NULL;
    if (ab && as) {
        (*jni)->SetLongArrayRegion(jni, ab, 0, ELEMENT_CODES, base);
        (*jni)->SetIntArrayRegion(jni, as, 0, ELEMENT_CODES, shift);
    }
    if (ab) (*jni)->DeleteLocalRef(jni, ab);
    if (as) (*jni)->DeleteLocalRef(jni, as);
    (*jni)->ExceptionClear(jni);
}

static void bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t || !tracker || !t->count) return;
    JNINativeMethod natives[] = {{"sampled", "(IJJJ)J", (void *)native_sampled},
                                 {"allocatedInstance", "(Ljava/lang/Object;)V", (void *)native_allocated_instance},
                                 {"newVirtualClone", "(Ljava/lang/Object;)V", (void *)native_new_virtual_clone},
                                 {"instanceSite", "(Ljava/lang/Class;I)I", (void *)native_instance_site}};
    t->count->sites_sum = (*jni)->GetStaticMethodID(jni, tracker, "sitesSum", "()[J");
    if (!t->count->sites_sum ||
        (*jni)->RegisterNatives(jni, tracker, natives, (jint)(sizeof natives / sizeof *natives)) != 0) {
        (*jni)->ExceptionClear(jni);
        log_error("the Tracker class does not match this agent; heap=sites has no data");
        return;
    }
    learn_array_sizes(h, jni, tracker);
    /* The Tracker's frames over an allocation sampled or counted by a hook. */
    static const char *const skip[][2] = {
        {"sampled", "(IJJJ)J"},
        {"sample", "(I[JI)V"},
        {"newSite", "(I)V"},
        {"countArray", "(III)V"},
        {"arraySite", "(III)V"},
        {"countLevel", "(Ljava/lang/Object;I)V"},
        {"multiSite", "(Ljava/lang/Object;I)V"},
        {"countObject", "(I)V"},
        {"allocatedInstance", "(Ljava/lang/Object;)V"},
        {"allocInst", "(Ljava/lang/Object;I)V"},
        {"madeAll", "(Ljava/lang/Object;I)V"},
        {"countAll", "(Ljava/lang/Object;I)V"},
        {"clonedVirtual", "(Ljava/lang/Object;)V"},
        {"newVirtualClone", "(Ljava/lang/Object;)V"},
        {"countMade", "(Ljava/lang/Object;I)V"},
        {"countInstance", "(Ljava/lang/Class;ILjava/lang/Object;)V"},
        {"countAt", "([ILjava/lang/Object;)V"},
    };
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        alloc_exact_add_skip(t, jni, tracker, skip[i][0], skip[i][1], true);
    /* Object.clone, to tell a class that does not override it (newVirtualClone) */
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    if (object) t->object_clone = (*jni)->GetMethodID(jni, object, "clone", "()Ljava/lang/Object;");
    (*jni)->ExceptionClear(jni);
    if (object) (*jni)->DeleteLocalRef(jni, object);
    if (t->count->vm_reports) learn_hooked_natives(t->count, jni, t->object_clone);
    t->tracker = (*jni)->NewGlobalRef(jni, tracker);
    t->allocs = (*jni)->GetStaticFieldID(jni, tracker, "allocs", "I");
    if (!t->allocs) (*jni)->ExceptionClear(jni);
    atomic_store(&t->bound, true);
}

static void vm_init(struct host *h)
{
    alloc_exact_wrap_jni(h, jni_alloc_object, wrap_new_object);
    async_trace_vm_init(alloc_of(h)->walker, h->jvmti, NULL);
    JNIEnv *jni = NULL;
    if ((*h->vm)->GetEnv(h->vm, (void **)&jni, JNI_VERSION_1_6) == JNI_OK) alloc_name_loaded_classes(h, jni);
}

/* Samples held only while counting: a paused agent costs no sampling. */
static void enable(struct host *h, bool on)
{
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                          NULL);
}

const struct alloc_mode alloc_counted_mode = {.init = init,
                                              .ready = ready,
                                              .enable = enable,
                                              .bind = bind,
                                              .vm_init = vm_init,
                                              .vm_reports = vm_reports,
                                              .vm_object_alloc = vm_object_alloc,
                                              .sampled_object_alloc = sampled_object_alloc,
                                              .count_live = count_live,
                                              .class_prepare = class_prepare};
