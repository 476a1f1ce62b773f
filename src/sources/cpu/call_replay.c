/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/call_replay.h"

#include <stdlib.h>
#include <string.h>

#include "sources/cpu/gap_cut.h"
#include "sources/cpu/method_costs.h"
#include "sources/cpu/method_names.h"
#include "sources/cpu/tracker_events.h"
#include "sources/host.h"
#include "tables/bci_classes.h"

#define MAX_STACK       (1 << 20) /* the deepest shadow stack: deeper calls are not counted */
#define FIRST_FRAMES    256       /* a shadow stack's first room; a thread's end keeps no more */
#define EDGE_MAX        (1 << 16) /* the most edges a replay has, 4 MiB: then it starts again */
#define FIRST_EDGES     128       /* an edge table's first room */
#define KEPT_EDGES      1024      /* a thread's end keeps an edge table smaller than this */
#define FIRST_INDEX     256       /* the edge index's first size */
#define FIRST_DIRTY     256       /* the dirty list's first room */
#define EDGE_CALLS_BITS 16        /* an edge's key: its method's code << this | calls not yet added */
#define EDGE_CALLS      (((uint64_t)1 << EDGE_CALLS_BITS) - 1) /* the most calls an edge holds */
#define NO_EDGE         UINT32_MAX

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
    uint64_t key;             /* code << EDGE_CALLS_BITS | calls not yet added to `to` */
    uint64_t ns;              /* time not yet added to `to` */
    struct method_cost *cost; /* its method's (timing=sampled; NULL: none to be had) */
    uint64_t timed_ns;        /* own time of the calls timed at both ends, not yet added to cost */
    uint32_t timed;           /* and those calls */
    uint32_t first, next;     /* the hints */
    uint32_t mean_ns;         /* the method's mean as the batch began: an untimed call's charge */
};
_Static_assert(sizeof(struct edge) == 64, "an edge is a cache line");

struct call_replay {
    struct method_costs *costs;
    struct call_frame *frames;
    int n, cap;
    int64_t cpu_last, wall_last; /* the thread's CPU time and clock at the previous hand-over */
    int64_t paused;              /* time cut so far: later event times are moved back by it */
    int64_t last_when;           /* the previous event's time, less `paused` then */
    bool has_last;
    int64_t *gaps; /* scratch: a batch's gaps between timed events */
    int gaps_cap;
    int64_t tracker_ns;                   /* the shortest call without callees: the Tracker's own work */
    uint64_t estimated;                   /* calls charged their method's mean, not yet in the total */
    struct frame *key[TRACKER_MAX_DEPTH]; /* scratch: the trace being looked up */
    struct edge *edges;                   /* the steps seen, in the order they were made: a path's */
    uint32_t nedges, edges_cap;           /* steps lie together; edges used, and room for */
    uint32_t *index;                      /* open addressing by (from, code): edge + 1, 0 free */
    uint32_t index_mask;                  /* its size less one */
    uint32_t *dirty;                      /* the edges with counts to add */
    uint32_t ndirty, dirty_cap;
    int depth;             /* of the traces in frames and edges (0: none yet) */
    uint32_t serial;       /* and their thread serial */
    struct replay_stats s; /* HPROF_STACK_STATS */
};

struct call_replay *call_replay_new(struct method_costs *costs)
{
    struct call_replay *r = calloc(1, sizeof *r);
    if (r) r->costs = costs;
    return r;
}

/* The trace of frame `top` and those under it, cut to the replay's depth; NULL when a
 * frame could not be named (out of memory) or the table is full. */
static struct trace *trace_at(struct host *h, JNIEnv *jni, struct call_replay *r, int top)
{
    int n = 0;
    for (int i = top; i >= 0 && n < r->depth; i--, n++) {
        struct call_frame *f = &r->frames[i];
        if (!f->frame) f->frame = method_names_frame(h, jni, f->cnum, f->mnum, NULL);
        if (!(r->key[n] = f->frame)) return NULL;
    }
    return traces_of_frames(&h->t.traces, r->serial, r->key, n);
}

