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
#define EDGE_SLOTS   (1 << 16) /* the most a stack's table has, 2 MiB: then it starts again */
#define EDGE_CALLS   0xffff    /* the most calls an edge holds before they go to its trace */
#define NO_EDGE      UINT32_MAX
#define MAX_QUEUED   64         /* batches waiting for the timer thread, about (bounded memory) */
#define POOLED       MAX_QUEUED /* counted batches kept for reuse: no more than may wait */
#define POOLED_PAIRS 4096       /* and only those with room for this many pairs (64 KiB) */

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
 * to the trace once at its end. Half a cache line each: the replay's working set.
 */
struct edge {
    _Alignas(32) struct trace *from;
    struct trace *to; /* NULL: a free slot */
    uint64_t key;     /* cnum << 32 | mnum << 16 | calls not yet added to `to` */
    uint64_t ns;      /* time not yet added to `to` */
};

/* Beside each edge, hints: the edge of the first call a frame of this one made last time,
 * and of the call its caller made after it. Apart from the edges, 8 to a cache line. */
struct edge_hints {
    uint32_t first, next;
};

/* A batch of events handed over by one thread. */
struct batch {
    struct batch *next;
    uint32_t thread_serial;
    int64_t cpu_ns;  /* the thread's CPU time when it handed the batch over */
    int64_t wall_ns; /* and the clock then */
    bool last;       /* the thread records nothing more: its stack can go */
    int npairs, cap; /* pairs in it, and room for */
    int64_t pairs[];
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
    int64_t tracker_ns;                        /* the shortest call without callees: the Tracker's own work */
    uint64_t estimated;                        /* calls charged their method's mean, not yet in the total */
    struct frame *key[METHOD_TIMES_MAX_DEPTH]; /* scratch: the trace being looked up */
    struct edge *edges;                        /* the steps seen: open addressing by (from, code) */
    struct edge_hints *hints;                  /* by the same index */
    uint32_t nedges, edges_mask;               /* used slots, and the table's size less one */
    uint32_t *dirty;                           /* the edges with counts to add */
    uint32_t ndirty, dirty_cap;
    int depth;                          /* of the traces in frames and edges (0: none yet) */
    uint32_t serial;                    /* and their thread serial */
    uint64_t entries, by_hint, by_hash; /* HPROF_STACK_STATS: how entries found their edge */
    uint32_t most_edges;                /* and the most edges the table held */
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
    _Atomic uint64_t estimated;    /* timing=sampled: calls charged their method's mean */
    _Atomic uint32_t sampled;      /* methods ever timed by sample */
    method_times_sampler *sampler; /* tells the Tracker to time a method by sample, or not */
};

struct method_times *method_times_new(method_times_sampler *sampler)
{
    struct method_times *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->sampler = sampler;
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
    return (uint32_t)hash_mix64((uint64_t)(uintptr_t)from ^ (code * 0x9E3779B97F4A7C15ULL)) & s->edges_mask;
}

