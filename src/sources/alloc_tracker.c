#include "sources/alloc_tracker.h"

#include <jvmticmlr.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/source.h"
#include "sources/vm_flags.h"
#include "sources/async_trace.h"
#include "tables/code_sites.h"
#include "tables/site_objects.h"
#include "tables/sites.h"
#include "util/log.h"

#define MAX_SKIP 8                    /* Tracker and Object.<init> frames on top of a stack */
/* How many of them stand above the allocation site, so that the walk takes that many more
 * frames than the trace keeps: allocated + Tracker.ObjectInit + Object.<init>, or
 * allocated + Tracker.NewArray; none in a JVMTI event or our JNI wrapper. */
#define SKIP_CONSTRUCTED 3
#define SKIP_ARRAY 2
/* Tracker.newObject + Object.<init>, or Tracker.newArray: called straight from the
 * instrumented code, without the Java method between. */
#define SKIP_DIRECT_OBJECT 2
#define SKIP_DIRECT_ARRAY 1
#define SKIP_NONE 0

struct alloc_tracker {
    struct site_table sites;
    struct site_objects objects;      /* each counted object, held weakly, with its site */
    jmethodID skip[MAX_SKIP];         /* frames that are not the allocation site */
    int nskip;
    jclass tracker;
    jfieldID allocs;                  /* Tracker.allocs: 1 while counting */
    jniNativeInterface *jni_table;    /* the JNI functions as they were, before ours */
    pthread_key_t per_thread;         /* struct alloc_thread of each allocating thread */
    struct async_trace *walker;       /* the fast stack walk; NULL: GetStackTrace only */
    _Atomic bool bound;               /* Tracker.newObject and newArray are ours */
    /* Compiled call sites of Tracker.newObject whose return address names the trace
     * (see tables/code_sites.h); code_ok: the table is in use. */
    struct code_sites code;
    bool code_ok;
    _Atomic(jmethodID) object_init;   /* java.lang.Object.<init>, once bound */
    jmethodID object_clone;           /* java.lang.Object.clone, once bound */
    jmethodID clone_hooks[2];         /* Tracker.newClone and newVirtualClone */
    /* DirectMethodHandle.allocateInstance and the Unsafe.allocateInstance it calls,
     * once an object made there was seen (see made_for_constructor) */
    _Atomic(jmethodID) handle_alloc, unsafe_alloc;
    bool stack_stats;                 /* HPROF_STACK_STATS: count the walks of each kind */
    _Atomic uint64_t fast_walks, jvmti_walks, code_hits, pair_hits;
    _Atomic uint32_t most_slots;      /* the largest per-thread cache so far */
    _Atomic bool on;
};

bool alloc_tracker_exact(const struct host *h) { return (h->opt->heap & HEAP_SITES) && h->opt->alloc_sample == 0; }

struct site_table *alloc_tracker_sites(struct host *h) { return h->alloc ? &h->alloc->sites : NULL; }
static struct async_trace *alloc_tracker_walker(struct host *h) { return h->alloc ? h->alloc->walker : NULL; }

static void thread_ended(void *p);

/*
 * Compiled code must make its objects through the bytecode that counts them (see
 * sources/vm_flags.h). Array clones stay intrinsic: their calls are hooked (cloned()).
 */
static void keep_compiled_allocations(struct host *h)
{
    bool ok = vm_flags_set_bool(h->jvmti, "OptimizeStringConcat", false);
    ok = vm_flags_set_bool(h->jvmti, "EliminateAutoBox", false) && ok;
    ok = vm_flags_add_to_list(h->jvmti, "DisableIntrinsic",
                              "_newArray,_copyOf,_copyOfRange,_allocateUninitializedArray,_toBytesStringU") && ok;
    if (!ok)
        log_warning("heap=sites: could not keep the JIT from allocating on its own; objects from compiled string "
                 "concatenation, boxing and array copies may be missed");
}

static void set_callbacks(struct host *h, jvmtiEventCallbacks *cb);

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    struct alloc_tracker *t = calloc(1, sizeof *t);
    if (!t) return -1;
    sites_init(&t->sites);
    site_objects_init(&t->objects);
    if (pthread_key_create(&t->per_thread, thread_ended) != 0) return -1;
    h->alloc = t;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_garbage_collection_events = 1;    /* when the logs are worth a sweep */
    if (alloc_tracker_exact(h)) {
        keep_compiled_allocations(h);
        caps.can_generate_vm_object_alloc_events = 1;
        t->walker = async_trace_new();
        const char *off = getenv("HPROF_CODE_SITES");
        /* The return address is read through the frame pointers of x86-64 (HotSpot's
         * native method wrappers keep one); elsewhere every allocation is walked. */
#if defined(__x86_64__)
        t->code_ok = t->walker && !(off && strcmp(off, "0") == 0) && code_sites_init(&t->code, 1u << 18);
#endif
        caps.can_generate_compiled_method_load_events = t->code_ok;
        const char *stats = getenv("HPROF_STACK_STATS");
        t->stack_stats = stats && *stats && strcmp(stats, "0") != 0;
    }
    else caps.can_generate_sampled_object_alloc_events = 1;
    if (t->code_ok && (*h->jvmti)->AddCapabilities(h->jvmti, &caps) != JVMTI_ERROR_NONE) {
        caps.can_generate_compiled_method_load_events = 0;    /* then without the shortcut */
        code_sites_destroy(&t->code);
        t->code_ok = false;
    }
    if (!t->code_ok && (*h->jvmti)->AddCapabilities(h->jvmti, &caps) != JVMTI_ERROR_NONE) {
        log_error("cannot set up allocation counting for heap=sites (the JVM refused its JVMTI capabilities)");
        return -1;
    }
    /* Sampling starts now: a thread's sampling point is set when it takes a new TLAB,
     * so starting late would miss the first TLAB of every thread already running. */
    if (!alloc_tracker_exact(h) &&
        (*h->jvmti)->SetHeapSamplingInterval(h->jvmti, (jint)h->opt->alloc_sample) != JVMTI_ERROR_NONE) {
        log_error("the JVM refused the allocation sampling interval %ld", h->opt->alloc_sample);
        return -1;
    }
    set_callbacks(h, cb);
    return 0;
}