static uint64_t edge_code(const struct edge *e) { return e->key >> EDGE_CALLS_BITS; }

static uint32_t edge_slot(const struct call_replay *r, const struct trace *from, uint64_t code)
{
    return (uint32_t)hash_mix64((uint64_t)(uintptr_t)from ^ (code * 0x9E3779B97F4A7C15ULL)) & r->index_mask;
}

static uint32_t edge_find(const struct call_replay *r, const struct trace *from, uint64_t code)
{
    if (!r->index) return NO_EDGE;
    for (uint32_t i = edge_slot(r, from, code);; i = (i + 1) & r->index_mask) {
        uint32_t x = r->index[i];
        if (!x) return NO_EDGE;
        const struct edge *e = &r->edges[x - 1];
        if (e->from == from && edge_code(e) == code) return x - 1;
    }
}

static void index_put(struct call_replay *r, uint32_t e)
{
    uint32_t i = edge_slot(r, r->edges[e].from, edge_code(&r->edges[e]));
    while (r->index[i]) i = (i + 1) & r->index_mask;
    r->index[i] = e + 1;
}

/* Adds the edge's counts to its trace but `keep` calls (1 to stay in the dirty list). */
static void edge_flush(struct edge *e, uint64_t keep)
{
    atomic_fetch_add_explicit(&e->to->calls, (e->key & EDGE_CALLS) - keep, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->to->cost_ns, e->ns, memory_order_relaxed);
    e->key = (e->key & ~EDGE_CALLS) | keep;
    e->ns = 0;
}

/* Adds what the replay's edges counted to their traces. */
static void flush_edges(struct call_replay *r)
{
    for (uint32_t i = 0; i < r->ndirty; i++) edge_flush(&r->edges[r->dirty[i]], 0);
    r->ndirty = 0;
}

/* timing=sampled: adds the timed calls the batch's edges hold to their methods' costs,
 * and takes their methods' means for the next batch: the method's line is read once a
 * batch, not at every untimed call (it is another replay's to write, and far from the
 * edge). */
static void edges_to_costs(struct host *h, JNIEnv *jni, struct call_replay *r)
{
    for (uint32_t i = 0; i < r->ndirty; i++) {
        struct edge *e = &r->edges[r->dirty[i]];
        if (!e->cost) continue;
        if (e->timed) {
            uint32_t cnum, mnum;
            method_code_split(edge_code(e), &cnum, &mnum);
            method_costs_add(h, jni, r->costs, cnum, mnum, e->cost, e->timed, e->timed_ns);
            e->timed = 0;
            e->timed_ns = 0;
        }
        e->mean_ns = atomic_load_explicit(&e->cost->mean_ns, memory_order_relaxed);
    }
}

/* No edges any more (their counts added): the frames count straight into their traces.
 * The hints left in the edges after nedges are past the end: never taken. */
static void forget_edges(struct host *h, JNIEnv *jni, struct call_replay *r)
{
    edges_to_costs(h, jni, r);
    flush_edges(r);
    r->nedges = 0;
    if (r->index) memset(r->index, 0, ((size_t)r->index_mask + 1) * sizeof *r->index);
    for (int i = 0; i < r->n; i++) r->frames[i].edge = r->frames[i].last_child = NO_EDGE;
}

static uint32_t edge_put(struct call_replay *r, const struct edge *e)
{
    uint32_t i = r->nedges++;
    r->edges[i] = *e;
    index_put(r, i);
    if (r->nedges > r->s.most_edges) r->s.most_edges = r->nedges;
    return i;
}

/* Room for one more edge (edges stay where they are: a frame's edge and the hints hold),
 * its index at most 3/4 full, and for its counts in the dirty list; false when out of
 * memory. At EDGE_MAX the replay starts again with none. */
