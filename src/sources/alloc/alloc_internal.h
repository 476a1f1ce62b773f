/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites inside (sources/alloc/alloc_tracker.h is what the rest of the agent sees): the
 * state its files share, the helpers of the allocation path (static inline: they ran
 * inlined when they were one file's), and what each file offers the ones above it.
 *
 * The files, each calling only those below it:
 *   alloc_tracker.c     life cycle: capabilities, callbacks, events, on/off
 *   alloc_exact.c       exact counting: the Tracker's natives, VMObjectAlloc, JNI AllocObject
 *   alloc_live.c        the live counts at a dump: the sweep after a GC, or a reference walk
 *   alloc_sampled.c     alloc_sample=<bytes>: SampledObjectAlloc and its estimates
 *   alloc_trace.c       an allocation's trace: the stack walk and each thread's caches
 *   alloc_deep.c        deeper traces, named by the chain of frames read from the stack
 *   alloc_code_sites.c  traces named by the return addresses of compiled code
 *   site_objects.c      the counted objects, held weakly
 */
#ifndef HPROF_ALLOC_INTERNAL_H
#define HPROF_ALLOC_INTERNAL_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/hotspot/async_trace.h"
#include "sources/hotspot/entry_frame.h"
#include "sources/hotspot/interp_frame.h"
#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/alloc/site_objects.h"
#include "tables/code_sites.h"
#include "tables/sites.h"
#include "util/perfdata.h"

#define MAX_SKIP 8 /* Tracker and Object.<init> frames on top of a stack */
/* How many of them stand above the allocation site, so that the walk takes that many more
 * frames than the trace keeps: allocated + Tracker.ObjectInit + Object.<init>, or
 * allocated + Tracker.NewArray; none in a JVMTI event or our JNI wrapper. */
#define SKIP_CONSTRUCTED 3
#define SKIP_ARRAY       2
/* Tracker.newObject + Object.<init>, or Tracker.newArray: called straight from the
 * instrumented code, without the Java method between. */
#define SKIP_DIRECT_OBJECT 2
#define SKIP_DIRECT_ARRAY  1
#define SKIP_NONE          0

struct alloc_tracker {
    struct site_table sites;
    struct site_objects objects; /* each counted object, held weakly, with its site */
    bool exact;                  /* alloc_tracker_exact: every allocation, not samples */
    /* live=sampled, where objects can be noted (site_objects_can_note): past a site's
     * first LIVE_EXACT_FIRST objects, the Tracker's are held one in LIVE_SAMPLE_EVERY. */
    bool live_sampled;
    jmethodID skip[MAX_SKIP]; /* frames that are not the allocation site */
    int nskip;
    jclass tracker;
    jfieldID allocs;               /* Tracker.allocs: 1 while counting */
    jniNativeInterface *jni_table; /* the JNI functions as they were, before ours */
    pthread_key_t per_thread;      /* struct alloc_thread of each allocating thread */
    struct async_trace *walker;    /* the fast stack walk; NULL: GetStackTrace only */
    _Atomic bool bound;            /* Tracker.newObject and newArray are ours */
    /* Compiled call sites of Tracker.newObject whose return address names the trace
     * (see tables/code_sites.h); code_ok: the table is in use. */
    struct code_sites code;
    bool code_ok;
    struct cmap deep; /* chains of frames past one code site's: see alloc_deep.c */
    bool deep_ok;     /* in use (HPROF_DEEP_CHAINS=0: never) */
    /* the table's entries, carved from chunks under the lock, up to DEEP_CHAINS_MAX */
    pthread_mutex_t deep_lock;
    void *deep_chunk;
    uint32_t deep_left, deep_count;
    /* Compiled wrappers of native methods (which have no code site until a chain meets
     * one): their code, frame size and method; under the lock. */
    pthread_mutex_t wrappers_lock;
    struct native_wrapper {
        uintptr_t code_lo, code_hi;
        uint32_t frame_size;
        jmethodID method;
    } * wrappers;
    uint32_t nwrappers, capwrappers;
    /* Interpreted callers a chain of code sites may end with (interp.ok: read them), and
     * the walker's count of classes prepared, which outdates the chains that have some. */
    struct interp_layout interp;
    struct entry_layout entry; /* the call stub's frames, which deep chains cross */
    const _Atomic uint32_t *prepared;
    /* jvmstat's count of classes unloaded (NULL without jvmstat), which outdates those
     * chains more seldom: see interp_epoch. */
    struct perfdata perf;
    const volatile int64_t *unloaded;
    /* Interpreted frames read as a walk found them, and whether one ever was not: after
     * INTERP_PROVEN of the one and none of the other, the layout is taken as known and
     * new chains are learnt from the walk alone (the check costs system calls); after
     * one of the other, no chain with interpreted frames is learnt. */
    _Atomic uint32_t interp_checked;
    _Atomic bool interp_wrong;
    _Atomic(jmethodID) object_init; /* java.lang.Object.<init>, once bound */
    jmethodID object_clone;         /* java.lang.Object.clone, once bound */
    jmethodID clone_hooks[2];       /* Tracker.newClone and newVirtualClone */
    /* DirectMethodHandle.allocateInstance and the Unsafe.allocateInstance it calls,
     * once an object made there was seen (see made_for_constructor) */
    _Atomic(jmethodID) handle_alloc, unsafe_alloc;
    bool stack_stats; /* HPROF_STACK_STATS: count the walks of each kind */
    _Atomic uint64_t fast_walks, jvmti_walks, code_hits, chain_hits, deep_hits, deep_entry_hits;
    _Atomic uint64_t deep_learnt, deep_learnt_interp, deep_relearnt, deep_unconfirmed, deep_named;
    _Atomic uint64_t noted;      /* live=sampled: objects counted but not held */
    _Atomic uint32_t most_slots; /* the largest per-thread cache so far */
    _Atomic bool on;
};

/*
 * Each allocating thread keeps the traces and sites it met last, so that the usual
 * allocation finds both without taking a lock of the shared tables. Entries only point
 * into the tables, which keep every trace and site until the agent ends.
 *
 * The caches start small (a thread that allocates a little costs about 50 KiB) and double,
 * up to 64 times their first size, while more than 1 in 64 lookups miss: a program
 * like javac allocates at tens of thousands of traces in turn.
 */
#define FIRST_SLOTS  512
#define MAX_SLOTS    (FIRST_SLOTS * 64)
#define GROW_WINDOW  65536 /* lookups between two looks at the misses */
#define CHECK_WINDOW 1024
#define MAX_PENDING  8

struct trace_slot {
    uint64_t hash;
    struct trace *trace;
};

struct site_slot { /* by trace: the site of its class last seen */
    struct trace *trace;
    struct class_info *cls;
    struct site *site;
    struct class_info *array_cls; /* the class of the arrays the bytecode at the
                                          trace's top makes (see array_class_at) */
};

/*
 * A code site and the call sites of the compiled methods it returns through, up to
 * CHAIN_MAX in all: as many as it takes for their inlined frames to make the trace (see
 * site_chain_of). n is 0 when the site needs none, or when no chain makes the trace.
 * When the last compiled method was called by the interpreter (a loop compiled on stack
 * replacement, under a caller that ran once), the chain goes on with up to CHAIN_INTERP
 * interpreted frames, each named by its Method* and bytecode pointer.
 */
#define CHAIN_MAX     4
#define CHAIN_INTERP  3
#define INTERP_PROVEN 64
struct site_chain {
    const struct code_site *site[CHAIN_MAX];
    int n, ni;
    uintptr_t method[CHAIN_INTERP], bcp[CHAIN_INTERP];
};

/* By a chain of code sites: the trace found for it, and for a chain with interpreted
 * frames, interp_epoch when it was. */
struct chain_slot {
    struct site_chain chain;
    struct trace *trace;
    int depth;
    uint32_t epoch;
};

struct alloc_thread {
    struct site_log *log; /* the objects it counted */
    uint32_t rng;         /* live=sampled: which objects are held (xorshift32, never 0) */
    uintptr_t stack_end;  /* the top of its stack (0: not known) */
    /* Objects the VM made and counted whose constructor may still run (see
     * constructor_follows), and how many more constructions to check for them. */
    jweak pending[MAX_PENDING];
    uint32_t npending;
    uint32_t window;
    uint32_t nslots;          /* of each cache, a power of two */
    uint32_t lookups, misses; /* since the last look */
    struct trace_slot *traces;
    struct site_slot *sites;
    struct chain_slot *chains;
    struct deep_chain *deep;      /* the last chain read (alloc_deep.c), made on first need */
    struct deep_slot *deep_slots; /* with it, nslots of chains' traces, by their hash */
    struct interp_name *names;    /* and DEEP_NAMES interpreted methods' names, by Method* */
    struct code_site_ref *refs;   /* the code sites it met last, by return address */
    uintptr_t not_wrapper;        /* the last pc alloc_code_sites_at found in no wrapper */
};

/* Where the Java code that called a native method of ours returns to: pc, with its
 * stack pointer (sp) at the call. Both 0 when not known. */
struct java_caller {
    uintptr_t pc, sp;
};

/* The source's state (heap=sites); NULL before its init or without it. */
static inline struct alloc_tracker *alloc_of(const struct host *h) { return host_state(h, SOURCE_ALLOC); }

static inline bool counting(struct host *h)
{
    struct alloc_tracker *t = alloc_of(h);
    return t && atomic_load_explicit(&t->on, memory_order_relaxed) && atomic_load(&h->phase) == PHASE_LIVE;
}

/* ---- alloc_trace.c ---- */

/* The calling thread's state, made on first need; NULL when out of memory. */
struct alloc_thread *alloc_thread_new(struct alloc_tracker *t);
/* Counts a lookup in the thread's caches (of traces, of deep chains); now and then
 * grows them, empty, if too many missed. */
void alloc_thread_note_lookup(struct alloc_tracker *t, struct alloc_thread *at, bool missed);
/* The thread's deep chain and its cache of chains' traces, made on first need; false
 * without memory. */
bool alloc_thread_deep(struct alloc_thread *at);
/* The pthread key's destructor (no JNI there). */
void alloc_thread_ended(void *p);

/* NULL when out of memory: the allocation is then not counted. */
static inline struct alloc_thread *this_thread(struct alloc_tracker *t)
{
    struct alloc_thread *at = pthread_getspecific(t->per_thread);
    return at ? at : alloc_thread_new(t);
}

static inline unsigned site_slot(const struct alloc_thread *at, struct trace *tr)
{
    return (unsigned)(hash_mix64((uint64_t)(uintptr_t)tr) >> 40) & (at->nslots - 1);
}

/* The site of trace tr and class ci: this thread's cached one, else the table's. */
static inline struct site *site_of(struct alloc_tracker *t, struct alloc_thread *at, struct trace *tr,
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

/* The current thread's stack, up to want frames (thread: NULL or the current thread). */
jint alloc_walk_stack(struct host *h, JNIEnv *jni, jthread thread, jvmtiFrameInfo *frames, int want);
/*
 * The allocation site of the current thread (thread NULL), or of the thread a JVMTI
 * event names: its stack without our frames (the walk takes top_skip more frames than
 * the depth, for them). With a code site, the trace is cached there (or for its chain,
 * when chain->n > 0) when the walk confirms what the sites say was inlined.
 */
struct trace *alloc_site_trace(struct host *h, struct alloc_thread *at, JNIEnv *jni, jthread thread, int top_skip,
                               struct code_site *cs, const struct site_chain *chain, const struct deep_chain *deep);

/* ---- alloc_deep.c ---- */

/* A chain of frames as read from the stack (see alloc_deep.c): a compiled frame's code
 * site (a), or an interpreted frame's Method* (a) and bytecode pointer. */
#define DEEP_MAX        128
#define DEEP_CHAINS_MAX (1u << 21) /* chains learnt at most (96 MiB); later ones walked */
#define DEEP_MARKS      8          /* calls into Java, and the end, a chain keeps where */
#define DEEP_NAMES      512        /* interpreted methods a thread knows the names of */
struct deep_token {
    uintptr_t a, bcp;
    int kind;
};
struct deep_chain {
    struct deep_token tok[DEEP_MAX];
    int n;       /* tokens */
    int have;    /* frames they hold */
    int need;    /* frames the trace takes, with the site's own on top */
    int entries; /* calls into Java from the VM or native code it goes across */
    bool interp, ended;
    uint64_t h1, h2;
    /* Where the marks of calls into Java and of the stack's end fell (before token
     * mark_at[i]), to hash the chain again with its frames named; nmarks may pass
     * DEEP_MARKS (the chain is then not hashed again). */
    int nmarks;
    uint8_t mark_at[DEEP_MARKS], mark_kind[DEEP_MARKS];
};

/* What a walk said an interpreted method is: its jmethodID, and where its bytecode
 * starts (a frame's bytecode pointer less its bytecode index), while interp_epoch is
 * epoch (a Method* may stand for another method once a class is unloaded). */
struct interp_name {
    uintptr_t method, code;
    jmethodID id;
    uint32_t epoch;
};

/* A chain's trace, in a thread's cache (alloc_deep.c's table's key and value). */
struct deep_slot {
    uint64_t h1, h2;
    int have, need;
    struct trace *trace;
    uint32_t epoch;
};

/* The chain from compiled site cs, called at stack pointer sp, until it holds need
 * frames or the stack ends; false when a frame cannot be read. */
bool alloc_deep_chain(struct alloc_tracker *t, struct alloc_thread *at, const struct code_site_ref *cs, uintptr_t sp,
                      int need, struct deep_chain *d);
/* The trace a walk found for the same chain before (in the thread's cache, else the
 * shared table: *cached says which); NULL if none did. */
struct trace *alloc_deep_trace(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                               bool *cached);
/* After a walk of want frames (n found; frames[0] ours) found tr: kept for chain d if
 * the walk confirms it. */
void alloc_deep_learn(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                      const jvmtiFrameInfo *frames, int n, int want, struct trace *tr);

/* ---- alloc_code_sites.c ---- */

/* At load: whether traces are looked up by return address (HPROF_CODE_SITES=0: never). */
bool alloc_code_sites_init(struct alloc_tracker *t);
void JNICALL alloc_code_sites_loaded(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                                     jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL alloc_code_sites_unloaded(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);
/* After a walk of depth frames past our frames found trace tr: caches it at cs (or for
 * its chain) if the walk's frames are the ones inlined there. frames[0] is the Tracker's
 * native, then come the site's `top` frames (code_site_top), then tr's. */
/* Whether an interpreted frame's Method* and bytecode pointer, as read from its frame,
 * are the walk's frame f: checked against the VM's structures (system calls) until
 * INTERP_PROVEN frames were, then taken as known; never again once one was wrong. */
bool alloc_code_sites_interp_is(struct alloc_tracker *t, uintptr_t method, uintptr_t bcp, const jvmtiFrameInfo *f);
/* The code site of return address pc, or of the native method wrapper pc lies in (made
 * for it on first need), as the thread's copy; NULL if none. */
const struct code_site_ref *alloc_code_sites_at(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc);
void alloc_code_sites_learn(struct alloc_tracker *t, struct alloc_thread *at, struct code_site *cs,
                            const struct site_chain *chain, const jvmtiFrameInfo *frames, int depth, int top,
                            struct trace *tr);

/* Whether the walk's frames f are the first n frames inlined at site s. */
static inline bool code_site_frames_are(const struct code_site *s, const jvmtiFrameInfo *f, int n)
{
    for (int i = 0; i < n; i++)
        if (f[i].method != s->frames[i].method || f[i].location != s->frames[i].bci) return false;
    return true;
}

/* The chain's slot: its sites' addresses folded, then mixed once (on every allocation
 * that takes a chain). */
static inline unsigned chain_slot(const struct alloc_thread *at, const struct site_chain *c)
{
    uint64_t h = 0;
    for (int i = 0; i < c->n; i++) h = (h << 17 | h >> 47) ^ (uint64_t)(uintptr_t)c->site[i];
    for (int i = 0; i < c->ni; i++) h = (h << 17 | h >> 47) ^ c->method[i] ^ c->bcp[i] << 7;
    return (unsigned)(hash_mix64(h) >> 40) & (at->nslots - 1);
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
        if (!t->interp.ok || c->ni == CHAIN_INTERP || !interp_returns_to(&t->interp, pc) ||
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

/* The code site at return address pc, as the thread's copy (good until its next lookup). */
static inline struct code_site_ref *thread_code_site(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc)
{
    return code_sites_find_cached(&t->code, at->refs, at->nslots - 1, pc);
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
    if (!pc || !t->code_ok || h->opt->thread || host_depth(h) + 1 > CODE_SITE_FRAMES) return NULL;
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

/*
 * What outdates a chain with interpreted frames, whose Method* may stand for another
 * method once the memory of an unloaded class is reused: the count of classes unloaded
 * (jvmstat's, raised as the GC unloads them, before their memory is freed), or, without
 * jvmstat, of classes prepared (a class is prepared before its methods run), which moves
 * far more often.
 */
static inline uint32_t interp_epoch(const struct alloc_tracker *t)
{
    if (t->unloaded) return (uint32_t)*t->unloaded;
    return atomic_load_explicit(t->prepared, memory_order_acquire);
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
    if (t->stack_stats) atomic_fetch_add_explicit(&t->chain_hits, 1, memory_order_relaxed);
    return p->trace;
}

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

/* ---- alloc_exact.c, alloc_live.c, alloc_sampled.c ---- */

/* At load, exact counting: the JIT settings, the stack walker, the code sites, and the
 * capabilities it needs in caps. */
void alloc_exact_init(struct host *h, jvmtiCapabilities *caps);
/* At VM init, once bound: JNI AllocObject wrapped, the walker's method IDs made. */
void alloc_exact_vm_init(struct host *h);
void JNICALL alloc_exact_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                         jlong size);

/* At load, sampling: its interval; -1 when the JVM refused it. */
int alloc_sampled_init(struct host *h);
void JNICALL alloc_sampled_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass cls,
                                        jlong size);

void JNICALL alloc_live_gc_started(jvmtiEnv *jvmti);
void JNICALL alloc_live_gc_finished(jvmtiEnv *jvmti);

#endif
