/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites exact: every allocation counted at its site. The Tracker's natives report
 * what the instrumented bytecode makes (new objects at Object.<init>, arrays after their
 * bytecode, clones after their call); VMObjectAlloc reports what the VM makes for Java
 * code, and a wrapper of JNI AllocObject what native code makes without a constructor.
 */
#include "sources/alloc/alloc_exact.h"

#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_code_sites.h"
#include "sources/alloc/alloc_deep.h"
#include "sources/alloc/alloc_trace.h"
#include "sources/hotspot/async_trace.h"
#include "sources/hotspot/vm_flags.h"
#include "sources/resolve.h"
#include "util/log.h"
#include "util/env.h"

#define CHECK_WINDOW 1024 /* constructions a VM-made object's may come within */

/*
 * Compiled code must make its objects through the bytecode that counts them (see
 * sources/hotspot/vm_flags.h). Array clones stay intrinsic: their calls are hooked (cloned()).
 */
void alloc_exact_keep_compiled(struct host *h)
{
    bool ok = vm_flags_set_bool(h->jvmti, "OptimizeStringConcat", false);
    ok = vm_flags_set_bool(h->jvmti, "EliminateAutoBox", false) && ok;
    ok = vm_flags_add_to_list(h->jvmti, "DisableIntrinsic",
                              "_newArray,_copyOf,_copyOfRange,_allocateUninitializedArray,_toBytesStringU") &&
        ok;
    if (!ok)
        log_warning("heap=sites: could not keep the JIT from allocating on its own; objects from compiled string "
                    "concatenation, boxing and array copies may be missed");
}

/* At load: the JIT settings, the stack walker, the code sites, and the capabilities
 * exact counting needs in caps. */
static void init(struct host *h, jvmtiCapabilities *caps)
{
    struct alloc_tracker *t = alloc_of(h);
    alloc_exact_keep_compiled(h);
    caps->can_generate_vm_object_alloc_events = 1;
    t->walker = async_trace_new();
    t->code.ok = alloc_code_sites_init(t);
    caps->can_generate_compiled_method_load_events = t->code.ok;
    t->stats.on = env_switch("HPROF_STACK_STATS", false);
}

/* ---- the code site an allocation was made at (static inline: every allocation) ---- */

/* Where the Java code that called a native method of ours returns to: pc, with its
 * stack pointer (sp) at the call. Both 0 when not known. */
struct java_caller {
    uintptr_t pc, sp;
};

/*
 * Where the Java code that called a native method of ours returns to, from the frame
 * pointer of that method (fp): HotSpot's wrapper of a native method keeps a frame
 * pointer, and so does this library (-fno-omit-frame-pointer). The wrapper's frame
 * pointer is its saved rbp, under the return address; the caller's stack pointer was
 * just above. Called from the interpreter it is an address in the interpreter, which no
 * code site has.
 */
static inline struct java_caller java_caller_of(void *fp)
{
#if defined(__x86_64__)
    void **ours = fp, **wrapper = ours ? ours[0] : NULL;
    if (!wrapper || wrapper <= ours || (char *)wrapper - (char *)ours > 65536) return (struct java_caller){0, 0};
    return (struct java_caller){(uintptr_t)wrapper[1], (uintptr_t)(wrapper + 2)};
#else
    return (struct java_caller){0, 0};
#endif
}

static inline bool same_chain(const struct site_chain *a, const struct site_chain *b)
{
    if (a->n != b->n || a->ni != b->ni) return false;
    for (int i = 0; i < a->n; i++)
        if (a->site[i] != b->site[i]) return false;
    for (int i = 0; i < a->ni; i++)
        if (a->method[i] != b->method[i] || a->bcp[i] != b->bcp[i]) return false;
    return true;
}

/*
 * The chain's interpreted frames, from the frame pointer the last compiled method saved
 * (fp) and the return address into the interpreter (pc), while they are `left` more
 * frames to name; lo: the return address's slot (the frames lie above it). False when
 * one cannot be read or the chain ends elsewhere than in the interpreter.
 */
