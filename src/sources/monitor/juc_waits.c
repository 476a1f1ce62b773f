/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/monitor/juc_waits.h"
#include "sources/monitor/juc_waits_state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "sources/bci/tracker.h"
#include "sources/host.h"
#include "sources/hotspot/async_trace.h"
#include "sources/resolve.h"
#include "tables/classes.h"
#include "tables/methods.h"
#include "tables/monitors.h"
#include "tables/threads.h"
#include "tables/traces.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/log.h"

/* The classes rewritten, by the hooks' class number (juc_waits_state.h). */
static const char *const TARGETS[NTARGETS] = {
    "java/util/concurrent/locks/LockSupport",
    "java/util/concurrent/locks/AbstractQueuedSynchronizer",
    "java/util/concurrent/locks/AbstractQueuedLongSynchronizer",
    "java/util/concurrent/locks/StampedLock",
};

static int target_of(const char *name)
{
    for (int i = 0; i < NTARGETS; i++)
        if (strcmp(name, TARGETS[i]) == 0) return i;
    return -1;
}

/* Which methods of class (intptr_t)ctx get which hooks. */
static unsigned filter(void *ctx, const char *class_name, const char *name, const char *desc, unsigned access,
                       unsigned mnum)
{
    const unsigned exits = CF_INJ_RETURN | CF_INJ_EXC_EXIT;
    switch ((int)(intptr_t)ctx) {
    case C_PARK:
        return strcmp(name, "park") == 0 || strcmp(name, "parkNanos") == 0 || strcmp(name, "parkUntil") == 0
            ? CF_INJ_ENTRY | exits
            : 0;
    case C_AQS:
        return strcmp(name, "acquire") == 0 &&
                strncmp(desc, "(Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$Node;", 61) == 0
            ? exits
            : 0;
    case C_AQLS:
        return strcmp(name, "acquire") == 0 &&
                strncmp(desc, "(Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer$Node;", 65) == 0
            ? exits
            : 0;
    default: return strcmp(name, "acquireWrite") == 0 || strcmp(name, "acquireRead") == 0 ? exits : 0;
    }
}

static void JNICALL on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined, jobject loader,
                                       const char *name, jobject protection_domain, jint len, const unsigned char *data,
                                       jint *new_len, unsigned char **new_data)
{
    int c = name && !loader ? target_of(name) : -1;
    struct host *h = c >= 0 ? host_get() : NULL;
    if (!h || !host_juc(h) || atomic_load(&h->phase) == PHASE_DEAD) return;
    /* Before the module system is up the boot loader cannot find the Tracker: these are
     * rewritten at VM init instead (juc_waits_start). */
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*jvmti)->GetPhase(jvmti, &phase);
    if (phase == JVMTI_PHASE_PRIMORDIAL || phase == JVMTI_PHASE_ONLOAD) return;
    cf_inject_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.tracker_class = TRACKER_CLASS;
    spec.entry_name = "JucEntry";
    spec.entry_desc = "(IILjava/lang/Object;)V";
    spec.entry_arg = 1;
    spec.return_name = "JucExit";
    spec.return_desc = "(II)V";
    spec.exception_exit = 1;
    spec.cnum = (unsigned)c;
    spec.filter = filter;
    spec.filter_ctx = (void *)(intptr_t)c;
    cf_result res;
    unsigned char *out = NULL;
    if (cf_instrument(data, (size_t)len, &spec, &res) == CF_OK &&
        (*jvmti)->Allocate(jvmti, (jlong)res.len, &out) == JVMTI_ERROR_NONE) {
        memcpy(out, res.data, res.len);
        *new_data = out;
        *new_len = (jint)res.len;
        atomic_store(&host_juc(h)->hooked[c], res.instrumented);
    }
    cf_result_free(&res);
}

/* The fast walk names a method only once its ID exists: every class's are made as it
 * is prepared (sources/hotspot/async_trace.h). */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls)
{
    struct host *h = host_get();
    if (h && host_juc(h)) async_trace_class_prepared(host_juc(h)->walker, jvmti, cls);
}

