/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Stack traces, de-duplicated, each with its serial number and its counters.
 *
 * A trace is found by its raw frames (jmethodID, location) and thread, which is all a
 * sampler or an allocation hook has in hand: the fast path is one hash lookup. The
 * frames are resolved to methods and lines once, by sources/resolve.c (traces_of),
 * when the raw frames are first seen.
 *
 * A trace is one stack of resolved frames (canonical methods, see methods.h): the raw
 * frames of every copy of a class a loader defined again lead to the same trace, each
 * through a raw key of its own. Once a copy is unloaded its raw keys go
 * (traces_sweep); the trace and its counts stay.
 *
 * Traces live for good, but for one kind: a rolling profile writes each window's own
 * samples, and a program that keeps showing new stacks would grow the table for ever.
 * A trace that only the CPU samplers ever looked up, and that no window has sampled for
 * a while, is forgotten at a window's end (traces_forget_idle). Every other source keeps
 * the pointers it is given (sites, monitors, dumps, the method timer), so any other
 * lookup holds the trace for good (struct trace.hold). The samplers look up and count
 * between traces_sampling_begin and _end, which the forgetting waits for.
 */
#ifndef HPROF_TRACES_H
#define HPROF_TRACES_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct frame;
struct method_table;
struct frame_table;

/* Who may hold a trace (struct trace.hold). */
enum trace_hold {
    TRACE_SAMPLES_ONLY, /* only the CPU samplers have looked it up: it may be forgotten */
    TRACE_HELD,         /* another source has it: kept for good */
    TRACE_FORGOTTEN,    /* out of the maps, freed once they are swept */
};

struct trace {
    struct cmap_node node;
    uint32_t serial;        /* 300001 ... (300000 is the empty trace) */
    uint32_t thread_serial; /* 0 unless thread=y */
    uint32_t nframes;
    _Atomic uint8_t hold;         /* enum trace_hold; changed only by compare-and-swap */
    _Atomic uint32_t window;      /* the window it was last sampled in (trace_table.window) */
    _Atomic uint64_t cpu_samples; /* times cpu=samples found a thread here */
    _Atomic uint64_t calls;       /* cpu=times/old: exits of the method on top */
    _Atomic uint64_t cost_ns;     /* time in that method: cpu=times callees excluded, cpu=old included */
    bool written;                 /* TRACE record written (output lock held) */
    struct frame **frames;        /* resolved, top frame first: the trace's key (frame_at) */
    /* The raw frames it was first entered by, where its frames do not say them (each
     * frame's method's first jmethodID and its location, as nearly always: else a class
     * defined again, or lineno=n); NULL where they do. At depth=64 a copy of each would
     * take 1 KB a trace: 350 MB of Ant's 350,000 traces with view=all. */
    const jvmtiFrameInfo *raw;
    struct frame *frame_at[]; /* nframes, then the raw frames when raw is not NULL */
};

struct trace_table {
    struct cmap by_raw; /* raw frames and thread -> trace (struct trace_raw, in traces.c) */
    struct cmap map;    /* the traces, by resolved frames and thread */
    struct registry all;
    struct method_table *methods; /* where the frames of a new trace are resolved */
    struct frame_table *frames;
    struct trace empty; /* serial 300000: no frames */
    /* Held by the samplers from a lookup to its count, by walks over every trace in
     * traces.c, and by traces_forget_idle: a trace nobody holds is freed only here. */
    pthread_mutex_t sampling;
    _Atomic uint32_t window;    /* windows ended (traces_forget_idle calls) */
    _Atomic uint64_t forgotten; /* traces forgotten so far (HPROF_TABLE_STATS) */
};

void traces_init(struct trace_table *t, struct method_table *methods, struct frame_table *frames);
/* The raw key's hash, and whether a trace was first entered by this raw key: for
 * callers that keep a cache in front of the table. */
uint64_t traces_key_hash(uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes);
bool traces_key_equals(const struct trace *t, uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes);
/* The trace of these raw frames on this thread (0 = any), or NULL when not entered (or
 * their class unloaded since, or the trace forgotten). `hold`: the caller keeps the
 * pointer (false only for a CPU sampler, between traces_sampling_begin and _end). */
struct trace *traces_find(struct trace_table *t, uint64_t hash, uint32_t thread_serial, const jvmtiFrameInfo *frames,
                          int nframes, bool hold);
/*
 * Enters these raw frames, resolved by the caller into `resolved` (nframes frames, from
 * malloc; freed here). Returns their trace: a new one, or the one of the same resolved
 * frames entered before; NULL when out of memory.
 */
struct trace *traces_add(struct trace_table *t, uint64_t hash, uint32_t thread_serial, const jvmtiFrameInfo *frames,
                         int nframes, struct frame **resolved, bool hold);
uint32_t traces_count(struct trace_table *t);
/* Raw keys noted (HPROF_TABLE_STATS). */
static inline uint64_t traces_raw_keys(struct trace_table *t) { return cmap_count(&t->by_raw); }
/* The i-th trace made, or NULL once forgotten. A caller that walks them holds what keeps
 * traces_forget_idle out: the report's locks (see report.c), or `sampling` (traces.c). */
struct trace *traces_at(struct trace_table *t, uint32_t i);
/* The trace of these resolved frames (the caller's array, copied) on this thread, made
 * on first sight, with no raw key: for a source that names its frames itself (cpu=times).
 * NULL when out of memory. */
struct trace *traces_of_frames(struct trace_table *t, uint32_t thread_serial, struct frame *const *frames, int nframes);
/* Takes out the raw keys with a frame whose method dead(id, ctx) says was unloaded;
 * returns how many. */
uint32_t traces_sweep(struct trace_table *t, bool (*dead)(jmethodID id, void *ctx), void *ctx);
/* A CPU sampler's lookups and counts (traces_of_sample) go between these. */
static inline void traces_sampling_begin(struct trace_table *t) { pthread_mutex_lock(&t->sampling); }
static inline void traces_sampling_end(struct trace_table *t) { pthread_mutex_unlock(&t->sampling); }
/* n samples of a trace, in the current window (sampling held). */
static inline void traces_add_samples(struct trace_table *t, struct trace *tr, uint64_t n)
{
    atomic_fetch_add_explicit(&tr->cpu_samples, n, memory_order_relaxed);
    uint32_t w = atomic_load_explicit(&t->window, memory_order_relaxed);
    if (atomic_load_explicit(&tr->window, memory_order_relaxed) != w)
        atomic_store_explicit(&tr->window, w, memory_order_relaxed);
}
/*
 * A rolling profile's window has ended, its counts taken (no walk of the traces may be
 * under way: the report's locks held). Forgets and frees the traces only the samplers
 * looked up that no sample named in the last `idle` windows (this one included) and
 * that count nothing; returns how many.
 */
uint32_t traces_forget_idle(struct trace_table *t, uint32_t idle);
static inline uint64_t traces_forgotten(struct trace_table *t) { return atomic_load(&t->forgotten); }
/* Zeroes every trace's CPU sample count (the socket's "clear CPU samples"). */
void traces_clear_cpu_samples(struct trace_table *t);
/* Zeroes every trace's counts, sampled and timed (a session's or a window's start). */
void traces_clear_counts(struct trace_table *t);
/* Every trace and its frames as not yet written: a new output file needs them again
 * (output lock held). */
void traces_forget_written(struct trace_table *t);

#endif