static bool skipped(struct alloc_tracker *t, jmethodID m)
{
    for (int i = 0; i < t->nskip; i++)
        if (t->skip[i] == m) return true;
    return false;
}

/*
 * Each allocating thread keeps the traces and sites it met last, so that the usual
 * allocation finds both without taking a lock of the shared tables. Entries only point
 * into the tables, which keep every trace and site until the agent ends.
 *
 * The caches start small (a thread that allocates a little costs 20 KiB) and double,
 * up to 64 times their first size, while more than 1 in 64 lookups miss: a program
 * like javac allocates at tens of thousands of traces in turn.
 */
#define FIRST_SLOTS 512
#define MAX_SLOTS (FIRST_SLOTS * 64)
#define GROW_WINDOW 65536              /* lookups between two looks at the misses */
#define CHECK_WINDOW 1024
#define MAX_PENDING 8

struct trace_slot {
    uint64_t hash;
    struct trace *trace;
};

struct site_slot {                     /* by trace: the site of its class last seen */
    struct trace *trace;
    struct class_info *cls;
    struct site *site;
    struct class_info *array_cls;      /* the class of the arrays the bytecode at the
                                          trace's top makes (see array_class_at) */
};

/* By a pair of code sites (see caller_site): the trace found for the two of them. */
struct pair_slot {
    const struct code_site *site, *caller;
    struct trace *trace;
    int depth;
};

struct alloc_thread {
    struct site_log *log;              /* the objects it counted */
    uintptr_t stack_end;               /* the top of its stack (0: not known) */
    /* Objects the VM made and counted whose constructor may still run (see
     * native_allocated), and how many more constructions to check for them. */
    jweak pending[MAX_PENDING];
    uint32_t npending;
    uint32_t window;
    uint32_t nslots;                   /* of each cache, a power of two */
    uint32_t lookups, misses;          /* since the last look */
    struct trace_slot *traces;
    struct site_slot *sites;
    struct pair_slot *pairs;
};

static void thread_free(struct alloc_thread *at)
{
    free(at->traces);
    free(at->sites);
    free(at->pairs);
    free(at);
}

/* The caches, empty, with n slots each; false (and the old ones kept) without memory. */
static bool resize_caches(struct alloc_thread *at, uint32_t n)
{
    struct trace_slot *tr = calloc(n, sizeof *tr);
    struct site_slot *si = calloc(n, sizeof *si);
    struct pair_slot *pa = calloc(n, sizeof *pa);
    if (!tr || !si || !pa) {
        free(tr);
        free(si);
        free(pa);
        return false;
    }
    free(at->traces);
    free(at->sites);
    free(at->pairs);
    at->traces = tr;
    at->sites = si;
    at->pairs = pa;
    at->nslots = n;
    return true;
}

/* Counts a trace lookup; now and then grows the caches if too many missed. */
static void note_lookup(struct alloc_tracker *t, struct alloc_thread *at, bool missed)
{
    at->misses += missed;
    if (++at->lookups < GROW_WINDOW) return;
    if (at->misses > GROW_WINDOW / 64 && at->nslots < MAX_SLOTS && resize_caches(at, at->nslots * 2)) {
        uint32_t most = atomic_load_explicit(&t->most_slots, memory_order_relaxed);
        while (most < at->nslots && !atomic_compare_exchange_weak(&t->most_slots, &most, at->nslots)) {}
    }
    at->lookups = at->misses = 0;
}