int juc_waits_init(struct host *h, struct monitor_table *contended, struct monitor_table *waits)
{
    jvmtiEnv *env = NULL;
    if ((*h->vm)->GetEnv(h->vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK || !env) return -1;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_retransform_classes = 1;
    caps.can_generate_all_class_hook_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.ClassFileLoadHook = on_class_file_load;
    cb.ClassLoad = async_trace_on_class_load;
    cb.ClassPrepare = on_class_prepare;
    struct juc_waits *w = calloc(1, sizeof *w);
    if (!w || (*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE ||
        (*env)->SetEventCallbacks(env, &cb, (jint)sizeof cb) != JVMTI_ERROR_NONE) {
        free(w);
        (*env)->DisposeEnvironment(env);
        return -1;
    }
    w->jvmti = env;
    w->contended = contended;
    w->waits = waits;
    for (int i = 0; i < STRIPES; i++) pthread_mutex_init(&w->stripes[i].lock, NULL);
    pthread_mutex_init(&w->bclasses_lock, NULL);
    w->walker = async_trace_new();
    host_set_state(h, SOURCE_JUC, w);
    (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    async_trace_enable_events(w->walker, env);
    return 0;
}

/* ---- the waits under way, by thread id ---- */

static struct stripe *stripe_of(struct juc_waits *w, jlong tid)
{
    return &w->stripes[(uint64_t)tid * 0x9e3779b97f4a7c15u >> 58];
}

/* Whether the stripe holds no wait, without its lock: enough to know that it holds none of
 * the calling thread's, which only that thread puts there (and sees it put). */
static bool stripe_empty(struct stripe *s) { return atomic_load_explicit(&s->n, memory_order_relaxed) == 0; }

/* Takes the thread's wait out of the stripe (its lock held); NULL if none. */
static struct juc_wait *take(struct stripe *s, jlong tid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i]->tid == tid) {
            struct juc_wait *x = s->v[i];
            s->v[i] = s->v[--s->n];
            return x;
        }
    return NULL;
}

static struct juc_wait *find(struct stripe *s, jlong tid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i]->tid == tid) return s->v[i];
    return NULL;
}

/* Into the stripe (its lock held); false without memory, or when the waits were
 * forgotten since x began (forget_all counts gen up before it clears any stripe, so a
 * wait added before that is cleared with the rest). */
