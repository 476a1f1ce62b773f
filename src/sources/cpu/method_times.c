/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/method_times.h"

#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/host.h"
#include "sources/resolve.h"
#include "tables/bci_classes.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/env.h"

/*
 * Handing batches over without waiting. Each thread's stack has a list of batches not
 * yet counted and a claim: whoever holds the claim counts the stack's batches, in the
 * order they came, and no one else touches the stack meanwhile. A thread hands a batch
 * over by pushing it on the list and trying the claim. If someone holds it, that one
 * counts the batch too. If not, the thread passes its stack to the timer thread while
 * fewer than MAX_QUEUED batches wait, or else counts them itself: a thread that outruns
 * the timer thread pays for its own events, and waits for no one. The timer thread, when
 * too much waits, leaves a stack after each round for its thread to take up at its next
 * batch (or a flush, if it has none), so one fast thread cannot pile batches up
 * behind it either.
 */

#define MAX_STACK    (1 << 20)
#define EDGE_MAX     (1 << 16) /* the most edges a stack has, 4 MiB: then it starts again */
#define EDGE_CALLS   0xffff    /* the most calls an edge holds before they go to its trace */
#define NO_EDGE      UINT32_MAX
#define MAX_QUEUED   64         /* batches waiting for the timer thread, about (bounded memory) */
#define POOLED       MAX_QUEUED /* counted batches kept for reuse: no more than may wait */
#define POOLED_SLOTS 8192       /* and only those with room for this many slots (64 KiB) */

struct call_frame {
    uint32_t cnum, mnum;
    struct frame *frame; /* its method's; NULL until named (a miss), or out of memory */
    struct trace *trace; /* its stack's (NULL when it cannot be had) */
    uint32_t edge;       /* where its call is counted, or NO_EDGE: straight into trace */
    uint32_t last_child; /* the edge of its latest callee, NO_EDGE before its first */
    int64_t start;       /* time at entry */
    int64_t callees;     /* time spent in callees so far */
    bool leaves;         /* it called trivial methods, whose time is part of its own, or untimed ones */
    bool untimed;        /* its entry read no clock (timed by sample): charged its method's mean */
};

/*
 * A step of the replay: a call of method `code` from a frame whose trace is `from` (NULL
 * at the bottom) makes a frame whose trace is `to`, the same whatever lies deeper, as a
 * trace holds only the top frames. So an entry looks up one small key instead of naming
 * its frame and hashing the stack's top; the calls and time of a batch add up here and go
 * to the trace once at its end, and so do the calls timed at both ends to their method's
 * mean (timing=sampled): the method's line, shared by every replay, is written once per
 * batch, not at every call. Two hints name the edge of the first call a frame of this one
 * made last time and of the call its caller made after it. A cache line each.
 */
struct edge {
    _Alignas(64) struct trace *from;
    struct trace *to;         /* the trace of the frame it makes */
    uint64_t key;             /* cnum << 32 | mnum << 16 | calls not yet added to `to` */
    uint64_t ns;              /* time not yet added to `to` */
    struct method_cost *cost; /* its method's (timing=sampled; NULL: none to be had) */
    uint64_t timed_ns;        /* own time of the calls timed at both ends, not yet learned */
    uint32_t timed;           /* and those calls */
    uint32_t first, next;     /* the hints */
    uint32_t mean_ns;         /* the method's mean as the batch began: an untimed call's charge */
};
_Static_assert(sizeof(struct edge) == 64, "an edge is a cache line");

/* A batch of events handed over by one thread. */
struct batch {
    struct batch *next;
    uint32_t thread_serial;
    int64_t cpu_ns;  /* the thread's CPU time when it handed the batch over */
    int64_t wall_ns; /* and the clock then */
    bool last;       /* the thread records nothing more: its stack can go */
    int nslots, cap; /* slots of events in it, and room for */
    int64_t slots[]; /* an event, then its time if it read the clock (is_timed) */
};

struct call_stack {
    struct cmap_node node;
    int64_t tid;
    struct batch *_Atomic pending; /* handed over, not yet counted; newest first */
    _Atomic bool claimed;          /* someone counts this stack's batches now */
    struct call_stack *next_ready; /* in the timer thread's list, while it holds the claim */
    struct call_stack *next_spare; /* in the list of free stacks, once its thread ended */
    /* The rest belongs to the claim's holder. */
    struct call_frame *frames;
    int n, cap;
    int64_t cpu_last, wall_last; /* the thread's CPU time and clock at the previous hand-over */
    int64_t paused;              /* time cut so far: later event times are moved back by it */
    int64_t last_when;           /* the previous event's time, less `paused` then */
    bool has_last;
    int64_t *gaps; /* scratch: a batch's gaps between timed events */
    int gaps_cap;
    int64_t tracker_ns;                        /* the shortest call without callees: the Tracker's own work */
    uint64_t estimated;                        /* calls charged their method's mean, not yet in the total */
    struct frame *key[METHOD_TIMES_MAX_DEPTH]; /* scratch: the trace being looked up */
    struct edge *edges;                        /* the steps seen, in the order they were made: a path's */
    uint32_t nedges, edges_cap;                /* steps lie together; edges used, and room for */
    uint32_t *index;                           /* open addressing by (from, code): edge + 1, 0 free */
    uint32_t index_mask;                       /* its size less one */
    uint32_t *dirty;                           /* the edges with counts to add */
    uint32_t ndirty, dirty_cap;
    int depth;                 /* of the traces in frames and edges (0: none yet) */
    uint32_t serial;           /* and their thread serial */
    uint64_t by_hint, by_hash; /* HPROF_STACK_STATS: how calls found their edge */
    uint32_t most_edges;       /* and the most edges the table held */
    uint32_t forgotten;        /* times the table was full and started again */
};