static uint32_t edge_find(const struct call_stack *s, const struct trace *from, uint64_t code)
{
    if (!s->edges) return NO_EDGE;
    for (uint32_t i = edge_slot(s, from, code);; i = (i + 1) & s->edges_mask) {
        const struct edge *e = &s->edges[i];
        if (!e->to) return NO_EDGE;
        if (e->from == from && e->key >> 16 == code) return i;
    }
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

/* The frames' edges moved or went: each finds its next callee's by hashing again. */
static void forget_children(struct call_stack *s)
{
    for (int i = 0; i < s->n; i++) s->frames[i].last_child = NO_EDGE;
}

/* No edges any more (their counts added): the frames count straight into their traces. */
static void forget_edges(struct call_stack *s)
{
    flush_edges(s);
    s->nedges = 0;
    if (s->edges) memset(s->edges, 0, ((size_t)s->edges_mask + 1) * sizeof *s->edges);
    for (int i = 0; i < s->n; i++) s->frames[i].edge = NO_EDGE;
    forget_children(s);
}

static uint32_t edge_put(struct call_stack *s, const struct edge *e)
{
    uint32_t i = edge_slot(s, e->from, e->key >> 16);
    while (s->edges[i].to) i = (i + 1) & s->edges_mask;
    s->edges[i] = *e;
    if (++s->nedges > s->most_edges) s->most_edges = s->nedges;
    return i;
}

/* Room for one more edge, the table at most 3/4 full (its edges move: the frames follow
 * them), and for its counts in the dirty list; false when out of memory. */
static bool edge_room(struct call_stack *s)
{
    if (s->dirty_cap < s->nedges + 1) {
        uint32_t cap = s->dirty_cap ? 2 * s->dirty_cap : 256;
        uint32_t *d = realloc(s->dirty, (size_t)cap * sizeof *d);
        if (!d) return false;
        s->dirty = d;
        s->dirty_cap = cap;
    }
    uint32_t size = s->edges ? s->edges_mask + 1 : 0;
    if (4 * (s->nedges + 1) <= 3 * size) return true;
    if (size == EDGE_SLOTS) {
        forget_edges(s);
        return true;
    }
    size = size ? 2 * size : 256;
    struct edge *old = s->edges, *t = aligned_alloc(_Alignof(struct edge), (size_t)size * sizeof *t);
    struct edge_hints *hints = t ? calloc(size, sizeof *hints) : NULL;
    if (!hints) {
        free(t);
        return false;
    }
    memset(t, 0, (size_t)size * sizeof *t);
    free(s->hints);
    s->hints = hints;
    flush_edges(s);
    uint32_t old_size = old ? s->edges_mask + 1 : 0;
    s->edges = t;
    s->edges_mask = size - 1;
    s->nedges = 0;
    for (uint32_t i = 0; i < old_size; i++)
        if (old[i].to) edge_put(s, &old[i]);
    for (int i = 0; i < s->n; i++) {
        struct call_frame *f = &s->frames[i];
        if (f->edge != NO_EDGE) f->edge = edge_find(s, old[f->edge].from, old[f->edge].key >> 16);
    }
    forget_children(s);
    free(old);
    return true;
}

static void edge_add(struct call_stack *s, struct trace *from, uint64_t code, struct call_frame *f)
{
    if (!f->trace || !edge_room(s)) return;
    f->edge = edge_put(s, &(struct edge){.from = from, .to = f->trace, .key = code << 16});
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
    forget_edges(s);
    s->depth = depth;
    s->serial = thread_serial;
    for (int i = 0; i < s->n; i++) s->frames[i].trace = trace_at(h, jni, s, i);
}

/* Where the hint for the next call from frame f is: the edge of its latest callee, or
 * else its own edge; NULL when it has neither. */
static uint32_t *hint_of(struct call_stack *s, const struct call_frame *f)
{
    if (f->last_child != NO_EDGE) return &s->hints[f->last_child].next;
    return f->edge != NO_EDGE ? &s->hints[f->edge].first : NULL;
}

/* The edge of a call of `code` from frame f (trace `from`): most often the one its hint
 * names, as a program makes the same calls in the same order again and again (97% on
 * bench `cpu`, 90% on javac), else by hash (and hinted next time). No hash to compute,
 * and the hint's line is one the frame's caller or previous callee just used. */
static uint32_t callee_edge(struct call_stack *s, struct call_frame *f, const struct trace *from, uint64_t code)
{
    uint32_t *hint = hint_of(s, f), e = hint ? *hint & s->edges_mask : NO_EDGE;
    if (e != NO_EDGE && s->edges[e].from == from && s->edges[e].to && s->edges[e].key >> 16 == code) {
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
    s->entries++;
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
    if (named && (from || s->n == 1)) edge_add(s, from, code, f);
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
#define COST_MAX_NS ((int64_t)1 << 29) /* the most one call adds: a window cannot overflow */
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

/* A call of (cnum, mnum) timed at both ends took `own` ns of its own: at the end of a
 * window, the method is timed by sample or at every call, as its mean says. */
static void learn(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, int64_t own)
{
    uint32_t nmethods = 0;
    struct method_cost *c = cost_of(h, cnum, mnum, &nmethods);
    if (!c) return;
    uint64_t add = COST_CALLS | (uint64_t)(own < COST_MAX_NS ? own : COST_MAX_NS);
    uint64_t w = atomic_fetch_add_explicit(&c->window, add, memory_order_relaxed) + add;
    if (w / COST_CALLS != COST_WINDOW) return;
    atomic_fetch_sub_explicit(&c->window, w, memory_order_relaxed); /* calls added since stay */
    uint32_t mean = (uint32_t)(w % COST_CALLS / COST_WINDOW);
    atomic_store_explicit(&c->mean_ns, mean, memory_order_relaxed);
    uint8_t state = atomic_load_explicit(&c->state, memory_order_relaxed);
    bool sampled = state == METHOD_COST_SAMPLED;
    if (!(sampled ? mean > DEAR_NS : mean < CHEAP_NS)) return;
    if (state == METHOD_COST_TIMED) atomic_fetch_add(&h->method_times->sampled, 1);
    atomic_store(&c->state, sampled ? METHOD_COST_WAS_SAMPLED : METHOD_COST_SAMPLED);
    if (h->method_times->sampler) h->method_times->sampler(h, jni, cnum, mnum, nmethods, !sampled);
}

/* The mean own time learned for a call that read the clock at one end or none. */
static int64_t estimate(struct host *h, const struct call_frame *f)
{
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
            int64_t own = estimate(h, f);
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
        if (learns(h)) learn(h, jni, f->cnum, f->mnum, own);
        if (top > 0) s->frames[top - 1].callees += total + tracker;
        s->n = top;
    }
}

static void on_method_exit(struct host *h, JNIEnv *jni, struct call_stack *s, uint32_t cnum, uint32_t mnum,
                           int64_t when, bool untimed)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (s->frames[i].cnum == cnum && s->frames[i].mnum == mnum) {
            pop_to(h, jni, s, i, when, untimed);
            return;
        }
    }
    /* An exit with no entry (the method began before the Tracker was engaged): ignored. */
}