static inline bool interp_chain(const struct alloc_tracker *t, const struct alloc_thread *at, uintptr_t pc,
                                uintptr_t fp, uintptr_t lo, int left, struct site_chain *c)
{
    while (left > 0) {
        uintptr_t next_pc, next_fp;
        if (!t->code.interp.ok || c->ni == CHAIN_INTERP || !interp_returns_to(&t->code.interp, pc) ||
            !interp_frame_read(fp, lo, at->stack_end, &c->method[c->ni], &c->bcp[c->ni], &next_pc, &next_fp))
            return false;
        c->ni++;
        left--;
        lo = fp;
        pc = next_pc;
        fp = next_fp;
    }
    return true;
}

/*
 * The code site an allocation was made at: for an object, a compiled call of
 * Tracker.newObject from an inlined Object.<init> (its frame 0, above the trace); for an
 * array, a compiled call of Tracker.newArray, right after the array's bytecode in the
 * trace's top method (frame 0 is the trace's own). NULL where there is none.
 */
static inline struct code_site_ref *alloc_site_at(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc,
                                                  bool array)
{
    struct code_site_ref *r = thread_code_site(t, at, pc);
    if (!r || r->kept < 1) return NULL;
    bool init = r->first == atomic_load_explicit(&t->object_init, memory_order_relaxed);
    return (array ? !init : init && r->kept >= 2) ? r : NULL;
}

/* The same, where it can name the trace by itself or with its callers' code sites. */
static inline struct code_site_ref *code_site_of(struct alloc_tracker *t, struct alloc_thread *at, struct host *h,
                                                 uintptr_t pc, bool array)
{
    /* thread=y: traces differ by thread */
    if (!pc || !t->code.ok || h->opt->thread || host_depth(h) + 1 > CODE_SITE_FRAMES) return NULL;
    return alloc_site_at(t, at, pc, array);
}

/* How many of a code site's inlined frames stand above the allocation's trace: those of
 * ours the walk skips less the Tracker's native, so Object.<init> for an object, none
 * for an array (alloc_site_trace takes it the same way from its top_skip). */
static inline int code_site_top(bool array) { return (array ? SKIP_DIRECT_ARRAY : SKIP_DIRECT_OBJECT) - 1; }

/*
 * When site cs inlined fewer frames than the trace takes (need): the call sites its
 * compiled method returns through, while those are compiled code too, until their
 * inlined frames add up to need (c->n left 0 when they do not). Each method's return
 * address is the last word of its frame, which starts at sp, the stack pointer of its
 * call (at first, of the call into us); the caller's frame starts just above that word.
 */
static inline void site_chain_of(struct alloc_tracker *t, struct alloc_thread *at, const struct code_site_ref *cs,
                                 uintptr_t sp, int need, struct site_chain *c)
{
    c->site[0] = cs->site;
    c->n = 1;
    c->ni = 0;
    /* Copied: the thread's copy of a site may be overwritten by the next lookup. */
    uint32_t frame_size = cs->frame_size;
    for (int have = cs->nframes; have < need;) {
        uintptr_t slot = sp + frame_size - sizeof(uintptr_t);
        if (c->n == CHAIN_MAX || !frame_size || !sp || slot < sp + sizeof(uintptr_t) ||
            slot + sizeof(uintptr_t) > at->stack_end) {
            c->n = 0;
            return;
        }
        uintptr_t pc = *(const uintptr_t *)slot;
        const struct code_site_ref *next = thread_code_site(t, at, pc);
        if (!next || next->kept < 1) {
            /* Called from the interpreter? The compiled method saved its frame pointer
             * under the return address. */
            uintptr_t fp = *(const uintptr_t *)(slot - sizeof(uintptr_t));
            if (!interp_chain(t, at, pc, fp, slot, need - have, c)) c->n = 0;
            return;
        }
        c->site[c->n++] = next->site;
        have += next->nframes;
        frame_size = next->frame_size;
        sp = slot + sizeof(uintptr_t);
    }
}