struct method_times {
    struct cmap stacks;
    struct registry all;              /* every stack, for a flush */
    struct call_stack *_Atomic ready; /* stacks passed to the timer thread, newest first */
    sem_t wake;                       /* posted when `ready` gains one */
    _Atomic int queued;               /* batches handed over and not yet counted */
    _Atomic bool worker;              /* the timer thread runs */
    _Atomic int flushing;             /* flushes under way: the timer thread leaves no stack */
    pthread_mutex_t spare_lock;
    struct call_stack *spare; /* stacks of threads that ended, for the next ones */
    _Atomic uint64_t ended;   /* threads whose stack was given up */
    /* Counted batches for the next ones: a batch is too large for malloc to keep (about
     * 128 KiB), and memory handed back and taken again costs a page fault per page. */
    pthread_mutex_t pool_lock;
    struct batch *pool[POOLED];
    int npool;
    _Atomic uint64_t estimated;                /* timing=sampled: calls charged their method's mean */
    _Atomic uint32_t sampled;                  /* methods ever timed by sample */
    method_times_sampler *sampler;             /* tells the Tracker to time a method by sample, or not */
    bool stats;                                /* HPROF_STACK_STATS: the replays time themselves */
    _Atomic uint64_t replay_ns, replay_events; /* their CPU time, and the events they counted */
};

struct method_times *method_times_new(method_times_sampler *sampler)
{
    struct method_times *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->sampler = sampler;
    m->stats = env_switch("HPROF_STACK_STATS", false);
    cmap_init(&m->stacks);
    registry_init(&m->all);
    sem_init(&m->wake, 0, 0);
    pthread_mutex_init(&m->spare_lock, NULL);
    pthread_mutex_init(&m->pool_lock, NULL);
    return m;
}

static bool stack_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct call_stack *)n)->tid == *(const int64_t *)key;
}

/* A stack for a new thread: one a thread that ended gave up, or a new one. A stack given
 * up may still be claimed by a flush (which finds nothing to count in it): its claim is
 * left as it is. */
static struct cmap_node *stack_make(const void *key, void *ctx)
{
    struct method_times *m = ctx;
    pthread_mutex_lock(&m->spare_lock);
    struct call_stack *s = m->spare;
    if (s) m->spare = s->next_spare;
    pthread_mutex_unlock(&m->spare_lock);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        if (registry_add(&m->all, s) == UINT32_MAX) {
            free(s);
            return NULL;
        }
    }
    s->tid = *(const int64_t *)key;
    return &s->node;
}

/*
 * The frame of the method numbered (cnum, mnum), named through its bytes' version: once
 * one copy of a class's bytes is named, every copy is, even one unloaded before its calls
 * are counted. The unknown method's when it cannot be named (a class unloaded before any
 * copy of it was); NULL when out of memory. *named_now: it is the method's for good.
 */
static struct frame *frame_of(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, bool *named_now)
{
    struct bci_class *c = bci_classes_get(h->bci_classes, cnum);
    struct bci_version *v = c && mnum < c->nmethods ? c->version : NULL;
    struct frame *f = v ? atomic_load_explicit(&v->frames[mnum], memory_order_acquire) : NULL;
    *named_now = f != NULL;
    if (f) return f;
    jmethodID id = c && mnum < c->nmethods ? atomic_load_explicit(&c->ids[mnum], memory_order_relaxed) : NULL;
    struct method_info *m = id ? methods_of(&h->t.methods, h->jvmti, jni, id) : NULL;
    bool named = m && m->cls != &h->t.classes.unknown; /* else unloaded already: not kept */
    f = frames_of(&h->t.frames, named ? m : &h->t.methods.unknown, -1);
    *named_now = f && named && v;
    if (*named_now) atomic_store_explicit(&v->frames[mnum], f, memory_order_release);
    return f;
}

struct frame *method_times_frame(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum)
{
    bool named;
    return frame_of(h, jni, cnum, mnum, &named);
}

void method_times_name_class(struct host *h, JNIEnv *jni, struct bci_class *c)
{
    /* The replay names a method at its first counted call, through the jmethodID; the
     * calls of a copy whose loader was collected before then (a loader per round of
     * work, dropped at once) could not be named, and none of their bytes' other copies
     * may ever come. Named here, on the loading thread, the frames stay with the bytes. */
    bool named;
    for (uint32_t m = 0; m < c->nmethods; m++) frame_of(h, jni, c->cnum, m, &named);
}

/* The trace of frame `top` and those under it, cut to the stack's depth; NULL when a
 * frame could not be named (out of memory) or the table is full. */
static struct trace *trace_at(struct host *h, JNIEnv *jni, struct call_stack *s, int top)
{
    int n = 0;
    bool named;
    for (int i = top; i >= 0 && n < s->depth; i--, n++) {
        struct call_frame *f = &s->frames[i];
        if (!f->frame) f->frame = frame_of(h, jni, f->cnum, f->mnum, &named);
        if (!(s->key[n] = f->frame)) return NULL;
    }
    return traces_of_frames(&h->t.traces, s->serial, s->key, n);
}

static uint32_t edge_slot(const struct call_stack *s, const struct trace *from, uint64_t code)
{
    return (uint32_t)hash_mix64((uint64_t)(uintptr_t)from ^ (code * 0x9E3779B97F4A7C15ULL)) & s->index_mask;
}

static uint32_t edge_find(const struct call_stack *s, const struct trace *from, uint64_t code)
{
    if (!s->index) return NO_EDGE;
    for (uint32_t i = edge_slot(s, from, code);; i = (i + 1) & s->index_mask) {
        uint32_t x = s->index[i];
        if (!x) return NO_EDGE;
        const struct edge *e = &s->edges[x - 1];
        if (e->from == from && e->key >> 16 == code) return x - 1;
    }
}

static void index_put(struct call_stack *s, uint32_t e)
{
    uint32_t i = edge_slot(s, s->edges[e].from, s->edges[e].key >> 16);
    while (s->index[i]) i = (i + 1) & s->index_mask;
    s->index[i] = e + 1;
}