static bool edge_room(struct host *h, JNIEnv *jni, struct call_replay *r)
{
    if (r->nedges == EDGE_MAX) {
        r->s.full++;
        forget_edges(h, jni, r);
    }
    if (r->dirty_cap < r->nedges + 1) {
        uint32_t cap = r->dirty_cap ? 2 * r->dirty_cap : FIRST_DIRTY;
        uint32_t *d = realloc(r->dirty, (size_t)cap * sizeof *d);
        if (!d) return false;
        r->dirty = d;
        r->dirty_cap = cap;
    }
    if (r->nedges == r->edges_cap) {
        uint32_t cap = r->edges_cap ? 2 * r->edges_cap : FIRST_EDGES;
        struct edge *t = aligned_alloc(_Alignof(struct edge), (size_t)cap * sizeof *t);
        if (!t) return false;
        if (r->nedges) memcpy(t, r->edges, (size_t)r->nedges * sizeof *t);
        free(r->edges);
        r->edges = t;
        r->edges_cap = cap;
    }
    uint32_t size = r->index ? r->index_mask + 1 : 0;
    if (4 * (r->nedges + 1) <= 3 * size) return true;
    size = size ? 2 * size : FIRST_INDEX;
    uint32_t *index = calloc(size, sizeof *index);
    if (!index) return false;
    free(r->index);
    r->index = index;
    r->index_mask = size - 1;
    for (uint32_t i = 0; i < r->nedges; i++) index_put(r, i);
    return true;
}

static void edge_add(struct host *h, JNIEnv *jni, struct call_replay *r, struct trace *from, uint64_t code,
                     struct call_frame *f)
{
    if (!f->trace || !edge_room(h, jni, r)) return;
    uint32_t nmethods;
    struct method_cost *cost = method_costs_wanted(h->opt) ? method_cost_of(h, f->cnum, f->mnum, &nmethods) : NULL;
    uint32_t mean = cost ? atomic_load_explicit(&cost->mean_ns, memory_order_relaxed) : 0;
    f->edge = edge_put(
        r, &(struct edge){.from = from, .to = f->trace, .key = code << EDGE_CALLS_BITS, .cost = cost, .mean_ns = mean});
}

/* Adds one call of frame f, of ns, to its trace: through its edge, or at once. An edge
 * enters the dirty list (room for every edge) with its first call of the batch. */
static void count_call(struct call_replay *r, const struct call_frame *f, uint64_t ns)
{
    if (f->edge != NO_EDGE) {
        struct edge *e = &r->edges[f->edge];
        if (!(e->key & EDGE_CALLS) && r->ndirty < r->dirty_cap) r->dirty[r->ndirty++] = f->edge;
        e->key++;
        e->ns += ns;
        if ((e->key & EDGE_CALLS) == EDGE_CALLS) edge_flush(e, 1);
    } else if (f->trace) {
        atomic_fetch_add_explicit(&f->trace->calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&f->trace->cost_ns, ns, memory_order_relaxed);
    }
}

/*
 * The replay's traces at this depth and thread serial (cpu=old keeps 2 frames; depth may
 * change while the program runs): when they change, the edges go and the frames' traces
 * are taken again.
 */
static void set_trace_key(struct host *h, JNIEnv *jni, struct call_replay *r, uint32_t thread_serial)
{
    int depth = h->opt->cpu == CPU_OLD ? 2 : host_depth(h);
    if (depth > TRACKER_MAX_DEPTH) depth = TRACKER_MAX_DEPTH;
    if (depth == r->depth && thread_serial == r->serial) return;
    forget_edges(h, jni, r);
    r->depth = depth;
    r->serial = thread_serial;
    for (int i = 0; i < r->n; i++) r->frames[i].trace = trace_at(h, jni, r, i);
}

/* Where the hint for the next call from frame f is: the edge of its latest callee, or
 * else its own edge; NULL when it has neither. */
static uint32_t *hint_of(struct call_replay *r, const struct call_frame *f)
{
    if (f->last_child != NO_EDGE) return &r->edges[f->last_child].next;
    return f->edge != NO_EDGE ? &r->edges[f->edge].first : NULL;
}