/* The trace a code site names for this depth (top: code_site_top), by itself or with
 * the chain of its callers' (then in *chain). */
static inline struct trace *code_site_trace_of(struct alloc_tracker *t, struct alloc_thread *at,
                                               struct code_site_ref *cs, uintptr_t sp, int depth, int top,
                                               struct site_chain *chain)
{
    chain->n = 0;
    if (cs->nframes >= depth + top) {
        if (cs->trace && cs->depth == depth) return cs->trace;
        struct trace *tr = code_site_trace(cs->site, depth);
        if (tr) { /* kept in the thread's copy from now on */
            cs->trace = tr;
            cs->depth = (uint16_t)depth;
        }
        return tr;
    }
    site_chain_of(t, at, cs, sp, depth + top, chain);
    if (!chain->n) return NULL;
    const struct chain_slot *p = &at->chains[chain_slot(at, chain)];
    if (p->depth != depth || !same_chain(&p->chain, chain)) return NULL;
    if (chain->ni && p->epoch != interp_epoch(t)) return NULL;
    if (t->stats.on) atomic_fetch_add_explicit(&t->stats.chain_hits, 1, memory_order_relaxed);
    return p->trace;
}

/* ---- counting ---- */

/*
 * The class of a new object at trace tr, cls (NULL: asked of the JVM). Most traces
 * allocate one class, so the class this thread last saw at tr is tried first, by
 * comparing references (no lock); else the class table's lookup (a JVMTI tag).
 */
static struct class_info *class_of(struct host *h, struct alloc_thread *at, JNIEnv *jni, jclass known, jobject obj,
                                   struct trace *tr)
{
    jclass cls = known ? known : (*jni)->GetObjectClass(jni, obj);
    unsigned slot = site_slot(at, tr);
    struct class_info *ci = at->sites[slot].trace == tr ? at->sites[slot].cls : NULL;
    jweak m = ci ? atomic_load_explicit(&ci->mirror, memory_order_acquire) : NULL;
    /* A mirror read here is deleted no sooner than two sweeps after its class's entry
     * gave it up (sources/jvm/class_sweeper.c): far longer than this one call. */
    if (!m || !(*jni)->IsSameObject(jni, m, cls)) ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
    if (!known) (*jni)->DeleteLocalRef(jni, cls);
    return ci;
}

static struct class_info *class_at(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj, struct trace *tr)
{
    return class_of(h, at, jni, NULL, obj, tr);
}

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

static void count(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj, struct class_info *ci,
                  struct trace *trace, bool inner_arrays, bool may_note);

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
        count(h, at, jni, inner, class_at(h, at, jni, inner, trace), trace, true, true);
        (*jni)->DeleteLocalRef(jni, inner);
    }
}

/* Every instance of a class has the same size, so it is asked for once per class. */
jlong alloc_exact_object_size(struct host *h, jobject obj, struct class_info *ci)
{
    jlong size = atomic_load_explicit(&ci->instance_size, memory_order_relaxed);
    if (size > 0) return size;
    size = 0;
    (*h->jvmti)->GetObjectSize(h->jvmti, obj, &size);
    /* Arrays vary with their length, class mirrors with their static fields; the
     * stand-in for classes JVMTI could not name is many classes. */
    if (size > 0 && ci->serial > SERIAL_CLASS_BASE && ci->signature && ci->signature[0] != '[' &&
        strcmp(ci->signature, "Ljava/lang/Class;") != 0)
        atomic_store_explicit(&ci->instance_size, size, memory_order_relaxed);
    return size;
}

/*
 * live=sampled: whether the site's n-th object (from 0) is held, and as one of the
 * samples, or only noted. A thread's own xorshift decides, so that no pattern of the
 * program's (keeping every 16th object, say) lines up with the samples.
 */
static bool held_as_sample(struct alloc_thread *at, uint64_t n, bool *sample)
{
    *sample = n >= LIVE_EXACT_FIRST;
    if (!*sample) return true;
    uint32_t x = at->rng ? at->rng : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    at->rng = x;
    return x % LIVE_SAMPLE_EVERY == 0;
}