/* Adds the edge's counts to its trace but `keep` calls (1 to stay in the dirty list). */
static void edge_flush(struct edge *e, uint64_t keep)
{
    atomic_fetch_add_explicit(&e->to->calls, (e->key & EDGE_CALLS) - keep, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->to->cost_ns, e->ns, memory_order_relaxed);
    e->key = (e->key & ~(uint64_t)EDGE_CALLS) | keep;
    e->ns = 0;
}

/* Adds what the stack's edges counted to their traces. */
static void flush_edges(struct call_stack *s)
{
    for (uint32_t i = 0; i < s->ndirty; i++) edge_flush(&s->edges[s->dirty[i]], 0);
    s->ndirty = 0;
}

static void learn_edges(struct host *h, JNIEnv *jni, struct call_stack *s);

/* No edges any more (their counts added): the frames count straight into their traces.
 * The hints left in the edges after nedges are past the end: never taken. */
static void forget_edges(struct host *h, JNIEnv *jni, struct call_stack *s)
{
    learn_edges(h, jni, s);
    flush_edges(s);
    s->nedges = 0;
    if (s->index) memset(s->index, 0, ((size_t)s->index_mask + 1) * sizeof *s->index);
    for (int i = 0; i < s->n; i++) s->frames[i].edge = s->frames[i].last_child = NO_EDGE;
}

static uint32_t edge_put(struct call_stack *s, const struct edge *e)
{
    uint32_t i = s->nedges++;
    s->edges[i] = *e;
    index_put(s, i);
    if (s->nedges > s->most_edges) s->most_edges = s->nedges;
    return i;
}

/* Room for one more edge (edges stay where they are: a frame's edge and the hints hold),
 * its index at most 3/4 full, and for its counts in the dirty list; false when out of
 * memory. At EDGE_MAX the stack starts again with none. */
static bool edge_room(struct host *h, JNIEnv *jni, struct call_stack *s)
{
    if (s->nedges == EDGE_MAX) {
        s->forgotten++;
        forget_edges(h, jni, s);
    }
    if (s->dirty_cap < s->nedges + 1) {
        uint32_t cap = s->dirty_cap ? 2 * s->dirty_cap : 256;
        uint32_t *d = realloc(s->dirty, (size_t)cap * sizeof *d);
        if (!d) return false;
        s->dirty = d;
        s->dirty_cap = cap;
    }
    if (s->nedges == s->edges_cap) {
        uint32_t cap = s->edges_cap ? 2 * s->edges_cap : 128;
        struct edge *t = aligned_alloc(_Alignof(struct edge), (size_t)cap * sizeof *t);
        if (!t) return false;
        if (s->nedges) memcpy(t, s->edges, (size_t)s->nedges * sizeof *t);
        free(s->edges);
        s->edges = t;
        s->edges_cap = cap;
    }
    uint32_t size = s->index ? s->index_mask + 1 : 0;
    if (4 * (s->nedges + 1) <= 3 * size) return true;
    size = size ? 2 * size : 256;
    uint32_t *index = calloc(size, sizeof *index);
    if (!index) return false;
    free(s->index);
    s->index = index;
    s->index_mask = size - 1;
    for (uint32_t i = 0; i < s->nedges; i++) index_put(s, i);
    return true;
}

static struct method_cost *cost_of(struct host *h, uint32_t cnum, uint32_t mnum, uint32_t *nmethods);
static bool learns(const struct host *h);

static void edge_add(struct host *h, JNIEnv *jni, struct call_stack *s, struct trace *from, uint64_t code,
                     struct call_frame *f)
{
    if (!f->trace || !edge_room(h, jni, s)) return;
    uint32_t nmethods;
    struct method_cost *cost = learns(h) ? cost_of(h, f->cnum, f->mnum, &nmethods) : NULL;
    uint32_t mean = cost ? atomic_load_explicit(&cost->mean_ns, memory_order_relaxed) : 0;
    f->edge =
        edge_put(s, &(struct edge){.from = from, .to = f->trace, .key = code << 16, .cost = cost, .mean_ns = mean});
}

/* Adds one call of frame f, of ns, to its trace: through its edge, or at once. An edge
 * enters the dirty list (room for every edge) with its first call of the batch. */
static void count_call(struct call_stack *s, const struct call_frame *f, uint64_t ns)
{
    if (f->edge != NO_EDGE) {
        struct edge *e = &s->edges[f->edge];
        if (!(e->key & EDGE_CALLS) && s->ndirty < s->dirty_cap) s->dirty[s->ndirty++] = f->edge;
        e->key++;
        e->ns += ns;
        if ((e->key & EDGE_CALLS) == EDGE_CALLS) edge_flush(e, 1);
    } else if (f->trace) {
        atomic_fetch_add_explicit(&f->trace->calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&f->trace->cost_ns, ns, memory_order_relaxed);
    }
}

/*
 * The stack's traces at this depth and thread serial (cpu=old keeps 2 frames; depth may
 * change while the program runs): when they change, the edges go and the frames' traces
 * are taken again.
 */
static void set_trace_key(struct host *h, JNIEnv *jni, struct call_stack *s, uint32_t thread_serial)
{
    int depth = h->opt->cpu == CPU_OLD ? 2 : host_depth(h);
    if (depth > METHOD_TIMES_MAX_DEPTH) depth = METHOD_TIMES_MAX_DEPTH;
    if (depth == s->depth && thread_serial == s->serial) return;
    forget_edges(h, jni, s);
    s->depth = depth;
    s->serial = thread_serial;
    for (int i = 0; i < s->n; i++) s->frames[i].trace = trace_at(h, jni, s, i);
}

/* Where the hint for the next call from frame f is: the edge of its latest callee, or
 * else its own edge; NULL when it has neither. */
static uint32_t *hint_of(struct call_stack *s, const struct call_frame *f)
{
    if (f->last_child != NO_EDGE) return &s->edges[f->last_child].next;
    return f->edge != NO_EDGE ? &s->edges[f->edge].first : NULL;
}