static bool is_mark(int64_t ev) { return ev >= 0 && (ev & TRACKER_MARK_BIT); }
static bool is_leaf(int64_t ev) { return ev >= 0 && (ev & TRACKER_LEAF_BIT); }
static bool is_untimed(int64_t ev) { return !is_mark(ev) && (ev & TRACKER_UNTIMED_BIT); }

/* Gives each event that read no clock (a trivial call, an untimed entry or exit) the time
 * of the next event that did (or of the hand-over): no gap is its own, so no time is cut
 * from it or charged to it. */
static void time_leaves(int64_t *p, int n, int64_t wall_ns)
{
    int64_t next = wall_ns;
    for (int i = n - 1; i >= 0; i--) {
        if (is_leaf(p[2 * i]) || is_untimed(p[2 * i]))
            p[2 * i + 1] = next;
        else
            next = p[2 * i + 1];
    }
}

/*
 * The time the thread spent off the CPU in the batch's window (0 when not known); *skip
 * is 1 when the batch starts with a mark. A mark (the thread's CPU time and clock when its
 * buffer was made, or when its previous hand-over returned) starts the window after that
 * hand-over, whose time, with any wait for the timer thread it woke, belongs to no
 * method: it is cut from the timeline. Without one (events handed over one by one) the
 * window starts at the previous hand-over, or at the batch's first event.
 */