/*
 * Counts one new object (of class ci) at its site, and holds it for the live counts.
 * may_note: it was counted by the Tracker's hooks, and live=sampled may note it rather
 * than hold it (what the VM reported or JNI made is always held: site_objects_is_last
 * looks for the VM's copies).
 */
static void count(struct host *h, struct alloc_thread *at, JNIEnv *jni, jobject obj, struct class_info *ci,
                  struct trace *trace, bool inner_arrays, bool may_note)
{
    struct alloc_tracker *t = alloc_of(h);
    jlong size = alloc_exact_object_size(h, obj, ci);
    struct site *s = site_of(t, at, trace, ci);
    if (!s) return;
    uint64_t n = atomic_fetch_add_explicit(&s->alloc_objs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, (uint64_t)size, memory_order_relaxed);
    bool sample = false;
    if (!(may_note && t->live.sampled) || held_as_sample(at, n, &sample))
        site_objects_add(&t->live.objects, at->log, jni, obj, s->id | (sample ? SITE_REF_SAMPLED : 0), (uint64_t)size);
    else if (!site_objects_note(&t->live.objects, at->log, jni, obj, s->id, (uint64_t)size))
        site_objects_add(&t->live.objects, at->log, jni, obj, s->id, (uint64_t)size);
    else if (t->stats.on)
        atomic_fetch_add_explicit(&t->stats.noted, 1, memory_order_relaxed);
    if (inner_arrays && ci->signature[0] == '[' && ci->signature[1] == '[') count_inner_arrays(h, at, jni, obj, trace);
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
    if (--at->window == 0) /* never constructed, it seems */
        while (at->npending) drop_pending(at, jni, at->npending - 1);
    return false;
}

/*
 * A trace deeper than a code site names, by the chain of frames from the site that
 * called us (see alloc_deep.c); NULL when none was learnt, with *deep set when the chain
 * was read, for the walk to learn it. The chain is kept in the thread's state: too large
 * for every call's stack.
 */
static struct trace *deep_trace(struct alloc_tracker *t, struct host *h, struct alloc_thread *at,
                                struct java_caller from, bool array, struct deep_chain **deep)
{
    int depth = host_depth(h), top = code_site_top(array);
    if (!from.pc || !t->deep.ok || h->opt->thread || depth + top + 1 <= CODE_SITE_FRAMES) return NULL;
    struct code_site_ref *cs = alloc_site_at(t, at, from.pc, array);
    if (!cs || !alloc_thread_deep(at)) return NULL;
    if (!alloc_deep_chain(t, at, cs, from.sp, depth + top, at->deep)) return NULL;
    *deep = at->deep;
    bool cached = false;
    struct trace *tr = alloc_deep_trace(t, at, at->deep, &cached);
    alloc_thread_note_lookup(t, at, !cached); /* which may make the caches anew, larger */
    if (tr && t->stats.on) {
        atomic_fetch_add_explicit(&t->stats.deep_hits, 1, memory_order_relaxed);
        if (at->deep->entries) atomic_fetch_add_explicit(&t->stats.deep_entry_hits, 1, memory_order_relaxed);
    }
    return tr;
}

/*
 * A new object or array from instrumented code, `skip` frames of ours above its site;
 * from: where that code returns to (pc 0 when not known); cls: the object's class, when
 * the code passed it (Object.<init>'s hook passes this.getClass(), a load in compiled
 * code, where asking the JVM is two JNI calls).
 */