/* NULL when out of memory: the allocation is then not counted. */
static struct alloc_thread *this_thread(struct alloc_tracker *t)
{
    struct alloc_thread *at = pthread_getspecific(t->per_thread);
    if (at) return at;
    if (!(at = calloc(1, sizeof *at))) return NULL;
    if (!resize_caches(at, FIRST_SLOTS) || !(at->log = site_objects_log(&t->objects)) ||
        pthread_setspecific(t->per_thread, at) != 0) {
        site_objects_release(&t->objects, at->log);
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

/* A thread's end (pthread key destructor: no JNI here). Its log goes to the next
 * thread; its pending references, if any, stay behind (a constructor that never ran). */
static void thread_ended(void *p)
{
    struct alloc_thread *at = p;
    struct host *h = host_get();
    if (h && h->alloc) site_objects_release(&h->alloc->objects, at->log);
    thread_free(at);
}

static struct trace *trace_of(struct host *h, struct alloc_thread *at, uint32_t serial,
                              const jvmtiFrameInfo *frames, int n, JNIEnv *jni)
{
    uint64_t hash = traces_key_hash(serial, frames, n);
    unsigned slot = (unsigned)(hash >> 40) & (at->nslots - 1);
    struct trace *tr = at->traces[slot].trace;
    bool hit = tr && at->traces[slot].hash == hash && traces_key_equals(tr, serial, frames, n);
    note_lookup(h->alloc, at, !hit);
    if (hit) return tr;
    slot = (unsigned)(hash >> 40) & (at->nslots - 1);     /* the caches may have grown */
    tr = traces_of_hashed(&h->t.traces, h->jvmti, jni, hash, serial, frames, n);
    if (tr) {
        at->traces[slot].hash = hash;
        at->traces[slot].trace = tr;
    }
    return tr;
}

static unsigned site_slot(const struct alloc_thread *at, struct trace *tr)
{
    return (unsigned)(hash_mix64((uint64_t)(uintptr_t)tr) >> 40) & (at->nslots - 1);
}

static struct site *site_of(struct alloc_tracker *t, struct alloc_thread *at, struct trace *tr,
                            struct class_info *ci)
{
    unsigned slot = site_slot(at, tr);
    if (at->sites[slot].trace == tr && at->sites[slot].cls == ci) return at->sites[slot].site;
    struct site *s = sites_of(&t->sites, tr, ci);
    if (s) {
        if (at->sites[slot].trace != tr) at->sites[slot].array_cls = NULL;
        at->sites[slot].trace = tr;
        at->sites[slot].cls = ci;
        at->sites[slot].site = s;
    }
    return s;
}

/* The class (a weak reference) that class_info stands for, made on first need. */
static jweak mirror_of(JNIEnv *jni, struct class_info *ci, jclass cls)
{
    jweak m = atomic_load_explicit(&ci->mirror, memory_order_acquire);
    if (m || !cls) return m;
    jweak mine = (*jni)->NewWeakGlobalRef(jni, cls);
    if (mine && !atomic_compare_exchange_strong(&ci->mirror, &m, mine)) {
        (*jni)->DeleteWeakGlobalRef(jni, mine);      /* another thread was first */
        return m;
    }
    return mine;
}

/*
 * The class of a new object at trace tr. Most traces allocate one class, so the class
 * this thread last saw at tr is tried first, by comparing references (no lock); else
 * the class table's lookup (a JVMTI tag).
 */
static struct class_info *class_at(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj,
                                   struct trace *tr)
{
    jclass cls = (*jni)->GetObjectClass(jni, obj);
    unsigned slot = site_slot(at, tr);
    struct class_info *ci = at->sites[slot].trace == tr ? at->sites[slot].cls : NULL;
    jweak m = ci ? atomic_load_explicit(&ci->mirror, memory_order_acquire) : NULL;
    if (!m || !(*jni)->IsSameObject(jni, m, cls)) {
        ci = classes_of(&h->t.classes, h->jvmti, cls, &h->t.ids);
        mirror_of(jni, ci, cls);
    }
    (*jni)->DeleteLocalRef(jni, cls);
    return ci;
}

static void count(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj, struct class_info *ci,
                  struct trace *trace, bool inner_arrays);

/*
 * The class of an array that newarray, anewarray or multianewarray just made, at trace
 * tr. The trace's top frame is that instruction's site, and the class a site makes never
 * changes, so after the first array it is known without asking the JVM. (Not for an
 * empty trace, depth=0, which all sites share.)
 */
static struct class_info *array_class_at(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj,
                                         struct trace *tr)
{
    struct site_slot *s = &at->sites[site_slot(at, tr)];
    if (s->trace == tr && s->array_cls) return s->array_cls;
    return class_at(h, at, jni, obj, tr);
}

/* After the array at tr was counted (and its inner arrays: the slot may hold theirs). */
static void note_array_class(struct alloc_thread *at, struct trace *tr, struct class_info *ci)
{
    struct site_slot *s = &at->sites[site_slot(at, tr)];
    if (s->trace == tr && tr->nframes > 0) s->array_cls = ci;
}


/*
 * The arrays a multianewarray made inside the outer one are new too: count each at the
 * same site. Only called right after the bytecode made them, when nothing else can
 * have been stored in them yet.
 */
static void count_inner_arrays(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobjectArray outer,
                               struct trace *trace)
{
    jsize n = (*jni)->GetArrayLength(jni, outer);
    for (jsize i = 0; i < n; i++) {
        jobject inner = (*jni)->GetObjectArrayElement(jni, outer, i);
        if (!inner) continue;
        count(h, at, jni, inner, class_at(h, at, jni, inner, trace), trace, true);
        (*jni)->DeleteLocalRef(jni, inner);
    }
}

/* Every instance of a class has the same size, so it is asked for once per class. */
static jlong object_size(struct host *h, jobject obj, struct class_info *ci)
{
    jlong size = atomic_load_explicit(&ci->instance_size, memory_order_relaxed);
    if (size > 0) return size;
    size = 0;
    (*h->jvmti)->GetObjectSize(h->jvmti, obj, &size);
    /* Arrays vary with their length, class mirrors with their static fields; the
     * stand-in for classes JVMTI could not name is many classes. */
    if (size > 0 && ci->serial > SERIAL_CLASS_BASE && ci->signature && ci->signature[0] != '[' && strcmp(ci->signature, "Ljava/lang/Class;") != 0)
        atomic_store_explicit(&ci->instance_size, size, memory_order_relaxed);
    return size;
}

/* Counts one new object (of class ci) at its site, and holds it for the live counts. */
static void count(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj, struct class_info *ci,
                  struct trace *trace, bool inner_arrays)
{
    struct alloc_tracker *t = h->alloc;
    jlong size = object_size(h, obj, ci);
    struct site *s = site_of(t, at, trace, ci);
    if (!s) return;
    atomic_fetch_add_explicit(&s->alloc_objs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, (uint64_t)size, memory_order_relaxed);
    site_objects_add(&t->objects, at->log, jni, obj, s->id, (uint64_t)size);
    if (inner_arrays && ci->signature[0] == '[' && ci->signature[1] == '[')
        count_inner_arrays(h, at, jni, obj, trace);
}

/*
 * The stack of the current thread (every caller runs on the allocating thread; `thread`
 * is NULL or names it): the fast walk when it can, else JVMTI's.
 */
static jint walk_stack(struct host *h, JNIEnv *jni, jthread thread, jvmtiFrameInfo *frames, int want)
{
    struct alloc_tracker *t = h->alloc;
    int fast = async_trace_current(t->walker, jni, frames, want);
    if (t->stack_stats) atomic_fetch_add_explicit(fast >= 0 ? &t->fast_walks : &t->jvmti_walks, 1, memory_order_relaxed);
    if (fast >= 0) return fast;
    jint n = 0;
    if ((*h->jvmti)->GetStackTrace(h->jvmti, thread, 0, want, frames, &n) != JVMTI_ERROR_NONE) return -1;
    return n;
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

/* Whether the walk's frames f are the n inlined frames c. */
static bool same_frames(const jvmtiFrameInfo *f, const struct code_frame *c, int n)
{
    for (int i = 0; i < n; i++)
        if (f[i].method != c[i].method || f[i].location != c[i].bci) return false;
    return true;
}

/* Whether the walk's frames from frames[1] on (Object.<init>, then the trace's depth
 * frames) are the ones the JIT inlined at site cs: then the return address the site was
 * found by stands for the trace. (The depth is checked again: it may have changed since
 * code_site_of, by a socket command.) */
static bool walk_matches(const struct code_site *cs, const jvmtiFrameInfo *frames, int depth)
{
    return depth + 1 <= CODE_SITE_FRAMES && cs->nframes >= depth + 1 && cs->kept >= depth + 1 &&
           same_frames(frames + 1, cs->frames, depth + 1);
}

/* The same for a site that inlined fewer frames (all of them kept) and the call site
 * of its caller: the site's frames, then the caller's innermost, and enough frames
 * inlined at the two for the depth. */
static bool walk_matches_pair(const struct code_site *cs, const struct code_site *caller,
                              const jvmtiFrameInfo *frames, int depth)
{
    int n = cs->nframes;
    return depth + 1 <= CODE_SITE_FRAMES && cs->kept == n && n + caller->nframes >= depth + 1 && caller->kept >= 1 &&
           same_frames(frames + 1, cs->frames, n) && same_frames(frames + 1 + n, caller->frames, 1);
}

static unsigned pair_slot(const struct alloc_thread *at, const struct code_site *cs, const struct code_site *caller)
{
    uint64_t h = hash_mix64((uint64_t)(uintptr_t)cs ^ ((uint64_t)(uintptr_t)caller << 17));
    return (unsigned)(h >> 40) & (at->nslots - 1);
}

/*
 * The allocation site of the current thread (thread NULL), or of the thread a JVMTI
 * event names: its stack without our frames. With a code site (objects only), the
 * trace is cached there when the walk confirms what the site says was inlined.
 */
static struct trace *site_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, jthread thread,
                                int top_skip, struct code_site *cs, const struct code_site *caller)
{
    struct alloc_tracker *t = h->alloc;
    int depth = host_depth(h);
    jvmtiFrameInfo local[64], *frames = local;
    int want = depth + top_skip;
    if (want > 64 && !(frames = malloc((size_t)want * sizeof *frames))) return NULL;
    struct trace *tr = NULL;
    jint n = walk_stack(h, jni, thread, frames, want);
    if (n >= 0) {
        if (n > 0 && frames[0].method && (frames[0].method == t->clone_hooks[0] || frames[0].method == t->clone_hooks[1]))
            as_clone(t, frames, n);
        int skip = 0;
        while (skip < n && skip < MAX_SKIP && skipped(t, frames[skip].method)) skip++;
        int keep = n - skip < depth ? n - skip : depth;
        uint32_t serial = 0;
        if (h->opt->thread) {
            struct thread_info *ti = threads_lookup(h->jvmti, thread);
            serial = ti ? ti->serial : 0;
        }
        tr = trace_of(h, at, serial, frames + skip, keep, jni);
        if (tr && cs && skip == 2 && keep == depth) {
            if (!caller && walk_matches(cs, frames, depth)) code_site_set_trace(cs, tr, depth);
            if (caller && walk_matches_pair(cs, caller, frames, depth))
                at->pairs[pair_slot(at, cs, caller)] = (struct pair_slot){cs, caller, tr, depth};
        }
    }
    if (frames != local) free(frames);
    return tr;
}

static bool counting(struct host *h)
{
    return h->alloc && atomic_load_explicit(&h->alloc->on, memory_order_relaxed) && atomic_load(&h->phase) == PHASE_LIVE;
}

/* Drops the pending object at i (its constructor ran, or it is given up on). */
static void drop_pending(struct alloc_thread *at, JNIEnv *jni, uint32_t i)
{
    (*jni)->DeleteWeakGlobalRef(jni, at->pending[i]);
    at->pending[i] = at->pending[--at->npending];
}

/* Whether obj is one of the VM-made objects this thread counted before their
 * constructor ran (see constructor_follows); it is then no longer pending. */
static bool was_pending(struct alloc_thread *at, JNIEnv *jni, jobject obj)
{
    for (uint32_t i = 0; i < at->npending; i++) {
        if ((*jni)->IsSameObject(jni, at->pending[i], obj)) {
            drop_pending(at, jni, i);
            return true;
        }
    }
    if (--at->window == 0)                   /* never constructed, it seems */
        while (at->npending) drop_pending(at, jni, at->npending - 1);
    return false;
}

/* Where the Java code that called a native method of ours returns to: pc, with its
 * stack pointer (sp) at the call. Both 0 when not known. */
struct java_caller {
    uintptr_t pc, sp;
};

/* The code site a new object was made at: a compiled call of Tracker.newObject from an
 * inlined Object.<init> (objects only). NULL where none can name the trace. */
static struct code_site *code_site_of(struct alloc_tracker *t, struct host *h, uintptr_t pc)
{
    /* thread=y: traces differ by thread */
    if (!pc || !t->code_ok || h->opt->thread || host_depth(h) + 1 > CODE_SITE_FRAMES) return NULL;
    struct code_site *cs = code_sites_find(&t->code, pc);
    return cs && cs->kept >= 2 && cs->frames[0].method == atomic_load_explicit(&t->object_init, memory_order_relaxed)
               ? cs : NULL;
}

/*
 * When site cs inlined fewer frames than the depth takes: the call site its compiled
 * method was called from, if that is compiled code too and the two together inlined
 * enough frames. Its return address is the last word of the method's frame, which
 * starts at sp, the stack pointer of the call into us.
 */
static const struct code_site *caller_site(struct alloc_tracker *t, const struct alloc_thread *at,
                                           const struct code_site *cs, uintptr_t sp, int need)
{
    if (!cs->frame_size || !sp || cs->kept != cs->nframes) return NULL;
    uintptr_t slot = sp + cs->frame_size - sizeof(uintptr_t);
    if (slot < sp || slot + sizeof(uintptr_t) > at->stack_end) return NULL;
    const struct code_site *caller = code_sites_find(&t->code, *(const uintptr_t *)slot);
    return caller && caller->kept >= 1 && cs->nframes + caller->nframes >= need ? caller : NULL;
}

/* The trace a code site names for this depth: by itself, or with its caller's. */
static struct trace *code_site_trace_of(struct alloc_tracker *t, struct alloc_thread *at, struct code_site *cs,
                                        uintptr_t sp, int depth, const struct code_site **caller)
{
    *caller = NULL;
    if (cs->nframes >= depth + 1) return code_site_trace(cs, depth);
    if (!(*caller = caller_site(t, at, cs, sp, depth + 1))) return NULL;
    const struct pair_slot *p = &at->pairs[pair_slot(at, cs, *caller)];
    if (p->site != cs || p->caller != *caller || p->depth != depth) return NULL;
    if (t->stack_stats) atomic_fetch_add_explicit(&t->pair_hits, 1, memory_order_relaxed);
    return p->trace;
}

/*
 * A new object or array from instrumented code, `skip` frames of ours above its site;
 * from: where that code returns to (pc 0 when not known).
 */
static void new_object(JNIEnv *jni, jobject obj, bool array, int skip, struct java_caller from)
{
    struct host *h = host_get();
    if (!obj || !counting(h)) return;
    struct alloc_tracker *t = h->alloc;
    struct alloc_thread *at = this_thread(t);
    if (!at) return;
    /* A new array is always new; an object may have been counted already when the VM
     * made it, before its constructor ran. */
    if (!array && at->npending && was_pending(at, jni, obj)) return;
    struct code_site *cs = array ? NULL : code_site_of(t, h, from.pc);
    const struct code_site *caller = NULL;
    struct trace *tr = cs ? code_site_trace_of(t, at, cs, from.sp, host_depth(h), &caller) : NULL;
    if (tr && t->stack_stats) atomic_fetch_add_explicit(&t->code_hits, 1, memory_order_relaxed);
    if (!tr) tr = site_trace(h, at, jni, NULL, skip, cs, caller);
    if (!tr) return;
    if (!array) {
        count(h, at, jni, obj, class_at(h, at, jni, obj, tr), tr, false);
        return;
    }
    struct class_info *ci = array_class_at(h, at, jni, obj, tr);
    count(h, at, jni, obj, ci, tr, true);
    note_array_class(at, tr, ci);
}

/* Tracker.allocated, through Tracker.ObjectInit or Tracker.NewArray. */
static void JNICALL native_allocated(JNIEnv *jni, jclass cls, jobject obj, jboolean array)
{
    new_object(jni, obj, array, array ? SKIP_ARRAY : SKIP_CONSTRUCTED, (struct java_caller){0, 0});
}

/*
 * Where the Java code that called a native method of ours returns to, from the frame
 * pointer of that method (fp): HotSpot's wrapper of a native method keeps a frame
 * pointer, and so does this library (-fno-omit-frame-pointer). The wrapper's frame
 * pointer is its saved rbp, under the return address; the caller's stack pointer was
 * just above. Called from the interpreter it is an address in the interpreter, which no
 * code site has.
 */
static struct java_caller java_caller_of(void *fp)
{
#if defined(__x86_64__)
    void **ours = fp, **wrapper = ours ? ours[0] : NULL;
    if (!wrapper || wrapper <= ours || (char *)wrapper - (char *)ours > 65536) return (struct java_caller){0, 0};
    return (struct java_caller){(uintptr_t)wrapper[1], (uintptr_t)(wrapper + 2)};
#else
    return (struct java_caller){0, 0};
#endif
}

/* Tracker.newObject and Tracker.newArray, straight from the instrumented code. */
static void JNICALL native_new_object(JNIEnv *jni, jclass cls, jobject obj)
{
    new_object(jni, obj, false, SKIP_DIRECT_OBJECT, java_caller_of(__builtin_frame_address(0)));
}

static void JNICALL native_new_array(JNIEnv *jni, jclass cls, jobject obj)
{
    new_object(jni, obj, true, SKIP_DIRECT_ARRAY, (struct java_caller){0, 0});
}

/*
 * Whether an object of class cls (entry ci) is copied by Object.clone itself when its
 * clone() is called, rather than by an override (asked once per class).
 */
static bool clone_is_objects(struct alloc_tracker *t, JNIEnv *jni, struct class_info *ci, jclass cls)
{
    uint8_t known = atomic_load_explicit(&ci->clone_override, memory_order_relaxed);
    if (known) return known == 1;
    jmethodID m = (*jni)->GetMethodID(jni, cls, "clone", "()Ljava/lang/Object;");
    if (!m) (*jni)->ExceptionClear(jni);
    bool objects = m && m == t->object_clone;
    atomic_store_explicit(&ci->clone_override, objects ? 1 : 2, memory_order_relaxed);
    return objects;
}

/*
 * After a call of clone() with what it returned (virtual: an override may have run). The
 * VM reports the copies Object.clone makes, but not those compiled code makes inline:
 * a copy the VM reported was the last object this thread counted. A copy an override
 * made was counted inside it, by its own super.clone().
 */
static void cloned(JNIEnv *jni, jobject obj, bool virtual)
{
    struct host *h = host_get();
    if (!obj || !counting(h)) return;
    struct alloc_tracker *t = h->alloc;
    struct alloc_thread *at = this_thread(t);
    if (!at || !t->object_clone || site_objects_is_last(at->log, jni, obj)) return;
    struct class_info *ci = NULL;
    if (virtual) {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        ci = classes_of(&h->t.classes, h->jvmti, cls, &h->t.ids);
        bool counted = !clone_is_objects(t, jni, ci, cls);
        (*jni)->DeleteLocalRef(jni, cls);
        if (counted) return;
    }
    struct trace *tr = site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL);
    if (tr) count(h, at, jni, obj, ci ? ci : class_at(h, at, jni, obj, tr), tr, false);
}

static void JNICALL native_new_clone(JNIEnv *jni, jclass cls, jobject obj) { cloned(jni, obj, false); }
static void JNICALL native_new_virtual_clone(JNIEnv *jni, jclass cls, jobject obj) { cloned(jni, obj, true); }

/*
 * The calls of compiled code: each call of Tracker.newObject from an inlined
 * Object.<init>, with the frames inlined there (innermost first, Object.<init> itself at
 * 0), and every other call, with its innermost frame only (a method it calls may make
 * objects; see caller_site). The calls of one compiled method to another are near calls.
 */
static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                            const void *code_addr, jint map_length,
                                            const jvmtiAddrLocationMap *map, const void *compile_info)
{
    struct host *h = host_get();
    struct alloc_tracker *t = h ? h->alloc : NULL;
    jmethodID init = t && t->code_ok ? atomic_load(&t->object_init) : NULL;
    if (!init) return;
    uint32_t frame_size = code_sites_frame_size(code_addr, code_size > 0 ? (size_t)code_size : 0);
    for (const jvmtiCompiledMethodLoadRecordHeader *rec = compile_info; rec; rec = rec->next) {
        if (rec->kind != JVMTI_CMLR_INLINE_INFO) continue;
        const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)rec;
        for (jint i = 0; i < r->numpcs; i++) {
            const PCStackInfo *p = &r->pcinfo[i];
            if (p->numstackframes < 1 || !p->methods || !p->bcis) continue;
            if (p->numstackframes >= 2 && p->methods[0] == init)
                code_sites_add(&t->code, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size,
                               p->numstackframes, CODE_SITE_FRAMES, p->methods, p->bcis);
            else if (code_sites_is_call(p->pc, code_addr))
                code_sites_add(&t->code, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size,
                               p->numstackframes, 1, p->methods, p->bcis);
        }
    }
}