static bool add(struct juc_waits *w, struct stripe *s, struct juc_wait *x)
{
    if (x->gen != atomic_load(&w->gen)) return false;
    if (!grow_array((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v)) return false;
    s->v[s->n++] = x;
    return true;
}

static bool put(struct juc_waits *w, struct stripe *s, struct juc_wait *x)
{
    pthread_mutex_lock(&s->lock);
    bool ok = add(w, s, x);
    pthread_mutex_unlock(&s->lock);
    return ok;
}

static void release(JNIEnv *jni, struct juc_wait *x)
{
    if (!x) return;
    if (x->blocker) (*jni)->DeleteWeakGlobalRef(jni, x->blocker);
    free(x);
}

/* Keeps a wait that ended for its thread's next, with its blocker's weak reference: a
 * thread that parks on the same object again (a pool's worker on its queue, a lock
 * handed around) then takes neither memory nor a new reference, whose making takes a
 * lock of the JVM's. Returns the stripe's oldest when there was no room, for the caller
 * to release. Lock held. */
static struct juc_wait *keep_spare(struct stripe *s, struct juc_wait *x)
{
    struct juc_wait *old = NULL;
    int n = s->nspare;
    if (n == SPARES) {
        old = s->spare[0];
        memmove(s->spare, s->spare + 1, (SPARES - 1) * sizeof *s->spare);
        n--;
    }
    s->spare[n] = x;
    s->nspare = n + 1;
    return old;
}

/* The thread's spare, taken out of the stripe; NULL if none. */
static struct juc_wait *take_spare(struct stripe *s, jlong tid)
{
    if (atomic_load_explicit(&s->nspare, memory_order_relaxed) == 0) return NULL;
    struct juc_wait *x = NULL;
    pthread_mutex_lock(&s->lock);
    int n = s->nspare;
    for (int i = 0; i < n; i++)
        if (s->spare[i]->tid == tid) {
            x = s->spare[i];
            s->spare[i] = s->spare[n - 1];
            s->nspare = n - 1;
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return x;
}

/* ---- a park begins ---- */

static struct method_info *method_of(struct host *h, JNIEnv *jni, jmethodID id)
{
    return methods_of(&h->t.methods, h->jvmti, jni, id);
}

static bool class_is(const struct method_info *m, const char *name)
{
    return m && m->cls && m->cls->name && strcmp(m->cls->name, name) == 0;
}

static bool class_in(const struct method_info *m, const char *prefix)
{
    return m && m->cls && m->cls->name && strncmp(m->cls->name, prefix, strlen(prefix)) == 0;
}

/* One of the rewritten acquires, whose end counts the parks made in it. */
static bool is_acquire(const struct method_info *m)
{
    if (!m || !m->name) return false;
    if (class_is(m, "java.util.concurrent.locks.StampedLock"))
        return strcmp(m->name, "acquireWrite") == 0 || strcmp(m->name, "acquireRead") == 0;
    return (class_is(m, "java.util.concurrent.locks.AbstractQueuedSynchronizer") ||
            class_is(m, "java.util.concurrent.locks.AbstractQueuedLongSynchronizer")) &&
        strcmp(m->name, "acquire") == 0 && m->signature && strstr(m->signature, "$Node;") != NULL;
}

static enum method_kind kind_named(const struct method_info *m)
{
    if (class_is(m, "hprof.Tracker")) return K_TRACKER;
    if (is_acquire(m)) return K_ACQUIRE;
    if (class_in(m, "java.util.concurrent.locks.")) return K_LOCKS;
    return class_in(m, "java.util.concurrent.") ? K_JUC : K_OTHER;
}

/* What the method is to the fold: cached, since every park of a program looks at the
 * same few methods and the methods table takes a lock per lookup. */
static enum method_kind kind_of(struct host *h, JNIEnv *jni, jmethodID id)
{
    struct juc_waits *w = host_juc(h);
    uintptr_t key = (uintptr_t)id;
    unsigned i = (unsigned)(hash_mix64(key) >> 40);
    for (int p = 0; p < CACHE_PROBE; p++) {
        uintptr_t v = atomic_load_explicit(&w->kinds[(i + p) & (KIND_SLOTS - 1)], memory_order_relaxed);
        if (!v) break;
        if ((v & (ID_BITS)) == key) return (enum method_kind)(v >> 56);
    }
    enum method_kind k = kind_named(method_of(h, jni, id));
    if (key >> 56) return k; /* not an address: not kept */
    uintptr_t want = key | (uintptr_t)k << 56;
    for (int p = 0; p < CACHE_PROBE; p++) {
        uintptr_t none = 0;
        _Atomic uintptr_t *slot = &w->kinds[(i + p) & (KIND_SLOTS - 1)];
        if (atomic_compare_exchange_strong(slot, &none, want) || (none & (ID_BITS)) == key) break;
    }
    return k;
}

/* The park's frames: the fast walk, or GetStackTrace where it cannot answer (a virtual
 * thread, a GC under way). */
static jint walk(struct host *h, JNIEnv *jni, jvmtiFrameInfo *frames, int want)
{
    int n = async_trace_current(host_juc(h)->walker, jni, frames, want);
    if (n >= 0) return n;
    jint count = 0;
    if ((*h->jvmti)->GetStackTrace(h->jvmti, NULL, 0, want, frames, &count) != JVMTI_ERROR_NONE) return 0;
    return count;
}

/* Where the fold puts the top of the trace among count frames (the first past the
 * Tracker's is LockSupport's park); in_acquire: its caller is one of the acquires. */
static int fold_top(struct host *h, JNIEnv *jni, const jvmtiFrameInfo *frames, int count, bool *in_acquire)
{
    int k = 0;
    while (k < count && kind_of(h, jni, frames[k].method) == K_TRACKER) k++;
    *in_acquire = k + 1 < count && kind_of(h, jni, frames[k + 1].method) == K_ACQUIRE;
    int top = k;
    for (int i = k; i < count && i < k + FOLD_MAX; i++) {
        enum method_kind m = kind_of(h, jni, frames[i].method);
        if (m == K_OTHER || m == K_TRACKER) break;
        if (m != K_JUC) top = i;
    }
    return top;
}

/* The trace of the park under way on this thread, folded (see juc_waits.h). The walk
 * asks first for as many frames as a lock's usual fold and the depth take, since its
 * cost grows with the frames, then for all the fold may need if those fell short. */
static struct trace *park_trace(struct host *h, JNIEnv *jni, uint32_t serial, bool *in_acquire, struct last_site *last)
{
    int depth = host_depth(h), want = depth + FOLD_MAX + 2, first = depth + FOLD_FIRST;
    jvmtiFrameInfo small[128];
    jvmtiFrameInfo *frames = want <= 128 ? small : malloc((size_t)want * sizeof *frames);
    jint count = frames ? walk(h, jni, frames, first < want ? first : want) : 0;
    uint32_t tserial = h->opt->thread ? serial : 0;
    struct trace *t = &h->t.traces.empty;
    if (count > 0 && count == last->n && last->serial == tserial &&
        memcmp(frames, last->walked, (size_t)count * sizeof *frames) == 0) {
        *in_acquire = last->in_acquire; /* where the thread waited last time */
        t = last->trace;
        goto out;
    }
    int top = fold_top(h, jni, frames, count, in_acquire);
    bool second = first < want && count == first && top + depth > count;
    if (second) {
        count = walk(h, jni, frames, want);
        top = fold_top(h, jni, frames, count, in_acquire);
    }
    int n = count - top < depth ? count - top : depth;
    last->n = 0;
    struct trace *got = n > 0 ? traces_of(&h->t.traces, h->jvmti, jni, tserial, frames + top, n) : NULL;
    if (got) t = got;
    if (got && !second && count <= WALK_FRAMES) { /* kept for the next wait of this thread */
        memcpy(last->walked, frames, (size_t)count * sizeof *frames);
        last->n = count;
        last->in_acquire = *in_acquire;
        last->serial = tserial;
        last->trace = got;
        last->entry = NULL;
    }
out:
    if (frames != small) free(frames);
    return t;
}

/* A lock, by the rule of juc_waits.h. */
static bool is_lock(struct juc_waits *w, JNIEnv *jni, jobject blocker)
{
    if (!blocker || (w->latch && (*jni)->IsInstanceOf(jni, blocker, w->latch))) return false;
    jclass kinds[] = {w->aqs, w->aqls, w->stamped, w->lock};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i] && (*jni)->IsInstanceOf(jni, blocker, kinds[i])) return true;
    return false;
}