static void new_object(JNIEnv *jni, jobject obj, jclass cls, bool array, int skip, struct java_caller from)
{
    struct host *h = host_get();
    if (!obj || !counting(h)) return;
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_thread *at = this_thread(t);
    if (!at) return;
    /* A new array is always new; an object may have been counted already when the VM
     * made it, before its constructor ran. */
    if (!array && at->npending && was_pending(at, jni, obj)) return;
    struct code_site_ref *ref = code_site_of(t, at, h, from.pc, array);
    struct code_site *cs = ref ? ref->site : NULL; /* the copy may not outlast the chain's lookups */
    struct site_chain chain;                       /* not cleared whole: its first n and ni entries are the chain */
    chain.n = chain.ni = 0;
    struct trace *tr =
        ref ? code_site_trace_of(t, at, ref, from.sp, host_depth(h), code_site_top(array), &chain) : NULL;
    if (tr && t->stats.on) atomic_fetch_add_explicit(&t->stats.code_hits, 1, memory_order_relaxed);
    struct deep_chain *deep = NULL;
    if (!tr && !cs) tr = deep_trace(t, h, at, from, array, &deep);
    if (!tr) tr = alloc_site_trace(h, at, jni, NULL, skip, cs, &chain, deep);
    if (!tr) return;
    if (!array) {
        count(h, at, jni, obj, class_of(h, at, jni, cls, obj, tr), tr, false, true);
        return;
    }
    struct class_info *ci = array_class_at(h, at, jni, obj, tr);
    count(h, at, jni, obj, ci, tr, true, true);
    note_array_class(at, tr, ci);
}

/* Tracker.allocated, through Tracker.ObjectInit or Tracker.NewArray. */
static void JNICALL native_allocated(JNIEnv *jni, jclass cls, jobject obj, jboolean array)
{
    new_object(jni, obj, NULL, array, array ? SKIP_ARRAY : SKIP_CONSTRUCTED, (struct java_caller){0, 0});
}

/* Tracker.newObject and Tracker.newArray, straight from the instrumented code. */
static void JNICALL native_new_object(JNIEnv *jni, jclass tracker, jobject obj, jclass cls)
{
    new_object(jni, obj, cls, false, SKIP_DIRECT_OBJECT, java_caller_of(__builtin_frame_address(0)));
}

static void JNICALL native_new_array(JNIEnv *jni, jclass tracker, jobject obj)
{
    new_object(jni, obj, NULL, true, SKIP_DIRECT_ARRAY, java_caller_of(__builtin_frame_address(0)));
}

/*
 * Whether an object of class cls (entry ci) is copied by Object.clone itself when its
 * clone() is called, rather than by an override (asked once per class).
 */
bool alloc_exact_clone_is_objects(struct alloc_tracker *t, JNIEnv *jni, struct class_info *ci, jclass cls)
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
    struct alloc_tracker *t = alloc_of(h);
    struct alloc_thread *at = this_thread(t);
    if (!at || !t->object_clone || site_objects_is_last(&t->live.objects, at->log, jni, obj)) return;
    struct class_info *ci = NULL;
    if (virtual) {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
        bool counted = !alloc_exact_clone_is_objects(t, jni, ci, cls);
        (*jni)->DeleteLocalRef(jni, cls);
        if (counted) return;
    }
    struct trace *tr = alloc_site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL, NULL);
    if (tr) count(h, at, jni, obj, ci ? ci : class_at(h, at, jni, obj, tr), tr, false, true);
}

static void JNICALL native_new_clone(JNIEnv *jni, jclass cls, jobject obj) { cloned(jni, obj, false); }
static void JNICALL native_new_virtual_clone(JNIEnv *jni, jclass cls, jobject obj) { cloned(jni, obj, true); }

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
    return s && s->cls == m->cls->canonical;
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
#define RECENT_SCAN    65536

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
    struct alloc_tracker *t = alloc_of(h);
    jvmtiFrameInfo f[2];
    if (alloc_walk_stack(h, jni, thread, f, 2) != 2) return false;
    jmethodID handle = atomic_load_explicit(&t->handle_alloc, memory_order_acquire);
    if (handle)
        return f[1].method == handle && f[0].method == atomic_load_explicit(&t->unsafe_alloc, memory_order_relaxed);
    if (!is_method(h, jni, f[1].method, "Ljava/lang/invoke/DirectMethodHandle;", "allocateInstance") ||
        !is_method(h, jni, f[0].method, "Ljdk/internal/misc/Unsafe;", "allocateInstance"))
        return false;
    atomic_store_explicit(&t->unsafe_alloc, f[0].method, memory_order_relaxed);
    atomic_store_explicit(&t->handle_alloc, f[1].method, memory_order_release);
    return true;
}