static void JNICALL on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    struct host *h = host_get();
    if (h && h->alloc && h->alloc->code_ok) code_sites_unload(&h->alloc->code, (uintptr_t)code_addr);
}

static bool top_native_is(const struct trace *tr, const char *name)
{
    return tr->nframes && tr->frames[0]->method->native && strcmp(tr->frames[0]->method->name, name) == 0;
}

/*
 * Whether the VM made this object for a constructor that may run on it next: an
 * Unsafe.allocateInstance other than a MethodHandle's (see made_for_constructor). Clones,
 * class names, reflection's Method objects and the like are finished when the VM hands
 * them over.
 */
static bool constructor_follows(const struct trace *tr) { return top_native_is(tr, "allocateInstance"); }

/* Whether the VM ran the object's constructor before reporting it: JDK 17's native
 * reflection (Constructor.newInstance's first calls), which counted it at Object.<init>,
 * however much the constructor allocated after that. */
static bool constructor_ran(const struct trace *tr) { return top_native_is(tr, "newInstance0"); }

struct class_match {
    struct site_table *sites;
    struct class_info *cls;
};

static bool site_of_class(uint32_t site, void *ctx)
{
    struct class_match *m = ctx;
    struct site *s = sites_by_id(m->sites, site);
    return s && s->cls == m->cls;
}