/* is_lock by the blocker's class entry, cached (a program parks on a few classes); an
 * entry taken by another class of its name since has another generation. */
static bool is_lock_cached(struct juc_waits *w, JNIEnv *jni, jobject blocker, struct class_info *cls)
{
    if (!blocker || !cls) return is_lock(w, jni, blocker);
    uint32_t gen = atomic_load_explicit(&cls->generation, memory_order_acquire) << 1;
    unsigned i = (unsigned)(hash_mix64((uint64_t)(uintptr_t)cls) >> 40);
    for (int p = 0; p < CACHE_PROBE; p++) {
        struct lock_slot *s = &w->locks[(i + p) & (LOCK_SLOTS - 1)];
        struct class_info *c = atomic_load_explicit(&s->cls, memory_order_acquire);
        if (!c) break;
        uint32_t v = atomic_load_explicit(&s->gen_lock, memory_order_acquire);
        if (c == cls && (v & ~1u) == gen) return v & 1;
    }
    bool yes = is_lock(w, jni, blocker);
    for (int p = 0; p < CACHE_PROBE; p++) {
        struct lock_slot *s = &w->locks[(i + p) & (LOCK_SLOTS - 1)];
        struct class_info *none = NULL;
        if (atomic_compare_exchange_strong(&s->cls, &none, cls) || none == cls) {
            atomic_store_explicit(&s->gen_lock, gen | yes, memory_order_release);
            break;
        }
    }
    return yes;
}

/* A park inside an acquire that parked before: the same wait goes on. Anything else the
 * thread kept (an acquire whose end was not seen: it began before the hooks) goes. */
static bool parks_again(struct juc_waits *w, JNIEnv *jni, jlong tid, jobject blocker)
{
    struct stripe *s = stripe_of(w, tid);
    if (stripe_empty(s)) return false;
    pthread_mutex_lock(&s->lock);
    struct juc_wait *x = find(s, tid);
    if (x && x->in_acquire && blocker && x->blocker && (*jni)->IsSameObject(jni, x->blocker, blocker)) {
        x->parked = true;
        pthread_mutex_unlock(&s->lock);
        return true;
    }
    x = x ? take(s, tid) : NULL;
    pthread_mutex_unlock(&s->lock);
    release(jni, x);
    return false;
}