/* The edge of a call of `code` from frame f (trace `from`): most often the one its hint
 * names, as a program makes the same calls in the same order again and again (97% on
 * bench `cpu`, 90% on javac), else by hash (and hinted next time). No hash to compute,
 * and the hint's line is one the frame's caller or previous callee just used. */
static uint32_t callee_edge(struct call_stack *s, struct call_frame *f, const struct trace *from, uint64_t code)
{
    uint32_t *hint = hint_of(s, f), e = hint ? *hint : NO_EDGE;
    if (e < s->nedges && s->edges[e].from == from && s->edges[e].key >> 16 == code) {
        s->by_hint++;
    } else {
        e = edge_find(s, from, code);
        s->by_hash += e != NO_EDGE;
        if (hint && e != NO_EDGE) *hint = e;
    }
    f->last_child = e;
    return e;
}

/* Enters method (cnum, mnum) at `when`: the step from the frame below through its edge,
 * else by naming the method and looking its trace up (and an edge for the next time). */
static void push(struct host *h, JNIEnv *jni, struct call_stack *s, uint32_t cnum, uint32_t mnum, int64_t when,
                 bool untimed)
{
    if (s->n == s->cap) {
        if (s->cap >= MAX_STACK) return;
        int cap = s->cap ? s->cap * 2 : 256;
        struct call_frame *f = realloc(s->frames, (size_t)cap * sizeof *f);
        if (!f) return;
        s->frames = f;
        s->cap = cap;
    }
    struct call_frame *caller = s->n ? &s->frames[s->n - 1] : NULL;
    struct trace *from = caller ? caller->trace : NULL;
    uint64_t code = (uint64_t)cnum << 16 | mnum;
    uint32_t e = !caller ? edge_find(s, NULL, code) : from ? callee_edge(s, caller, from, code) : NO_EDGE;
    struct call_frame *f = &s->frames[s->n++];
    *f = (struct call_frame){
        .cnum = cnum, .mnum = mnum, .edge = e, .last_child = NO_EDGE, .start = when, .untimed = untimed};
    if (e != NO_EDGE) {
        f->trace = s->edges[e].to;
        return;
    }
    bool named;
    f->frame = frame_of(h, jni, cnum, mnum, &named);
    f->trace = trace_at(h, jni, s, s->n - 1);
    if (named && (from || s->n == 1)) edge_add(h, jni, s, from, code, f);
}

/* A call of a trivial method: counted with no time (its time is its caller's own). */
static void count_leaf(struct host *h, JNIEnv *jni, struct call_stack *s, uint32_t cnum, uint32_t mnum)
{
    int n = s->n;
    if (n > 0) s->frames[n - 1].leaves = true;
    push(h, jni, s, cnum, mnum, 0, false);
    if (s->n > n) count_call(s, &s->frames[n], 0);
    s->n = n;
}

/*
 * timing=sampled: a method is timed by sample once COST_WINDOW of its calls timed at both
 * ends took less than CHEAP_NS of their own on average. Two clock reads and the Tracker's
 * stores cost about 60-100 ns here (kvm-clock), so such a call spends at least half as
 * long again being timed as working, and its measure is mostly the clock's own noise; a
 * call of a microsecond (cpu_times_short's) is five times over it and stays timed. The
 * mean is looked at again every window (the JIT makes methods cheaper as it goes); one
 * over DEAR_NS is timed at every call again.
 */
#define COST_WINDOW 1024u
#define COST_CALLS  ((uint64_t)1 << 40)
#define COST_MAX_NS ((int64_t)1 << 27) /* the most one call adds: 8191 calls cannot overflow a window */
#define CHEAP_NS    200
#define DEAR_NS     400

static bool learns(const struct host *h) { return h->opt->cpu == CPU_TIMES && h->opt->timing == TIMING_SAMPLED; }

/* What the replays learned of method (cnum, mnum), made on first use; NULL when it has
 * no such method or out of memory. */
static struct method_cost *cost_of(struct host *h, uint32_t cnum, uint32_t mnum, uint32_t *nmethods)
{
    struct bci_class *c = bci_classes_get(h->bci_classes, cnum);
    if (!c || mnum >= c->nmethods) return NULL;
    *nmethods = c->nmethods;
    struct method_cost *k = atomic_load_explicit(&c->costs, memory_order_acquire);
    if (k) return &k[mnum];
    struct method_cost *made = calloc(c->nmethods, sizeof *made);
    if (!made) return NULL;
    if (atomic_compare_exchange_strong_explicit(&c->costs, &k, made, memory_order_acq_rel, memory_order_acquire))
        return &made[mnum];
    free(made); /* another replay made them first */
    return &k[mnum];
}

/* The mean own time of (cnum, mnum) is `mean` ns: the method is timed by sample, or at
 * every call, as it says. */
static void judge(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, struct method_cost *c, uint32_t mean)
{
    atomic_store_explicit(&c->mean_ns, mean, memory_order_relaxed);
    uint8_t state = atomic_load_explicit(&c->state, memory_order_relaxed);
    bool sampled = state == METHOD_COST_SAMPLED;
    if (!(sampled ? mean > DEAR_NS : mean < CHEAP_NS)) return;
    uint32_t nmethods = 0;
    if (!cost_of(h, cnum, mnum, &nmethods)) return;
    if (state == METHOD_COST_TIMED) atomic_fetch_add(&h->method_times->sampled, 1);
    atomic_store(&c->state, sampled ? METHOD_COST_WAS_SAMPLED : METHOD_COST_SAMPLED);
    if (h->method_times->sampler) h->method_times->sampler(h, jni, cnum, mnum, nmethods, !sampled);
}

/*
 * `calls` calls of (cnum, mnum) timed at both ends took `ns` of their own (each at most
 * COST_MAX_NS): added to the method's window (c: its costs, NULL to look them up), whose
 * end is judged by whoever's calls fill it. A replay adds a batch's calls at once, through
 * its edges; a batch with a window's worth of calls is judged on its own.
 */
