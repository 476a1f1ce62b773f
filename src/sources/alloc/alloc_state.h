/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the state its files share (the rest of the agent sees alloc_tracker.h).
 * Each file declares its own functions in its own header; this one holds only the
 * state, grouped by the file that owns each part, and `counting`.
 *
 * The files, each calling only those after it (a pipeline):
 *   alloc_tracker.c     life cycle and the public API: capabilities, callbacks, on/off
 *   alloc_exact.c       exact counting: the Tracker's natives, VMObjectAlloc, JNI AllocObject
 *   alloc_sampled.c     alloc_sample=<bytes>: SampledObjectAlloc and its estimates
 *   alloc_counted.c     callers=sampled: bytecode sites counted in Java, callers sampled
 *   alloc_trace.c       an allocation's trace: the stack walk and each thread's caches
 *   alloc_deep.c        deeper traces, named by the chain of frames read from the stack
 *   alloc_code_sites.c  traces named by the return addresses of compiled code
 *   alloc_live.c        the live counts at a dump: the sweep after a GC, or a reference walk
 *   site_objects.c      the counted objects, held weakly
 */
#ifndef HPROF_ALLOC_STATE_H
#define HPROF_ALLOC_STATE_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/alloc/site_objects.h"
#include "sources/host.h"
#include "sources/hotspot/entry_frame.h"
#include "sources/hotspot/interp_frame.h"
#include "tables/alloc_sites.h"
#include "tables/code_sites.h"
#include "tables/sites.h"
#include "util/cmap.h"
#include "util/perfdata.h"

struct async_trace;

#define MAX_SKIP     16 /* Tracker and Object.<init> frames on top of a stack */
#define SKIP_METHODS 24 /* the methods such frames may be of */
#define MAX_PENDING  8  /* a thread's objects made by the VM, constructor pending */

/* Compiled wrappers of native methods (which have no code site until a chain meets one):
 * their code, frame size and method. */
struct native_wrapper {
    uintptr_t code_lo, code_hi;
    uint32_t frame_size;
    jmethodID method;
};

/* alloc_code_sites.c: compiled call sites of Tracker.newObject whose return address names
 * the trace (see tables/code_sites.h), and what chains of them that end in the
 * interpreter read. */
struct alloc_code {
    struct code_sites sites;
    bool ok; /* the table is in use */
    pthread_mutex_t wrappers_lock;
    struct native_wrapper *wrappers; /* under the lock */
    uint32_t nwrappers, capwrappers;
    /* Interpreted callers a chain of code sites may end with (interp.ok: read them), and
     * the walker's count of classes prepared, which outdates the chains that have some. */
    struct interp_layout interp;
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
};

/* alloc_deep.c: chains of frames past one code site's. */
struct alloc_deep {
    struct cmap chains;
    bool ok; /* in use (HPROF_DEEP_CHAINS=0: never) */
    /* the table's entries, carved from chunks under the lock, up to DEEP_CHAINS_MAX */
    pthread_mutex_t lock;
    void *chunk;
    uint32_t left, count;
    struct entry_layout entry; /* the call stub's frames, which deep chains cross */
};

/* alloc_live.c and site_objects.c: each counted object, held weakly, with its site. */
struct alloc_live {
    struct site_objects objects;
    /* live=sampled, where objects can be noted (site_objects_can_note): past a site's
     * first LIVE_EXACT_FIRST objects, the Tracker's are held one in LIVE_SAMPLE_EVERY. */
    bool sampled;
};

/* HPROF_STACK_STATS (on): how the traces were found, printed at each SITES dump. */
struct alloc_stats {
    bool on;
    _Atomic uint64_t fast_walks, jvmti_walks, code_hits, chain_hits, deep_hits, deep_entry_hits;
    _Atomic uint64_t deep_learnt, deep_learnt_interp, deep_relearnt, deep_unconfirmed, deep_named;
    _Atomic uint64_t noted;      /* live=sampled: objects counted but not held */
    _Atomic uint64_t top_walks;  /* callers=sampled: walks of the top frame alone (the VM's reports) */
    _Atomic uint32_t most_slots; /* the largest per-thread cache so far */
};

/*
 * A way of counting (alloc_exact.c, alloc_sampled.c): what it adds to the tracker's life
 * cycle (alloc_tracker.c). Each may be NULL.
 */