/* The edge of a call of `code` from frame f (trace `from`): most often the one its hint
 * names, as a program makes the same calls in the same order again and again (97% on
 * bench `cpu`, 90% on javac), else by hash (and hinted next time). No hash to compute,
 * and the hint's line is one the frame's caller or previous callee just used. */
static uint32_t callee_edge(struct call_replay *r, struct call_frame *f, const struct trace *from, uint64_t code)
{
    uint32_t *hint = hint_of(r, f), e = hint ? *hint : NO_EDGE;
    if (e < r->nedges && r->edges[e].from == from && edge_code(&r->edges[e]) == code) {
        r->s.by_hint++;
    } else {
        e = edge_find(r, from, code);
        r->s.by_hash += e != NO_EDGE;
        if (hint && e != NO_EDGE) *hint = e;
    }
    f->last_child = e;
    return e;
}

/* Enters method (cnum, mnum) at `when`: the step from the frame below through its edge,
 * else by naming the method and looking its trace up (and an edge for the next time). */
static void push(struct host *h, JNIEnv *jni, struct call_replay *r, uint32_t cnum, uint32_t mnum, int64_t when,
                 bool untimed)
{
    if (r->n == r->cap) {
        if (r->cap >= MAX_STACK) return;
        int cap = r->cap ? r->cap * 2 : FIRST_FRAMES;
        struct call_frame *f = realloc(r->frames, (size_t)cap * sizeof *f);
        if (!f) return;
        r->frames = f;
        r->cap = cap;
    }
    struct call_frame *caller = r->n ? &r->frames[r->n - 1] : NULL;
    struct trace *from = caller ? caller->trace : NULL;
    uint64_t code = method_code(cnum, mnum);
    uint32_t e = !caller ? edge_find(r, NULL, code) : from ? callee_edge(r, caller, from, code) : NO_EDGE;
    struct call_frame *f = &r->frames[r->n++];
    *f = (struct call_frame){
        .cnum = cnum, .mnum = mnum, .edge = e, .last_child = NO_EDGE, .start = when, .untimed = untimed};
    if (e != NO_EDGE) {
        f->trace = r->edges[e].to;
        return;
    }
    bool named;
    f->frame = method_names_frame(h, jni, cnum, mnum, &named);
    f->trace = trace_at(h, jni, r, r->n - 1);
    if (named && (from || r->n == 1)) edge_add(h, jni, r, from, code, f);
}

/* A call of a trivial method: counted with no time (its time is its caller's own). */
static void count_leaf(struct host *h, JNIEnv *jni, struct call_replay *r, uint32_t cnum, uint32_t mnum)
{
    int n = r->n;
    if (n > 0) r->frames[n - 1].leaves = true;
    push(h, jni, r, cnum, mnum, 0, false);
    if (r->n > n) count_call(r, &r->frames[n], 0);
    r->n = n;
}

/* timing=sampled: a call of frame f timed at both ends took `own`: added to its method's
 * costs with its edge's others at the batch's end, or at once. */
static void cost_timed_call(struct host *h, JNIEnv *jni, struct call_replay *r, const struct call_frame *f, int64_t own)
{
    uint64_t ns = (uint64_t)(own < METHOD_COST_MAX_NS ? own : METHOD_COST_MAX_NS);
    if (f->edge == NO_EDGE) {
        method_costs_add(h, jni, r->costs, f->cnum, f->mnum, NULL, 1, ns);
        return;
    }
    struct edge *e = &r->edges[f->edge];
    e->timed++;
    e->timed_ns += ns;
}

/* What a call that read the clock at one end or none is charged: its method's mean own
 * time (timing=sampled). */
static int64_t mean_cost(struct host *h, const struct call_replay *r, const struct call_frame *f)
{
    if (f->edge != NO_EDGE && r->edges[f->edge].cost) return r->edges[f->edge].mean_ns;
    uint32_t nmethods;
    struct method_cost *c = method_cost_of(h, f->cnum, f->mnum, &nmethods);
    return c ? atomic_load_explicit(&c->mean_ns, memory_order_relaxed) : 0;
}