static void learn(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, struct method_cost *c, uint32_t calls,
                  uint64_t ns)
{
    uint32_t nmethods;
    if (!c && !(c = cost_of(h, cnum, mnum, &nmethods))) return;
    if (calls >= COST_WINDOW) {
        judge(h, jni, cnum, mnum, c, (uint32_t)(ns / calls));
        return;
    }
    uint64_t add = (uint64_t)calls * COST_CALLS | ns;
    uint64_t w = atomic_fetch_add_explicit(&c->window, add, memory_order_relaxed) + add;
    if (w / COST_CALLS < COST_WINDOW || (w - add) / COST_CALLS >= COST_WINDOW) return;
    atomic_fetch_sub_explicit(&c->window, w, memory_order_relaxed); /* calls added since stay */
    judge(h, jni, cnum, mnum, c, (uint32_t)(w % COST_CALLS / (w / COST_CALLS)));
}

/* Adds the timed calls the batch's edges hold to their methods' windows, and takes their
 * methods' means for the next batch: the method's line is read once a batch, not at every
 * untimed call (it is another replay's to write, and far from the edge). */
static void learn_edges(struct host *h, JNIEnv *jni, struct call_stack *s)
{
    for (uint32_t i = 0; i < s->ndirty; i++) {
        struct edge *e = &s->edges[s->dirty[i]];
        if (!e->cost) continue;
        if (e->timed) {
            uint64_t code = e->key >> 16;
            learn(h, jni, (uint32_t)(code >> 16), (uint32_t)(code & 0xffff), e->cost, e->timed, e->timed_ns);
            e->timed = 0;
            e->timed_ns = 0;
        }
        e->mean_ns = atomic_load_explicit(&e->cost->mean_ns, memory_order_relaxed);
    }
}

/* A call of frame f timed at both ends took `own`: learned from with its edge's others
 * at the batch's end, or at once. */
static void learn_call(struct host *h, JNIEnv *jni, struct call_stack *s, const struct call_frame *f, int64_t own)
{
    uint64_t ns = (uint64_t)(own < COST_MAX_NS ? own : COST_MAX_NS);
    if (f->edge == NO_EDGE) {
        learn(h, jni, f->cnum, f->mnum, NULL, 1, ns);
        return;
    }
    struct edge *e = &s->edges[f->edge];
    e->timed++;
    e->timed_ns += ns;
}

/* The mean own time learned for a call that read the clock at one end or none. */
static int64_t estimate(struct host *h, const struct call_stack *s, const struct call_frame *f)
{
    if (f->edge != NO_EDGE && s->edges[f->edge].cost) return s->edges[f->edge].mean_ns;
    uint32_t nmethods;
    struct method_cost *c = cost_of(h, f->cnum, f->mnum, &nmethods);
    return c ? atomic_load_explicit(&c->mean_ns, memory_order_relaxed) : 0;
}

/*
 * Closes frame i (and every frame above it) at time `when`. cpu=times charges a call its
 * own time; cpu=old, as the original's old prof format, its whole time, callees included.
 * The Tracker's own work is taken out: the part between a call's two clock reads (about
 * one read; the shortest call seen so far that called nothing, not even a trivial method,
 * is nothing else) and about as much around them, which would fall to the caller.
 * A call whose entry or exit (`untimed`: frame i's) read no clock is charged its
 * method's learned mean instead, callees added as usual; only calls timed at both ends
 * are learned from.
 */
static void pop_to(struct host *h, JNIEnv *jni, struct call_stack *s, int i, int64_t when, bool untimed)
{
    bool inclusive = h->opt->cpu == CPU_OLD;
    while (s->n > i) {
        int top = s->n - 1;
        struct call_frame *f = &s->frames[top];
        if (f->untimed || (untimed && top == i)) {
            int64_t own = estimate(h, s, f);
            s->estimated++;
            count_call(s, f, (uint64_t)(inclusive ? own + f->callees : own));
            if (top > 0) {
                s->frames[top - 1].callees += own + f->callees;
                s->frames[top - 1].leaves = true;
            }
            s->n = top;
            continue;
        }
        int64_t total = when - f->start;
        if (total < 0) total = 0;
        if (!f->callees && !f->leaves && total > 0 && (total < s->tracker_ns || !s->tracker_ns)) s->tracker_ns = total;
        int64_t tracker = s->tracker_ns;
        int64_t own = total - f->callees - tracker;
        if (own < 0) own = 0;
        int64_t whole = total > tracker ? total - tracker : 0;
        count_call(s, f, (uint64_t)(inclusive ? whole : own));
        if (learns(h)) learn_call(h, jni, s, f, own);
        if (top > 0) s->frames[top - 1].callees += total + tracker;
        s->n = top;
    }
}

/* The newest open call of (cnum, mnum), which an exit of it closes (with those above it,
 * ended by an exception); -1 for an exit with no entry (the method began before the
 * Tracker was engaged): ignored. */
static int exited_frame(const struct call_stack *s, uint32_t cnum, uint32_t mnum)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (s->frames[i].cnum == cnum && s->frames[i].mnum == mnum) return i;
    return -1;
}

static bool is_mark(int64_t ev) { return ev >= 0 && (ev & TRACKER_MARK_BIT); }
static bool is_leaf(int64_t ev) { return ev >= 0 && (ev & TRACKER_LEAF_BIT); }
static bool is_untimed(int64_t ev) { return !is_mark(ev) && (ev & TRACKER_UNTIMED_BIT); }

/* An entry or exit that read the clock (not a trivial call, not an untimed one, not a
 * mark): none of those bits, which a method's code never reaches. */
static inline bool is_timed(int64_t ev) { return !(ev & (TRACKER_LEAF_BIT | TRACKER_MARK_BIT | TRACKER_UNTIMED_BIT)); }

#define NO_TIME INT64_MIN /* no event before: the first gap is none */