/* The entry of the blocker's class and whether it is a lock: from the classes seen
 * before, else looked up (and kept while there is room). */
static struct class_info *blocker_class(struct host *h, struct juc_waits *w, JNIEnv *jni, jobject blocker, bool *lock)
{
    jclass c = (*jni)->GetObjectClass(jni, blocker);
    int n = atomic_load_explicit(&w->nbclasses, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if ((*jni)->IsSameObject(jni, w->bclasses[i].cls, c)) { /* (one cleared is no class's) */
            (*jni)->DeleteLocalRef(jni, c);
            *lock = w->bclasses[i].lock;
            return w->bclasses[i].info;
        }
    struct class_info *cls = classes_of(&h->t.classes, h->jvmti, jni, c, &h->t.ids);
    *lock = is_lock_cached(w, jni, blocker, cls);
    pthread_mutex_lock(&w->bclasses_lock);
    n = atomic_load_explicit(&w->nbclasses, memory_order_relaxed);
    struct blocker_class *b = &w->bclasses[n];
    if (cls && n < BLOCKER_CLASSES && (b->cls = (*jni)->NewWeakGlobalRef(jni, c)) != NULL) {
        b->info = cls;
        b->lock = *lock;
        atomic_store_explicit(&w->nbclasses, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&w->bclasses_lock);
    (*jni)->DeleteLocalRef(jni, c);
    return cls;
}

/* A wait begins: its thread, object and start, kept in the stripe before the thread
 * sleeps. Where it waits (the walk, the fold, the row) is found at its first park's
 * exit (resolve): a walk before the park kept the thread from sleeping, and a lock
 * handed among 4 threads ran 8% slower with 2 us spent there against 3.5% after it. */
static void begin(struct host *h, struct juc_waits *w, JNIEnv *jni, jlong tid, jobject blocker)
{
    struct stripe *s = stripe_of(w, tid);
    struct juc_wait *x = take_spare(s, tid);
    if (!x && !(x = calloc(1, sizeof *x))) return;
    /* the spare's last place stays where it is (x->last: no copy of its frames) */
    jweak kept = x->blocker;
    struct class_info *kept_cls = x->cls;
    bool kept_lock = x->contention;
    const struct thread_info *ti = threads_lookup(h->jvmti, NULL);
    x->tid = tid;
    x->gen = atomic_load(&w->gen);
    x->serial = ti ? ti->serial : 0;
    x->in_acquire = x->contention = x->resolved = false;
    x->parked = true;
    x->entry = NULL;
    x->blocker = NULL;
    x->cls = NULL;
    if (blocker) {
        /* the object of the thread's last wait again: its class too */
        bool same = kept && kept_cls && (*jni)->IsSameObject(jni, kept, blocker);
        x->cls = same ? kept_cls : blocker_class(h, w, jni, blocker, &x->contention);
        if (same) x->contention = kept_lock;
        x->blocker = same ? kept : (*jni)->NewWeakGlobalRef(jni, blocker);
        if (same) kept = NULL;
    }
    if (kept) (*jni)->DeleteWeakGlobalRef(jni, kept);
    x->start = clock_ns();
    if (!put(w, s, x)) release(jni, x);
}

/* Where wait x waited, found on its thread at its first park's exit (the same frames as
 * at the park's entry, the Tracker's exit hook on top, which the fold drops): whether it
 * parked inside an acquire, and its row. x is the caller's alone (out of the stripe). */
static void resolve(struct host *h, struct juc_waits *w, JNIEnv *jni, struct juc_wait *x)
{
    struct last_site *last = &x->last;
    struct trace *t = park_trace(h, jni, x->serial, &x->in_acquire, last);
    bool again = last->n && last->trace == t && last->entry && last->cls == x->cls && last->contention == x->contention;
    x->entry = again ? last->entry : monitors_of(x->contention ? w->contended : w->waits, t, x->cls, true);
    if (last->n && last->trace == t) {
        last->cls = x->cls;
        last->contention = x->contention;
        last->entry = x->entry;
    }
    x->resolved = true;
}

/* Tracker.parkBegin: at the entry of a park of LockSupport, with its blocker (NULL for
 * the parks without one, which may have set the thread's blocker before). */
static void JNICALL native_park_begin(JNIEnv *jni, jclass cls, jint c, jint m, jthread thread, jobject blocker)
{
    struct host *h = host_get();
    struct juc_waits *w = h ? host_juc(h) : NULL;
    if (!w || !thread || !atomic_load(&w->on) || !host_live(h)) return;
    jlong tid = (*jni)->GetLongField(jni, thread, w->tid);
    jobject b = blocker ? blocker : (*jni)->GetObjectField(jni, thread, w->park_blocker);
    if (!parks_again(w, jni, tid, b) && !host_is_own_current(h, jni, thread)) begin(h, w, jni, tid, b);
}

/* Tracker.waitEnd: at the exit of a park (class 0) or of an acquire. */
static void JNICALL native_wait_end(JNIEnv *jni, jclass cls, jint c, jint m, jthread thread)
{
    uint64_t now = clock_ns();
    struct host *h = host_get();
    struct juc_waits *w = h ? host_juc(h) : NULL;
    if (!w || !thread || !atomic_load(&w->on)) return;
    jlong tid = (*jni)->GetLongField(jni, thread, w->tid);
    struct stripe *s = stripe_of(w, tid);
    if (stripe_empty(s)) return; /* an acquire that did not park, most often */
    pthread_mutex_lock(&s->lock);
    struct juc_wait *x = find(s, tid);
    bool taken = false;
    if (x && !x->resolved) {
        /* its first park's exit: out of the stripe while the walk looks where it waited
         * (no dump sees it parked now, and nothing frees it meanwhile) */
        take(s, tid);
        pthread_mutex_unlock(&s->lock);
        resolve(h, w, jni, x);
        /* an acquire's wait ends at its exit, after this: the walk is not waiting */
        if (x->in_acquire) x->start += clock_ns() - now;
        pthread_mutex_lock(&s->lock);
        taken = true;
    }
    bool ends = x && (c == C_PARK) != x->in_acquire;
    if (x && !ends) {
        if (c == C_PARK) x->parked = false; /* the acquire goes on: it may park again */
        if (taken && !add(w, s, x)) {       /* back into the stripe, for the acquire's end */
            pthread_mutex_unlock(&s->lock);
            release(jni, x);
            return;
        }
        x = NULL;
    }
    if (x && !taken) take(s, tid);
    struct monitor_entry *e = x ? x->entry : NULL;
    uint64_t start = x ? x->start : 0;
    struct juc_wait *old = x ? keep_spare(s, x) : NULL;
    pthread_mutex_unlock(&s->lock);
    if (e) monitors_add(e, now > start ? now - start : 0);
    release(jni, old);
}

/* ---- start, on and off ---- */

static jclass global_class(JNIEnv *jni, const char *name)
{
    jclass c = (*jni)->FindClass(jni, name);
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jclass g = (*jni)->NewGlobalRef(jni, c);
    (*jni)->DeleteLocalRef(jni, c);
    return g;
}

static jfieldID field(JNIEnv *jni, jclass c, const char *name, const char *sig)
{
    jfieldID f = c ? (*jni)->GetFieldID(jni, c, name, sig) : NULL;
    if (!f) (*jni)->ExceptionClear(jni);
    return f;
}

/* The classes and fields the natives use; false if one they cannot do without is missing. */
static bool bind(struct juc_waits *w, JNIEnv *jni)
{
    w->tracker = global_class(jni, TRACKER_CLASS);
    jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
    w->tid = field(jni, thread, "tid", "J");
    w->park_blocker = field(jni, thread, "parkBlocker", "Ljava/lang/Object;");
    if (thread) (*jni)->DeleteLocalRef(jni, thread);
    w->aqs = global_class(jni, TARGETS[C_AQS]);
    w->aqls = global_class(jni, TARGETS[C_AQLS]);
    w->stamped = global_class(jni, TARGETS[C_STAMPED]);
    w->lock = global_class(jni, "java/util/concurrent/locks/Lock");
    w->latch = global_class(jni, "java/util/concurrent/CountDownLatch$Sync");
    w->aos = global_class(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
    w->reentrant = global_class(jni, "java/util/concurrent/locks/ReentrantLock$Sync");
    w->owner = field(jni, w->aos, "exclusiveOwnerThread", "Ljava/lang/Thread;");
    w->state = field(jni, w->aqs, "state", "I");
    w->flag = w->tracker ? (*jni)->GetStaticFieldID(jni, w->tracker, "waits", "Z") : NULL;
    if (!w->flag) (*jni)->ExceptionClear(jni);
    JNINativeMethod natives[] = {
        {"parkBegin", "(IILjava/lang/Thread;Ljava/lang/Object;)V", (void *)native_park_begin},
        {"waitEnd", "(IILjava/lang/Thread;)V", (void *)native_wait_end},
    };
    if (!w->tracker || !w->flag || !w->tid || !w->park_blocker ||
        (*jni)->RegisterNatives(jni, w->tracker, natives, 2) != 0) {
        (*jni)->ExceptionClear(jni);
        w->flag = NULL; /* so that no session turns on hooks whose natives are not there */
        return false;
    }
    return true;
}

/* The four classes rewritten now (loaded first if they were not). */
static void rewrite(struct juc_waits *w, JNIEnv *jni)
{
    jclass classes[NTARGETS];
    jint n = 0;
    for (int i = 0; i < NTARGETS; i++)
        if ((classes[n] = global_class(jni, TARGETS[i])) != NULL) n++;
    if (n > 0 && (*w->jvmti)->RetransformClasses(w->jvmti, n, classes) != JVMTI_ERROR_NONE)
        for (jint i = 0; i < n; i++) (*w->jvmti)->RetransformClasses(w->jvmti, 1, &classes[i]);
    for (jint i = 0; i < n; i++) (*jni)->DeleteGlobalRef(jni, classes[i]);
}

void juc_waits_start(struct host *h, JNIEnv *jni)
{
    struct juc_waits *w = host_juc(h);
    if (!w) return;
    if (!bind(w, jni)) {
        log_warning("monitor=y: the Tracker class does not match this agent; no java.util.concurrent waits");
        return;
    }
    async_trace_vm_init(w->walker, w->jvmti, jni);
    rewrite(w, jni);
    static const unsigned want[NTARGETS] = {6, 1, 1, 2}; /* the methods each class has to hook */
    for (int i = 0; i < NTARGETS; i++)
        if (atomic_load(&w->hooked[i]) < want[i])
            log_warning("monitor=y: %u of the %u methods of %s could be hooked; some java.util.concurrent waits "
                        "are not seen",
                        atomic_load(&w->hooked[i]), want[i], TARGETS[i]);
    juc_waits_enable(h, jni, true);
}

static void forget_all(struct juc_waits *w, JNIEnv *jni)
{
    atomic_fetch_add(&w->gen, 1);
    for (int i = 0; i < STRIPES; i++) {
        struct stripe *s = &w->stripes[i];
        pthread_mutex_lock(&s->lock);
        struct juc_wait **v = s->v, *spare[SPARES];
        size_t n = s->n;
        int nspare = s->nspare;
        memcpy(spare, s->spare, sizeof spare);
        s->v = NULL;
        s->cap = 0;
        s->n = 0;
        s->nspare = 0;
        pthread_mutex_unlock(&s->lock);
        for (size_t k = 0; k < n; k++) release(jni, v[k]);
        for (int k = 0; k < nspare; k++) release(jni, spare[k]);
        free(v);
    }
}

void juc_waits_enable(struct host *h, JNIEnv *jni, bool on)
{
    struct juc_waits *w = host_juc(h);
    if (!w || !w->flag) return;
    if (!jni && (*h->vm)->GetEnv(h->vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) jni = NULL;
    atomic_store(&w->on, on);
    if (!jni) return; /* the hooks still call in, and return at once */
    (*jni)->SetStaticBooleanField(jni, w->tracker, w->flag, on ? JNI_TRUE : JNI_FALSE);
    if (!on) forget_all(w, jni);
}

void juc_waits_thread_end(struct host *h, JNIEnv *jni, jthread thread)
{
    struct juc_waits *w = host_juc(h);
    if (!w || !w->tid || !thread) return;
    jlong tid = (*jni)->GetLongField(jni, thread, w->tid);
    struct stripe *s = stripe_of(w, tid);
    pthread_mutex_lock(&s->lock);
    struct juc_wait *x = take(s, tid);
    pthread_mutex_unlock(&s->lock);
    release(jni, x);
    release(jni, take_spare(s, tid));
}