/*
 * Closes frame i (and every frame above it) at time `when`. cpu=times charges a call its
 * own time; cpu=old, as the original's old prof format, its whole time, callees included.
 * The Tracker's own work is taken out: the part between a call's two clock reads (about
 * one read; the shortest call seen so far that called nothing, not even a trivial method,
 * is nothing else) and about as much around them, which would fall to the caller.
 * A call whose entry or exit (`untimed`: frame i's) read no clock is charged its
 * method's mean instead, callees added as usual; only calls timed at both ends go into
 * the means.
 */
static void pop_to(struct host *h, JNIEnv *jni, struct call_replay *r, int i, int64_t when, bool untimed)
{
    bool inclusive = h->opt->cpu == CPU_OLD;
    while (r->n > i) {
        int top = r->n - 1;
        struct call_frame *f = &r->frames[top];
        if (f->untimed || (untimed && top == i)) {
            int64_t own = mean_cost(h, r, f);
            r->estimated++;
            count_call(r, f, (uint64_t)(inclusive ? own + f->callees : own));
            if (top > 0) {
                r->frames[top - 1].callees += own + f->callees;
                r->frames[top - 1].leaves = true;
            }
            r->n = top;
            continue;
        }
        int64_t total = when - f->start;
        if (total < 0) total = 0;
        if (!f->callees && !f->leaves && total > 0 && (total < r->tracker_ns || !r->tracker_ns)) r->tracker_ns = total;
        int64_t tracker = r->tracker_ns;
        int64_t own = total - f->callees - tracker;
        if (own < 0) own = 0;
        int64_t whole = total > tracker ? total - tracker : 0;
        count_call(r, f, (uint64_t)(inclusive ? whole : own));
        if (method_costs_wanted(h->opt)) cost_timed_call(h, jni, r, f, own);
        if (top > 0) r->frames[top - 1].callees += total + tracker;
        r->n = top;
    }
}

/* The newest open call of (cnum, mnum), which an exit of it closes (with those above it,
 * ended by an exception); -1 for an exit with no entry (the method began before the
 * Tracker was engaged): ignored. */
static int exited_frame(const struct call_replay *r, uint32_t cnum, uint32_t mnum)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (r->frames[i].cnum == cnum && r->frames[i].mnum == mnum) return i;
    return -1;
}

/* The batch's gaps between timed events, in the replay's scratch (gap_list); their count,
 * or -1 when out of memory. */
static int batch_gaps(struct call_replay *r, const int64_t *p, int n, int64_t end, int64_t prev)
{
    if (n + 1 > r->gaps_cap) {
        int64_t *g = realloc(r->gaps, (size_t)(n + 1) * sizeof *g);
        if (!g) return -1;
        r->gaps = g;
        r->gaps_cap = n + 1;
    }
    return gap_list(r->gaps, p, n, end, prev);
}

/*
 * The time the thread spent off the CPU in the batch's window (0 when not known); *skip
 * is 2 (its slots) when the batch starts with a mark. A mark (the thread's CPU time and
 * clock when its buffer was made, or when its previous hand-over returned) starts the
 * window after that hand-over, whose time, with any wait for the timer thread it woke,
 * belongs to no method: it is cut from the timeline. Without one (events handed over one
 * by one) the window starts at the previous hand-over, or at the batch's first event.
 */
static int64_t off_cpu(struct call_replay *r, const struct replay_batch *b, int *skip)
{
    int64_t cpu0 = r->cpu_last, wall0 = r->wall_last, off = 0;
    *skip = 0;
    if (b->nslots >= 2 && event_is_mark(b->slots[0])) {
        cpu0 = b->slots[0] & ~TRACKER_MARK_BIT;
        wall0 = b->slots[1];
        if (r->wall_last && wall0 > r->wall_last) r->paused += wall0 - r->wall_last;
        *skip = 2;
    } else if (!wall0) {
        wall0 = gap_first_time(b->slots, b->nslots, b->wall_ns);
    }
    if (b->cpu_ns >= 0) {
        int64_t dw = b->wall_ns - wall0, dc = b->cpu_ns - cpu0;
        if (dw > dc && dc >= 0) off = dw - dc;
        r->cpu_last = b->cpu_ns;
    }
    r->wall_last = b->wall_ns;
    return off;
}