/* The gap from the timed event before (at prev) to one at t, cut to `level`: the part cut. */
static int64_t cut_of(int64_t prev, int64_t t, int64_t level)
{
    int64_t g = prev == NO_TIME ? 0 : t - prev;
    return g > level ? g - level : 0;
}

/* The time of the first event of slots p[0..n) that read the clock; `otherwise` if none. */
static int64_t first_time(const int64_t *p, int n, int64_t otherwise)
{
    for (int k = 0; k + 1 < n; k++)
        if (is_timed(p[k])) return p[k + 1];
    return otherwise;
}

/*
 * The time of an event that read no clock, the next one at slot i: that of the next event
 * that did (or of the hand-over), less the time cut so far and in the gap before it. No
 * gap is its own, so no time is cut from it or charged to it. Only an untimed exit that
 * closes timed calls above it (an exception) needs one.
 */
static int64_t untimed_when(const int64_t *p, int i, int n, int64_t wall_ns, int64_t prev, int64_t level,
                            int64_t paused)
{
    int64_t t = first_time(p + i, n - i, wall_ns);
    return t - paused - cut_of(prev, t, level);
}

/* Room for n gaps in the stack's scratch; NULL when out of memory. */
static int64_t *gaps_room(struct call_stack *s, int n)
{
    if (n > s->gaps_cap) {
        int64_t *g = realloc(s->gaps, (size_t)n * sizeof *g);
        if (!g) return NULL;
        s->gaps = g;
        s->gaps_cap = n;
    }
    return s->gaps;
}

/* The gaps between the batch's timed events (from `prev`, the one before the batch), and
 * from the last to the hand-over; their count, or -1 when out of memory. */
static int timed_gaps(struct call_stack *s, const int64_t *p, int n, int64_t wall_ns, int64_t prev)
{
    int64_t *gaps = gaps_room(s, n + 1);
    if (!gaps) return -1;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!is_timed(p[i])) continue;
        if (++i == n) break; /* its time cut off */
        int64_t t = p[i], g = prev == NO_TIME ? 0 : t - prev;
        gaps[m++] = g > 0 ? g : 0;
        prev = t;
    }
    int64_t g = prev == NO_TIME ? 0 : wall_ns - prev;
    gaps[m++] = g > 0 ? g : 0;
    return m;
}

/*
 * The time the thread spent off the CPU in the batch's window (0 when not known); *skip
 * is 2 (its slots) when the batch starts with a mark. A mark (the thread's CPU time and clock when its
 * buffer was made, or when its previous hand-over returned) starts the window after that
 * hand-over, whose time, with any wait for the timer thread it woke, belongs to no
 * method: it is cut from the timeline. Without one (events handed over one by one) the
 * window starts at the previous hand-over, or at the batch's first event.
 */
static int64_t off_cpu(struct call_stack *s, const struct batch *b, int *skip)
{
    int64_t cpu0 = s->cpu_last, wall0 = s->wall_last, off = 0;
    *skip = 0;
    if (b->nslots >= 2 && is_mark(b->slots[0])) {
        cpu0 = b->slots[0] & ~TRACKER_MARK_BIT;
        wall0 = b->slots[1];
        if (s->wall_last && wall0 > s->wall_last) s->paused += wall0 - s->wall_last;
        *skip = 2;
    } else if (!wall0) {
        wall0 = first_time(b->slots, b->nslots, b->wall_ns);
    }
    if (b->cpu_ns >= 0) {
        int64_t dw = b->wall_ns - wall0, dc = b->cpu_ns - cpu0;
        if (dw > dc && dc >= 0) off = dw - dc;
        s->cpu_last = b->cpu_ns;
    }
    s->wall_last = b->wall_ns;
    return off;
}

static int64_t cuts_above(const int64_t *gaps, int n, int64_t level)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        if (gaps[i] > level) sum += gaps[i] - level;
    return sum;
}

/* The highest level such that cutting every gap down to it cuts at least `off` (0 if
 * all of them together are less). It is no lower than the longest gap less `off`, so
 * only the gaps above that count, usually a few: they are searched alone. */