/*
 * Whether the class is a lambda's proxy: a hidden class (its signature has the ".0x" of
 * a hidden class's name, which no other class can have) named $$Lambda. The VM makes
 * its objects only for the constructor a MethodHandle runs next (made_for_constructor),
 * so they need no walk to be told: on JDK 24+, where every capturing lambda is made so,
 * that walk was 8% of javac's CPU under heap=sites.
 */
static bool lambda_proxy(const struct class_info *ci)
{
    return ci && ci->signature && strstr(ci->signature, "$$Lambda") && strstr(ci->signature, ".0x");
}

void JNICALL alloc_exact_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                         jlong size)
{
    struct host *h = host_get();
    if (!counting(h) || host_is_own_current(h, jni, thread)) return;
    struct alloc_thread *at = this_thread(alloc_of(h));
    if (!at) return;
    struct class_match m = {&alloc_of(h)->sites, classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids)};
    if (lambda_proxy(m.cls) || made_for_constructor(h, jni, thread)) return;
    struct trace *tr = alloc_site_trace(h, at, jni, thread, SKIP_NONE, NULL, NULL, NULL);
    if (!tr) return;
    size_t overlap = constructor_ran(tr) ? RECENT_SCAN : RECENT_OVERLAP;
    if (site_objects_recent(&alloc_of(h)->live.objects, at->log, jni, object, site_of_class, &m, overlap, RECENT_SCAN))
        return;
    count(h, at, jni, object, m.cls, tr, false, false);
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
    jobject obj = alloc_of(h)->jni_table->AllocObject(jni, cls);
    if (obj && counting(h)) {
        struct alloc_thread *at = this_thread(alloc_of(h));
        struct trace *tr = at ? alloc_site_trace(h, at, jni, NULL, SKIP_NONE, NULL, NULL, NULL) : NULL;
        if (tr) count(h, at, jni, obj, classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids), tr, false, false);
    }
    return obj;
}

void alloc_exact_wrap_jni(struct host *h, jobject(JNICALL *alloc_object)(JNIEnv *, jclass),
                          void (*more)(jniNativeInterface *ours))
{
    struct alloc_tracker *t = alloc_of(h);
    jniNativeInterface *table = NULL;
    if ((*h->jvmti)->GetJNIFunctionTable(h->jvmti, &table) != JVMTI_ERROR_NONE || !table) return;
    t->jni_table = table; /* kept: our wrapper calls through it */
    jniNativeInterface *ours = NULL;
    if ((*h->jvmti)->Allocate(h->jvmti, sizeof *ours, (unsigned char **)&ours) != JVMTI_ERROR_NONE) return;
    *ours = *table;
    ours->AllocObject = alloc_object;
    if (more) more(ours);
    (*h->jvmti)->SetJNIFunctionTable(h->jvmti, ours);
}

void alloc_exact_add_skip(struct alloc_tracker *t, JNIEnv *jni, jclass cls, const char *name, const char *sig,
                          bool is_static)
{
    jmethodID m = is_static ? (*jni)->GetStaticMethodID(jni, cls, name, sig) : (*jni)->GetMethodID(jni, cls, name, sig);
    if (!m)
        (*jni)->ExceptionClear(jni);
    else if (t->nskip < SKIP_METHODS)
        t->skip[t->nskip++] = m;
}