/*
 * The VM reports the objects it made for Java code when the call that made them
 * returns, and Java code that call ran may have been counted making the same object
 * (a constructor run by reflection; objects a class loader made while the VM resolved a
 * class). Such an object was counted by this thread since its previous VMObjectAlloc
 * event, or a little before when such calls nest; a constructor run by reflection may
 * have counted many more objects since (RECENT_SCAN at most are looked at).
 */
#define RECENT_OVERLAP 16
#define RECENT_SCAN 65536

static bool is_method(struct host *h, JNIEnv *jni, jmethodID id, const char *cls, const char *name)
{
    struct method_info *m = methods_of(&h->t.methods, h->jvmti, jni, id);
    return m && m->cls && m->cls->signature && strcmp(m->name, name) == 0 && strcmp(m->cls->signature, cls) == 0;
}

/*
 * Whether the VM made this object for a MethodHandle's constructor call: Unsafe.
 * allocateInstance called by DirectMethodHandle.allocateInstance, whose only caller
 * (the handle's form) runs the constructor next, on this thread. That constructor's
 * Object.<init> then counts the object, at the trace of the code that asked for it, as
 * for `new`. JDK 18+ reflection makes its objects this way and, from JDK 24 on, so does
 * every capturing lambda (3.4 million objects in javac's run), so this asks no more than
 * the two top frames. The methods are known by name until the first such object.
 */