static int64_t cut_level(const int64_t *gaps, int n, int64_t off)
{
    int64_t hi = 0;
    for (int i = 0; i < n; i++)
        if (gaps[i] > hi) hi = gaps[i];
    int64_t lo = hi > off ? hi - off : 0, few[64];
    int k = 0;
    for (int i = 0; i < n && k <= 64; i++)
        if (gaps[i] > lo) {
            if (k < 64) few[k] = gaps[i];
            k++;
        }
    const int64_t *c = k <= 64 ? few : gaps;
    int m = k <= 64 ? k : n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (cuts_above(c, m, mid) >= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/*
 * Counts one batch of the stack's thread (the claim held). Time between two timed events
 * belongs to the frame on top; the time the thread was off the CPU in the batch's window
 * is cut from the longest of these gaps (and the one after the last event), down to a
 * common level: being descheduled, sleeping or blocking shows as one long gap where it
 * happened, while the thread's own work between two events is short. So a method is
 * charged for neither its waits nor those of others in the batch. Events that read no
 * clock have no gap of their own, and their time is looked for only where it counts.
 */
static uint64_t process(struct host *h, JNIEnv *jni, struct call_stack *s, struct batch *b)
{
    if (b->nslots == 0) return 0; /* only a thread's end */
    set_trace_key(h, jni, s, b->thread_serial);
    int skip;
    int64_t off = off_cpu(s, b, &skip);
    int n = b->nslots - skip;
    const int64_t *p = b->slots + skip;
    uint64_t events = 0;
    bool timed = true; /* the last event read the clock */
    int64_t first = s->has_last ? s->last_when + s->paused : NO_TIME, level = INT64_MAX;
    if (off > 0 && n > 0) {
        int m = timed_gaps(s, p, n, b->wall_ns, first);
        if (m > 0) level = cut_level(s->gaps, m, off);
    }
    int64_t prev = first;
    for (int i = 0; i < n; events++) {
        int64_t ev = p[i++], when = 0;
        timed = is_timed(ev);
        if (timed) {
            if (i == n) break; /* its time cut off */
            int64_t t = p[i++];
            s->paused += cut_of(prev, t, level);
            prev = t;
            when = t - s->paused;
            s->last_when = when;
            s->has_last = true;
        }
        uint64_t code = (uint64_t)ev & ~(uint64_t)(TRACKER_EXIT_BIT | TRACKER_LEAF_BIT | TRACKER_UNTIMED_BIT);
        uint32_t cnum = (uint32_t)(code >> 16), mnum = (uint32_t)(code & 0xffff);
        if (ev < 0) {
            int top = exited_frame(s, cnum, mnum);
            if (top < 0) continue;
            bool untimed = is_untimed(ev);
            if (untimed && top < s->n - 1) when = untimed_when(p, i, n, b->wall_ns, prev, level, s->paused);
            pop_to(h, jni, s, top, when, untimed);
        } else if (is_leaf(ev)) {
            count_leaf(h, jni, s, cnum, mnum);
        } else {
            push(h, jni, s, cnum, mnum, when, is_untimed(ev)); /* an untimed call's start is not used */
        }
    }
    s->paused += cut_of(prev, b->wall_ns, level);
    if (!timed) { /* the next batch's first gap starts at the hand-over */
        s->last_when = b->wall_ns - s->paused;
        s->has_last = true;
    }
    learn_edges(h, jni, s);
    flush_edges(s);
    if (s->estimated) atomic_fetch_add_explicit(&h->method_times->estimated, s->estimated, memory_order_relaxed);
    s->estimated = 0;
    return events;
}

struct batch *method_times_batch_new(struct method_times *m, int nslots)
{
    struct batch *b = NULL;
    pthread_mutex_lock(&m->pool_lock);
    if (m->npool > 0 && m->pool[m->npool - 1]->cap >= nslots) b = m->pool[--m->npool];
    pthread_mutex_unlock(&m->pool_lock);
    int cap = b ? b->cap : nslots;
    if (!b && !(b = malloc(sizeof *b + (size_t)nslots * sizeof(int64_t)))) return NULL;
    memset(b, 0, sizeof *b);
    b->nslots = nslots;
    b->cap = cap;
    return b;
}

/* A batch counted or not wanted: a large one is kept for the next, if there is room. */
static void batch_free(struct method_times *m, struct batch *b)
{
    pthread_mutex_lock(&m->pool_lock);
    bool kept = b->cap >= POOLED_SLOTS && m->npool < POOLED;
    if (kept) m->pool[m->npool++] = b;
    pthread_mutex_unlock(&m->pool_lock);
    if (!kept) free(b);
}

int64_t *method_times_batch_slots(struct batch *b) { return b->slots; }

/* HPROF_STACK_STATS: process, and the CPU time it took. */
static void timed_process(struct host *h, JNIEnv *jni, struct call_stack *s, struct batch *b)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    uint64_t events = process(h, jni, s, b);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    struct method_times *m = h->method_times;
    atomic_fetch_add(&m->replay_ns, (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec));
    atomic_fetch_add(&m->replay_events, events);
}

/* The stack's batches handed over so far, oldest first, taken off its list. */
static struct batch *take_pending(struct call_stack *s)
{
    struct batch *newest = atomic_exchange(&s->pending, NULL), *oldest = NULL;
    while (newest) {
        struct batch *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    return oldest;
}

static bool too_much_waits(struct method_times *m) { return atomic_load(&m->queued) > MAX_QUEUED; }

/*
 * The stack of a thread that ended, its last batch counted (the claim held): out of the
 * map and emptied for the next thread. Calls still open are not counted (they never
 * returned), as at VM death. The claim goes last, once nothing of the thread is left.
 */
static void give_up(struct method_times *m, struct call_stack *s)
{
    int64_t tid = s->tid;
    cmap_remove(&m->stacks, hash_mix64((uint64_t)tid), &tid, stack_eq);
    if (s->cap > 256) {
        free(s->frames);
        s->frames = NULL;
        s->cap = 0;
    }
    s->n = 0;
    s->cpu_last = s->wall_last = s->paused = s->last_when = s->tracker_ns = 0;
    s->has_last = false;
    if (s->edges_cap >= 1024) { /* a small table is kept: the next thread may take the same steps */
        free(s->edges);
        free(s->index);
        free(s->dirty);
        s->edges = NULL;
        s->index = NULL;
        s->dirty = NULL;
        s->nedges = s->edges_cap = s->index_mask = s->dirty_cap = 0;
    }
    atomic_fetch_add(&m->ended, 1);
    pthread_mutex_lock(&m->spare_lock);
    s->next_spare = m->spare;
    m->spare = s;
    atomic_store(&s->claimed, false);
    pthread_mutex_unlock(&m->spare_lock);
}

/*
 * Counts the stack's batches, the claim held, until there are none left, then lets the
 * claim go. A batch pushed while the claim is let go is either seen by the re-check or
 * finds the claim free itself. The timer thread (`may_leave`) lets go after a round when
 * too much waits: what it leaves came during the round, from a thread that is busy, and
 * that thread's next batch (or a flush) takes the stack up again. After a thread's last
 * batch nothing more comes for it: its stack is given up.
 */
static void count_claimed(struct host *h, JNIEnv *jni, struct call_stack *s, bool may_leave)
{
    struct method_times *m = h->method_times;
    for (;;) {
        struct batch *b = take_pending(s);
        bool last = false;
        while (b) {
            struct batch *next = b->next;
            if (m->stats)
                timed_process(h, jni, s, b);
            else
                process(h, jni, s, b);
            last |= b->last;
            batch_free(m, b);
            atomic_fetch_sub(&m->queued, 1);
            b = next;
        }
        if (last) {
            give_up(m, s);
            return;
        }
        bool leave = may_leave && too_much_waits(m) && !atomic_load(&m->flushing);
        atomic_store(&s->claimed, false);
        if (leave || !atomic_load(&s->pending) || atomic_exchange(&s->claimed, true)) return;
    }
}

/* Passes a claimed stack to the timer thread. */
static void pass_to_timer(struct method_times *m, struct call_stack *s)
{
    s->next_ready = atomic_load(&m->ready);
    while (!atomic_compare_exchange_weak(&m->ready, &s->next_ready, s)) {}
    sem_post(&m->wake);
}

void method_times_submit(struct host *h, JNIEnv *jni, struct batch *b, int64_t tid, int64_t cpu_ns,
                         uint32_t thread_serial, bool last)
{
    struct method_times *m = h->method_times;
    b->cpu_ns = cpu_ns;
    b->wall_ns = (int64_t)clock_ns();
    b->thread_serial = thread_serial;
    b->last = last;
    uint64_t hash = hash_mix64((uint64_t)tid);
    /* A thread's end with nothing to count and no stack: nothing to give up. */
    struct call_stack *s =
        (struct call_stack *)(b->nslots == 0 ? cmap_find(&m->stacks, hash, &tid, stack_eq)
                                             : cmap_intern(&m->stacks, hash, &tid, stack_eq, stack_make, m, NULL));
    if (!s) { /* out of memory, or nothing to do */
        batch_free(m, b);
        return;
    }
    atomic_fetch_add(&m->queued, 1);
    b->next = atomic_load(&s->pending);
    while (!atomic_compare_exchange_weak(&s->pending, &b->next, b)) {}
    if (atomic_exchange(&s->claimed, true)) return; /* its holder counts it */
    if (atomic_load(&m->worker) && !too_much_waits(m))
        pass_to_timer(m, s);
    else
        count_claimed(h, jni, s, false);
}

/* HPROF_TIMING_STATS: the methods timed by sample, with their mean. */
static void log_sampled(struct host *h)
{
    struct method_times *m = h->method_times;
    log_plain("HPROF: cpu=times timing=sampled: %u methods timed by sample, %llu calls charged their mean",
              atomic_load(&m->sampled), (unsigned long long)atomic_load(&m->estimated));
    for (uint32_t i = 0, n = registry_count(&h->bci_classes->all); i < n; i++) {
        struct bci_class *c = registry_get(&h->bci_classes->all, i);
        struct method_cost *k = atomic_load_explicit(&c->costs, memory_order_acquire);
        for (unsigned j = 0; k && j < c->nmethods; j++) {
            uint8_t state = atomic_load(&k[j].state);
            if (state != METHOD_COST_TIMED)
                log_plain("HPROF: %s %s.%s%s, mean %u ns",
                          state == METHOD_COST_SAMPLED ? "timed by sample:" : "was timed by sample:", c->name,
                          c->method_names[j], c->method_descs[j], atomic_load(&k[j].mean_ns));
        }
    }
}

void method_times_log_stats(struct host *h)
{
    struct method_times *m = h->method_times;
    if (!m) return;
    if (env_switch("HPROF_STACK_STATS", false)) {
        log_plain("HPROF: cpu=times call stacks: %u made, %llu given up by threads that ended", registry_count(&m->all),
                  (unsigned long long)atomic_load(&m->ended));
        uint64_t by_hint = 0, by_hash = 0;
        uint32_t most = 0, forgotten = 0;
        for (uint32_t i = 0, n = registry_count(&m->all); i < n; i++) {
            const struct call_stack *s = registry_get(&m->all, i);
            by_hint += s->by_hint;
            by_hash += s->by_hash;
            if (s->most_edges > most) most = s->most_edges;
            forgotten += s->forgotten;
        }
        log_plain(
            "HPROF: cpu=times steps found: %llu by hint, %llu by hash; at most %u edges in a stack, full %u times",
            (unsigned long long)by_hint, (unsigned long long)by_hash, most, forgotten);
        uint64_t ns = atomic_load(&m->replay_ns), events = atomic_load(&m->replay_events);
        log_plain("HPROF: cpu=times replay: %llu events in %.3f s of CPU, %.1f ns an event", (unsigned long long)events,
                  ns / 1e9, events ? (double)ns / events : 0.0);
    }
    if (learns(h) && h->bci_classes && env_switch("HPROF_TIMING_STATS", false)) log_sampled(h);
}

/* The timer thread: counts the stacks passed to it, in the order they came. */
static void JNICALL timer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct method_times *m = h->method_times;
    for (;;) {
        while (sem_wait(&m->wake) != 0) {} /* EINTR */
        struct call_stack *newest = atomic_exchange(&m->ready, NULL), *s = NULL;
        while (newest) { /* oldest first */
            struct call_stack *next = newest->next_ready;
            newest->next_ready = s;
            s = newest;
            newest = next;
        }
        while (s) {
            struct call_stack *next = s->next_ready; /* read first: once let go, s may be passed again */
            count_claimed(h, jni, s, true);
            s = next;
        }
    }
}

int method_times_start(struct host *h, JNIEnv *jni)
{
    /* Until it runs, threads count their batches themselves. */
    if (!host_start_thread(h, jni, "HPROF method timer", timer_main, h)) return -1;
    atomic_store(&h->method_times->worker, true);
    return 0;
}

void method_times_flush(struct host *h)
{
    struct method_times *m = h->method_times;
    if (!m) return;
    atomic_fetch_add(&m->flushing, 1);
    while (atomic_load(&m->queued) > 0) {
        /* Stacks the timer thread left to their threads: back to it now. Without a timer
         * thread no stack is left, and the batches under way are being counted. */
        uint32_t n = atomic_load(&m->worker) ? registry_count(&m->all) : 0;
        for (uint32_t i = 0; i < n; i++) {
            struct call_stack *s = registry_get(&m->all, i);
            if (atomic_load(&s->pending) && !atomic_exchange(&s->claimed, true)) pass_to_timer(m, s);
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    atomic_fetch_sub(&m->flushing, 1);
}