static void bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t || !tracker) return;
    JNINativeMethod natives[] = {{"allocated", "(Ljava/lang/Object;Z)V", (void *)native_allocated},
                                 {"newObject", "(Ljava/lang/Object;Ljava/lang/Class;)V", (void *)native_new_object},
                                 {"newArray", "(Ljava/lang/Object;)V", (void *)native_new_array},
                                 {"newClone", "(Ljava/lang/Object;)V", (void *)native_new_clone},
                                 {"newVirtualClone", "(Ljava/lang/Object;)V", (void *)native_new_virtual_clone}};
    if ((*jni)->RegisterNatives(jni, tracker, natives, 5) != 0) {
        (*jni)->ExceptionClear(jni);
        log_error("the Tracker class does not match this agent; heap=sites has no data");
        return;
    }
    alloc_exact_add_skip(t, jni, tracker, "allocated", "(Ljava/lang/Object;Z)V", true);
    alloc_exact_add_skip(t, jni, tracker, "newObject", "(Ljava/lang/Object;Ljava/lang/Class;)V", true);
    alloc_exact_add_skip(t, jni, tracker, "newArray", "(Ljava/lang/Object;)V", true);
    alloc_exact_add_skip(t, jni, tracker, "ObjectInit", "(Ljava/lang/Object;Ljava/lang/Class;)V", true);
    t->clone_hooks[0] = (*jni)->GetStaticMethodID(jni, tracker, "newClone", "(Ljava/lang/Object;)V");
    t->clone_hooks[1] = (*jni)->GetStaticMethodID(jni, tracker, "newVirtualClone", "(Ljava/lang/Object;)V");
    (*jni)->ExceptionClear(jni);
    alloc_exact_add_skip(t, jni, tracker, "NewArray", "(Ljava/lang/Object;)V", true);
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    if (object) alloc_exact_add_skip(t, jni, object, "<init>", "()V", false);
    if (object) atomic_store(&t->object_init, (*jni)->GetMethodID(jni, object, "<init>", "()V"));
    if (object) t->object_clone = (*jni)->GetMethodID(jni, object, "clone", "()Ljava/lang/Object;");
    (*jni)->ExceptionClear(jni);
    t->tracker = (*jni)->NewGlobalRef(jni, tracker);
    t->allocs = (*jni)->GetStaticFieldID(jni, tracker, "allocs", "I");
    if (!t->allocs) (*jni)->ExceptionClear(jni);
    atomic_store(&t->bound, true);
}

bool alloc_exact_bound(struct host *h) { return alloc_of(h) && atomic_load(&alloc_of(h)->bound); }

static void vm_init(struct host *h)
{
    alloc_exact_wrap_jni(h, jni_alloc_object, NULL);
    async_trace_vm_init(alloc_of(h)->walker, h->jvmti, NULL);
    /* Chains that end in the interpreter (HPROF_INTERP_CHAINS=0: never); code sites mean
     * a walker, whose count of prepared classes outdates those chains. */
    if (alloc_of(h)->code.ok && env_switch("HPROF_INTERP_CHAINS", true))
        interp_layout_init(h->jvmti, &alloc_of(h)->code.interp);
    alloc_of(h)->deep.ok = alloc_of(h)->code.ok && alloc_of(h)->code.interp.ok && env_switch("HPROF_DEEP_CHAINS", true);
    if (alloc_of(h)->deep.ok) entry_layout_init(h->jvmti, &alloc_of(h)->deep.entry);
    if (alloc_of(h)->code.interp.ok && env_switch("HPROF_UNLOAD_EPOCH", true) &&
        perfdata_map_self(&alloc_of(h)->code.perf))
        alloc_of(h)->code.unloaded = perfdata_long(&alloc_of(h)->code.perf, "java.cls.unloadedClasses");
}

/* live=sampled where objects can be noted; said when they cannot. */
static void start(struct host *h)
{
    struct alloc_tracker *t = alloc_of(h);
    t->live.sampled = h->opt->live == LIVE_SAMPLED && site_objects_can_note(&t->live.objects);
    if (h->opt->live == LIVE_SAMPLED && !t->live.sampled)
        log_plain("HPROF: live=sampled: this collector moves objects while the program runs (or the JVM's "
                  "references are not laid out as expected): every object is held, live counts are exact");
}

/* Counting starts once the Tracker is bound (alloc_tracker_vm_init). */
const struct alloc_mode alloc_exact_mode = {.init = init,
                                            .start = start,
                                            .bind = bind,
                                            .vm_init = vm_init,
                                            .vm_object_alloc = alloc_exact_vm_object_alloc,
                                            .sampled_object_alloc = NULL};