static int64_t off_cpu(struct call_stack *s, const struct batch *b, int *skip)
{
    int64_t cpu0 = s->cpu_last, wall0 = s->wall_last, off = 0;
    *skip = 0;
    if (b->npairs > 0 && is_mark(b->pairs[0])) {
        cpu0 = b->pairs[0] & ~TRACKER_MARK_BIT;
        wall0 = b->pairs[1];
        if (s->wall_last && wall0 > s->wall_last) s->paused += wall0 - s->wall_last;
        *skip = 1;
    } else if (!wall0 && b->npairs > 0) {
        wall0 = b->pairs[1];
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
 * Counts one batch of the stack's thread (the claim held). Time between two events
 * belongs to the frame on top; the time the thread was off the CPU in the batch's window
 * is cut from the longest of these gaps (and the one after the last event), down to a
 * common level: being descheduled, sleeping or blocking shows as one long gap where it
 * happened, while the thread's own work between two events is short. So a method is
 * charged for neither its waits nor those of others in the batch.
 */
static void process(struct host *h, JNIEnv *jni, struct call_stack *s, struct batch *b)
{
    if (b->npairs == 0) return; /* only a thread's end */
    set_trace_key(h, jni, s, b->thread_serial);
    int skip;
    int64_t off = off_cpu(s, b, &skip);
    int n = b->npairs - skip;
    int64_t *p = b->pairs + 2 * skip;
    time_leaves(p, n, b->wall_ns);
    int64_t *gaps = n > 0 ? malloc((size_t)(n + 1) * sizeof *gaps) : NULL;
    if (n > 0 && !gaps) off = 0;
    for (int i = 0; gaps && i <= n; i++) {
        int64_t g = i == n ? b->wall_ns - p[2 * n - 1]
            : i > 0        ? p[2 * i + 1] - p[2 * i - 1]
            : s->has_last  ? p[1] - s->paused - s->last_when
                           : 0;
        gaps[i] = g > 0 ? g : 0;
    }
    int64_t level = off > 0 ? cut_level(gaps, n + 1, off) : INT64_MAX;
    for (int i = 0; i < n; i++) {
        if (gaps && gaps[i] > level) s->paused += gaps[i] - level;
        int64_t ev = p[2 * i], when = p[2 * i + 1] - s->paused;
        uint64_t code = (uint64_t)ev & ~(uint64_t)(TRACKER_EXIT_BIT | TRACKER_LEAF_BIT | TRACKER_UNTIMED_BIT);
        uint32_t cnum = (uint32_t)(code >> 16), mnum = (uint32_t)(code & 0xffff);
        if (ev < 0)
            on_method_exit(h, jni, s, cnum, mnum, when, is_untimed(ev));
        else if (is_leaf(ev))
            count_leaf(h, jni, s, cnum, mnum);
        else
            push(h, jni, s, cnum, mnum, when, is_untimed(ev));
        s->last_when = when;
        s->has_last = true;
    }
    if (gaps && gaps[n] > level) s->paused += gaps[n] - level;
    free(gaps);
    flush_edges(s);
    if (s->estimated) atomic_fetch_add_explicit(&h->method_times->estimated, s->estimated, memory_order_relaxed);
    s->estimated = 0;
}

struct batch *method_times_batch_new(struct method_times *m, int npairs)
{
    struct batch *b = NULL;
    pthread_mutex_lock(&m->pool_lock);
    if (m->npool > 0 && m->pool[m->npool - 1]->cap >= npairs) b = m->pool[--m->npool];
    pthread_mutex_unlock(&m->pool_lock);
    int cap = b ? b->cap : npairs;
    if (!b && !(b = malloc(sizeof *b + (size_t)npairs * 2 * sizeof(int64_t)))) return NULL;
    memset(b, 0, sizeof *b);
    b->npairs = npairs;
    b->cap = cap;
    return b;
}

/* A batch counted or not wanted: a large one is kept for the next, if there is room. */
static void batch_free(struct method_times *m, struct batch *b)
{
    pthread_mutex_lock(&m->pool_lock);
    bool kept = b->cap >= POOLED_PAIRS && m->npool < POOLED;
    if (kept) m->pool[m->npool++] = b;
    pthread_mutex_unlock(&m->pool_lock);
    if (!kept) free(b);
}

int64_t *method_times_batch_pairs(struct batch *b) { return b->pairs; }

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
    if (s->edges_mask >= 1024) { /* a small table is kept: the next thread may take the same steps */
        free(s->edges);
        free(s->hints);
        free(s->dirty);
        s->edges = NULL;
        s->hints = NULL;
        s->dirty = NULL;
        s->nedges = s->edges_mask = s->dirty_cap = 0;
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
        (struct call_stack *)(b->npairs == 0 ? cmap_find(&m->stacks, hash, &tid, stack_eq)
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
        uint64_t entries = 0, by_hint = 0, by_hash = 0;
        uint32_t most = 0;
        for (uint32_t i = 0, n = registry_count(&m->all); i < n; i++) {
            const struct call_stack *s = registry_get(&m->all, i);
            entries += s->entries;
            by_hint += s->by_hint;
            by_hash += s->by_hash;
            if (s->most_edges > most) most = s->most_edges;
        }
        log_plain("HPROF: cpu=times calls: %llu, %llu found by hint, %llu by hash; at most %u edges in a stack",
                  (unsigned long long)entries, (unsigned long long)by_hint, (unsigned long long)by_hash, most);
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