struct alloc_mode {
    /* At load, before the capabilities are asked for: its state, its capabilities. */
    void (*init)(struct host *h, jvmtiCapabilities *caps);
    /* At load, once they are granted: its settings and events; -1 when it cannot count. */
    int (*ready)(struct host *h);
    /* At VM start, once the objects' slots are known. */
    void (*start)(struct host *h);
    /* Counting on or off (alloc_tracker_enable), after the tracker's own flag. */
    void (*enable)(struct host *h, bool on);
    /* At VM init: its natives on the Tracker (bind), then its JVMTI and JNI set-up. */
    void (*bind)(struct host *h, JNIEnv *jni, jclass tracker);
    void (*vm_init)(struct host *h);
    /* JVMTI's VMObjectAlloc and SampledObjectAlloc, when it takes them. */
    jvmtiEventVMObjectAlloc vm_object_alloc;
    /* Whether it takes VMObjectAlloc (NULL: it does). callers=sampled counts what the VM
     * makes by hooks after the natives that make it, and the rest by the event only where
     * the JVM does not pay for it: on JDK 22+ the event, once on, costs compiled code its
     * inline Unsafe.allocateInstance (every capturing lambda then calls the runtime). */
    bool (*vm_reports)(struct host *h);
    jvmtiEventSampledObjectAlloc sampled_object_alloc;
    /* Its own live counts at a dump (gc: one may be forced) and after a GC (timeline=),
     * in place of alloc_live.c's; and a prepared class. */
    void (*count_live)(struct host *h, JNIEnv *jni, bool gc);
    void (*class_prepare)(struct host *h, JNIEnv *jni, jclass cls);
};

/* alloc_counted.c (callers=sampled): the numbered sites, and what a dump has read. */
#define HOOKED_NATIVES 16 /* callers=sampled: the natives whose objects their hooks count */

struct alloc_count {
    struct alloc_sites sites;
    bool vm_reports;                  /* VMObjectAlloc taken (JDK before 22) */
    jmethodID hooked[HOOKED_NATIVES]; /* its reports from these are left to the hooks */
    int nhooked;
    jmethodID sites_sum;        /* Tracker.sitesSum */
    pthread_mutex_t merge_lock; /* one merge at a time (dumps, the timeline) */
    _Atomic uint64_t samples;   /* callers sampled (HPROF_STACK_STATS) */
    _Atomic uint64_t sample_ns; /* ... and the thread CPU time they took */
};

struct alloc_tracker {
    struct site_table sites;
    bool exact;                /* alloc_tracker_exact: every allocation, not samples */
    struct alloc_count *count; /* callers=sampled only */
    const struct alloc_mode *mode;
    _Atomic bool on;

    /* alloc_exact.c: what the Tracker's natives are bound to, and the frames and methods
     * a walk knows for ours */
    jclass tracker;
    jfieldID allocs;               /* Tracker.allocs: 1 while counting */
    _Atomic bool bound;            /* Tracker.newObject and newArray are ours */
    jniNativeInterface *jni_table; /* the JNI functions as they were, before ours */
    jmethodID skip[SKIP_METHODS];  /* frames that are not the allocation site */
    int nskip;
    _Atomic(jmethodID) object_init; /* java.lang.Object.<init>, once bound */
    jmethodID object_clone;         /* java.lang.Object.clone, once bound */
    jmethodID clone_hooks[2];       /* Tracker.newClone and newVirtualClone */
    /* DirectMethodHandle.allocateInstance and the Unsafe.allocateInstance it calls,
     * once an object made there was seen (see made_for_constructor) */
    _Atomic(jmethodID) handle_alloc, unsafe_alloc;

    /* alloc_trace.c */
    pthread_key_t per_thread;   /* struct alloc_thread of each allocating thread */
    struct async_trace *walker; /* the fast stack walk; NULL: GetStackTrace only */

    struct alloc_code code;
    struct alloc_deep deep;
    struct alloc_live live;
    struct alloc_stats stats;
};

/*
 * Each allocating thread keeps the traces and sites it met last (alloc_trace.c), so
 * that the usual allocation finds both without taking a lock of the shared tables.
 * Entries only point into the tables, which keep every trace and site until the agent
 * ends.
 */
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
    /* callers=sampled: the agent itself allocates on this thread (not counted) */
    bool busy;
};

/* The source's state (heap=sites); NULL before its init or without it. */
static inline struct alloc_tracker *alloc_of(const struct host *h) { return host_state(h, SOURCE_ALLOC); }

static inline bool counting(struct host *h)
{
    struct alloc_tracker *t = alloc_of(h);
    return t && atomic_load_explicit(&t->on, memory_order_relaxed) && atomic_load(&h->phase) == PHASE_LIVE;
}

#endif