static bool made_for_constructor(struct host *h, JNIEnv *jni, jthread thread)
{
    struct alloc_tracker *t = h->alloc;
    jvmtiFrameInfo f[2];
    if (walk_stack(h, jni, thread, f, 2) != 2) return false;
    jmethodID handle = atomic_load_explicit(&t->handle_alloc, memory_order_acquire);
    if (handle) return f[1].method == handle && f[0].method == atomic_load_explicit(&t->unsafe_alloc, memory_order_relaxed);
    if (!is_method(h, jni, f[1].method, "Ljava/lang/invoke/DirectMethodHandle;", "allocateInstance") ||
        !is_method(h, jni, f[0].method, "Ljdk/internal/misc/Unsafe;", "allocateInstance"))
        return false;
    atomic_store_explicit(&t->unsafe_alloc, f[0].method, memory_order_relaxed);
    atomic_store_explicit(&t->handle_alloc, f[1].method, memory_order_release);
    return true;
}

static void JNICALL on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                              jclass cls, jlong size)
{
    struct host *h = host_get();
    if (!counting(h) || host_is_own_thread(h, jni, thread)) return;
    struct alloc_thread *at = this_thread(h->alloc);
    if (!at || made_for_constructor(h, jni, thread)) return;
    struct trace *tr = site_trace(h, at, jni, thread, SKIP_NONE, NULL, NULL);
    if (!tr) return;
    struct class_match m = {&h->alloc->sites, classes_of(&h->t.classes, h->jvmti, cls, &h->t.ids)};
    size_t overlap = constructor_ran(tr) ? RECENT_SCAN : RECENT_OVERLAP;
    if (site_objects_recent(at->log, jni, object, site_of_class, &m, overlap, RECENT_SCAN)) return;
    count(h, at, jni, object, m.cls, tr, false);
    if (constructor_follows(tr)) {
        if (at->npending == MAX_PENDING) drop_pending(at, jni, 0);
        jweak w = (*jni)->NewWeakGlobalRef(jni, object);
        if (w) at->pending[at->npending++] = w;
        at->window = CHECK_WINDOW;
    }
}