/*
 * Time between two timed events belongs to the frame on top, less what gap_cut takes of
 * it: the time the thread was off the CPU in the batch's window is cut from the longest
 * gaps, down to a common level. Events that read no clock have no gap of their own, and
 * their time is looked for only where it counts.
 */
uint64_t call_replay_batch(struct host *h, JNIEnv *jni, struct call_replay *r, const struct replay_batch *b)
{
    if (b->nslots == 0) return 0; /* only a thread's end */
    set_trace_key(h, jni, r, b->thread_serial);
    int skip;
    int64_t off = off_cpu(r, b, &skip);
    int n = b->nslots - skip;
    const int64_t *p = b->slots + skip;
    uint64_t events = 0;
    bool timed = true; /* the last event read the clock */
    int64_t first = r->has_last ? r->last_when + r->paused : GAP_NO_TIME, level = INT64_MAX;
    if (off > 0 && n > 0) {
        int m = batch_gaps(r, p, n, b->wall_ns, first);
        if (m > 0) level = gap_level(r->gaps, m, off);
    }
    int64_t prev = first;
    for (int i = 0; i < n; events++) {
        int64_t ev = p[i++], when = 0;
        timed = event_is_timed(ev);
        if (timed) {
            if (i == n) break; /* its time cut off */
            int64_t t = p[i++];
            r->paused += gap_cut(prev, t, level);
            prev = t;
            when = t - r->paused;
            r->last_when = when;
            r->has_last = true;
        }
        uint32_t cnum, mnum;
        method_code_split(event_code(ev), &cnum, &mnum);
        if (event_is_exit(ev)) {
            int top = exited_frame(r, cnum, mnum);
            if (top < 0) continue;
            bool untimed = event_is_untimed(ev);
            if (untimed && top < r->n - 1) when = gap_untimed_when(p, i, n, b->wall_ns, prev, level, r->paused);
            pop_to(h, jni, r, top, when, untimed);
        } else if (event_is_leaf(ev)) {
            count_leaf(h, jni, r, cnum, mnum);
        } else {
            push(h, jni, r, cnum, mnum, when, event_is_untimed(ev)); /* an untimed call's start is not used */
        }
    }
    r->paused += gap_cut(prev, b->wall_ns, level);
    if (!timed) { /* the next batch's first gap starts at the hand-over */
        r->last_when = b->wall_ns - r->paused;
        r->has_last = true;
    }
    edges_to_costs(h, jni, r);
    flush_edges(r);
    if (r->estimated) method_costs_charged(r->costs, r->estimated);
    r->estimated = 0;
    return events;
}

void call_replay_clear(struct call_replay *r)
{
    if (r->cap > FIRST_FRAMES) {
        free(r->frames);
        r->frames = NULL;
        r->cap = 0;
    }
    r->n = 0;
    r->cpu_last = r->wall_last = r->paused = r->last_when = r->tracker_ns = 0;
    r->has_last = false;
    if (r->edges_cap >= KEPT_EDGES) {
        free(r->edges);
        r->edges = NULL;
        free(r->index);
        r->index = NULL;
        free(r->dirty);
        r->dirty = NULL;
        r->nedges = r->edges_cap = r->index_mask = r->dirty_cap = 0;
    }
}

void call_replay_add_stats(const struct call_replay *r, struct replay_stats *sum)
{
    sum->by_hint += r->s.by_hint;
    sum->by_hash += r->s.by_hash;
    if (r->s.most_edges > sum->most_edges) sum->most_edges = r->s.most_edges;
    sum->full += r->s.full;
}