/*
 * JNI AllocObject makes an object without a constructor and without a VMObjectAlloc
 * event, so the JNI function is wrapped: the original runs, then the object is counted
 * at the native method's stack.
 */
static jobject JNICALL jni_alloc_object(JNIEnv *jni, jclass cls)
{
    struct host *h = host_get();
    jobject obj = h->alloc->jni_table->AllocObject(jni, cls);
    if (obj && counting(h)) {
        struct alloc_thread *at = this_thread(h->alloc);
        struct trace *tr = at ? site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL) : NULL;
        if (tr) count(h, at, jni, obj, classes_of(&h->t.classes, h->jvmti, cls, &h->t.ids), tr, false);
    }
    return obj;
}

static void wrap_jni(struct host *h)
{
    struct alloc_tracker *t = h->alloc;
    jniNativeInterface *table = NULL;
    if ((*h->jvmti)->GetJNIFunctionTable(h->jvmti, &table) != JVMTI_ERROR_NONE || !table) return;
    t->jni_table = table;                /* kept: our wrapper calls through it */
    jniNativeInterface *ours = NULL;
    if ((*h->jvmti)->Allocate(h->jvmti, sizeof *ours, (unsigned char **)&ours) != JVMTI_ERROR_NONE) return;
    *ours = *table;
    ours->AllocObject = jni_alloc_object;
    (*h->jvmti)->SetJNIFunctionTable(h->jvmti, ours);
}

/* One sampled object stands for about alloc_sample bytes of objects like it. */
static void JNICALL on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                            jclass cls, jlong size)
{
    struct host *h = host_get();
    if (!counting(h)) return;
    struct alloc_tracker *t = h->alloc;
    struct alloc_thread *at = this_thread(t);
    struct trace *tr = at ? site_trace(h, at, jni, thread, SKIP_NONE, NULL, NULL) : NULL;
    if (!tr) return;
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, cls, &h->t.ids);
    struct site *s = site_of(t, at, tr, ci);
    if (!s) return;
    uint64_t bytes = size > 0 ? (uint64_t)size : 1;
    uint64_t weight = bytes >= (uint64_t)h->opt->alloc_sample ? 1 : ((uint64_t)h->opt->alloc_sample + bytes / 2) / bytes;
    atomic_fetch_add_explicit(&s->samples, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_objs, weight, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, weight * bytes, memory_order_relaxed);
    site_objects_add(&t->objects, at->log, jni, object, s->id, bytes);
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    if (h && h->alloc) site_objects_gc_finished(&h->alloc->objects);
}

/* Exact counting starts when the tracker binds its natives (alloc_tracker_vm_init);
 * sampling at VM init. */
static void start(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = h->alloc;
    if (t && !alloc_tracker_exact(h)) atomic_store(&t->on, true);
}

static void add_skip(struct alloc_tracker *t, JNIEnv *jni, jclass cls, const char *name, const char *sig, bool is_static)
{
    jmethodID m = is_static ? (*jni)->GetStaticMethodID(jni, cls, name, sig) : (*jni)->GetMethodID(jni, cls, name, sig);
    if (!m) (*jni)->ExceptionClear(jni);
    else if (t->nskip < MAX_SKIP) t->skip[t->nskip++] = m;
}

void alloc_tracker_bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    struct alloc_tracker *t = h->alloc;
    if (!t || !tracker) return;
    JNINativeMethod natives[] = {{"allocated", "(Ljava/lang/Object;Z)V", (void *)native_allocated},
                                 {"newObject", "(Ljava/lang/Object;)V", (void *)native_new_object},
                                 {"newArray", "(Ljava/lang/Object;)V", (void *)native_new_array},
                                 {"newClone", "(Ljava/lang/Object;)V", (void *)native_new_clone},
                                 {"newVirtualClone", "(Ljava/lang/Object;)V", (void *)native_new_virtual_clone}};
    if ((*jni)->RegisterNatives(jni, tracker, natives, 5) != 0) {
        (*jni)->ExceptionClear(jni);
        log_error("the Tracker class does not match this agent; heap=sites has no data");
        return;
    }
    add_skip(t, jni, tracker, "allocated", "(Ljava/lang/Object;Z)V", true);
    add_skip(t, jni, tracker, "newObject", "(Ljava/lang/Object;)V", true);
    add_skip(t, jni, tracker, "newArray", "(Ljava/lang/Object;)V", true);
    add_skip(t, jni, tracker, "ObjectInit", "(Ljava/lang/Object;)V", true);
    t->clone_hooks[0] = (*jni)->GetStaticMethodID(jni, tracker, "newClone", "(Ljava/lang/Object;)V");
    t->clone_hooks[1] = (*jni)->GetStaticMethodID(jni, tracker, "newVirtualClone", "(Ljava/lang/Object;)V");
    (*jni)->ExceptionClear(jni);
    add_skip(t, jni, tracker, "NewArray", "(Ljava/lang/Object;)V", true);
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    if (object) add_skip(t, jni, object, "<init>", "()V", false);
    if (object) atomic_store(&t->object_init, (*jni)->GetMethodID(jni, object, "<init>", "()V"));
    if (object) t->object_clone = (*jni)->GetMethodID(jni, object, "clone", "()Ljava/lang/Object;");
    (*jni)->ExceptionClear(jni);
    t->tracker = (*jni)->NewGlobalRef(jni, tracker);
    t->allocs = (*jni)->GetStaticFieldID(jni, tracker, "allocs", "I");
    if (!t->allocs) (*jni)->ExceptionClear(jni);
    atomic_store(&t->bound, true);
}

bool alloc_tracker_bound(struct host *h) { return h->alloc && atomic_load(&h->alloc->bound); }

void alloc_tracker_vm_init(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = h->alloc;
    if (!t || !t->tracker) return;
    wrap_jni(h);
    async_trace_vm_init(t->walker, h->jvmti);
    alloc_tracker_enable(h, jni, true);
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
    if (t->code_ok) {
        (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
        (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    }
}

void alloc_tracker_enable(struct host *h, JNIEnv *jni, bool on)
{
    struct alloc_tracker *t = h->alloc;
    if (!t) return;
    atomic_store(&t->on, on);
    if (t->tracker && t->allocs) (*jni)->SetStaticIntField(jni, t->tracker, t->allocs, on ? 1 : 0);
}

/* ---- live counts ---- */

static void reset_live(struct site_table *st)
{
    uint32_t n = sites_count(st);
    for (uint32_t i = 1; i <= n; i++) {
        struct site *s = sites_by_id(st, i);
        s->live_objs = s->live_bytes = 0;
    }
}

static void add_live(uint32_t site, uint64_t size, void *ctx)
{
    struct site *s = sites_by_id(ctx, site);
    if (s) {
        s->live_objs++;
        s->live_bytes += size;
    }
}

/* A reachable object the walk meets, perhaps several times: counted the first time,
 * when its tag (its site) turns negative. */
static jint JNICALL reach_object(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data)
{
    if (*tag_ptr > 0) {
        add_live((uint32_t)*tag_ptr, (uint64_t)size, user_data);
        *tag_ptr = -*tag_ptr;
    }
    return JVMTI_VISIT_OBJECTS;
}

/*
 * At VM death with ZGC or Shenandoah no GC can be forced (util/collector.h). The counted
 * objects still held are then tagged with their sites in an environment of their own and
 * counted as a reference walk from the roots reaches them: what a GC would keep. (The
 * environment is not let go of: the VM is ending.)
 */
static void count_reachable(struct host *h, struct alloc_tracker *t)
{
    jvmtiEnv *env = NULL;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*h->vm)->GetEnv(h->vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK) return;
    if ((*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE) {
        log_error("no JVMTI environment for the live counts of heap=sites; they are left at 0");
        return;
    }
    site_objects_tag(&t->objects, env);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = reach_object;
    (*env)->FollowReferences(env, JVMTI_HEAP_FILTER_UNTAGGED, NULL, NULL, &cb, &t->sites);
}

void alloc_tracker_count_live(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = h->alloc;
    if (!t) return;
    reset_live(&t->sites);
    if (t->stack_stats)
        log_plain("HPROF: heap=sites objects held: %zu (before this dump's sweep)", site_objects_held(&t->objects));
    if (host_can_force_gc(h)) {
        /* A GC clears the references of every object no longer reachable. */
        (*h->jvmti)->ForceGarbageCollection(h->jvmti);
        site_objects_sweep(&t->objects, jni, add_live, &t->sites);
    } else {
        count_reachable(h, t);
    }
    if (t->stack_stats) {
        log_plain("HPROF: heap=sites stacks: %llu by the fast walk, %llu by GetStackTrace, %llu by the code site",
                  (unsigned long long)atomic_load(&t->fast_walks), (unsigned long long)atomic_load(&t->jvmti_walks),
                  (unsigned long long)atomic_load(&t->code_hits));
        log_plain("HPROF: heap=sites code sites: %llu of those with their caller's",
                  (unsigned long long)atomic_load(&t->pair_hits));
        uint32_t most = atomic_load(&t->most_slots);
        log_plain("HPROF: heap=sites caches: up to %u slots per thread", (unsigned)(most ? most : FIRST_SLOTS));
    }
    if (alloc_tracker_exact(h)) return;
    /* Sampled: each live sample stands for as many objects as samples did at allocation. */
    uint32_t n = sites_count(&t->sites);
    for (uint32_t i = 1; i <= n; i++) {
        struct site *s = sites_by_id(&t->sites, i);
        uint64_t samples = atomic_load(&s->samples);
        if (!samples) continue;
        double per = (double)atomic_load(&s->alloc_objs) / (double)samples;
        s->live_objs = (uint64_t)((double)s->live_objs * per + 0.5);
        s->live_bytes = (uint64_t)((double)s->live_bytes * per + 0.5);
    }
}

void alloc_tracker_tag_sites(struct host *h, jvmtiEnv *env)
{
    if (h->alloc) site_objects_tag(&h->alloc->objects, env);
}

/* The events it uses, on now: sampled allocations or, for exact counts, what the stack
 * walker needs (tracker.c turns on the rest when it binds). */
static void set_callbacks(struct host *h, jvmtiEventCallbacks *cb)
{
    jvmtiEnv *jvmti = h->jvmti;
    cb->VMObjectAlloc = on_vm_object_alloc;
    cb->SampledObjectAlloc = on_sampled_alloc;
    cb->GarbageCollectionFinish = on_gc_finish;
    cb->CompiledMethodLoad = on_compiled_load;
    cb->CompiledMethodUnload = on_compiled_unload;
    cb->ClassLoad = async_trace_on_class_load;
    async_trace_enable_events(alloc_tracker_walker(h), jvmti);
    if (!alloc_tracker_exact(h))
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
}

static void class_prepare(struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    async_trace_class_prepared(alloc_tracker_walker(h), h->jvmti, cls);
}

static bool wanted(const struct options *o) { return (o->heap & HEAP_SITES) != 0; }

const struct source alloc_tracker_source = {
    .name = "allocation sites",
    .wanted = wanted,
    .init = init,
    .start = start,
    .class_prepare = class_prepare,
};
