/*
 * Stack traces, de-duplicated, each with its serial number and its counters.
 *
 * A trace is found by its raw frames (jmethodID, location) and thread, which is all a
 * sampler or an allocation hook has in hand: the fast path is one hash lookup. The
 * frames are resolved to methods and lines once, by sources/resolve.c (traces_of),
 * when the trace is first seen.
 */
#ifndef HPROF_TRACES_H
#define HPROF_TRACES_H

#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct frame;
struct method_table;
struct frame_table;

struct trace {
    struct cmap_node node;
    uint32_t serial;              /* 300001 ... (300000 is the empty trace) */
    uint32_t thread_serial;       /* 0 unless thread=y */
    uint32_t nframes;
    _Atomic uint64_t cpu_samples; /* times cpu=samples found a thread here */
    _Atomic uint64_t calls;       /* cpu=times/old: exits of the method on top */
    _Atomic uint64_t cost_ns;     /* time in that method: cpu=times callees excluded, cpu=old included */
    bool written;                 /* TRACE record written (output lock held) */
    struct frame **frames;        /* resolved, top frame first */
    jvmtiFrameInfo raw[];         /* the key */
};

struct trace_table {
    struct cmap map;
    struct registry all;
    struct method_table *methods; /* where the frames of a new trace are resolved */
    struct frame_table *frames;
    struct trace empty;           /* serial 300000: no frames */
};

void traces_init(struct trace_table *t, struct method_table *methods, struct frame_table *frames);
/* The key hash and key test of the table, for callers that keep a cache in front of it. */
uint64_t traces_key_hash(uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes);
bool traces_key_equals(const struct trace *t, uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes);
/* The trace of these raw frames on this thread (0 = any), or NULL when never entered. */
struct trace *traces_find(struct trace_table *t, uint64_t hash, uint32_t thread_serial,
                          const jvmtiFrameInfo *frames, int nframes);
/*
 * Enters the trace of these raw frames, resolved by the caller into `resolved` (nframes
 * frames, from malloc; the table owns the array now). Returns the entry: the new one, or
 * the one another thread entered first; NULL when out of memory.
 */
struct trace *traces_add(struct trace_table *t, uint64_t hash, uint32_t thread_serial,
                         const jvmtiFrameInfo *frames, int nframes, struct frame **resolved);
uint32_t traces_count(struct trace_table *t);
struct trace *traces_at(struct trace_table *t, uint32_t i);
/* Zeroes every trace's CPU sample count (the socket's "clear CPU samples"). */
void traces_clear_cpu_samples(struct trace_table *t);

#endif
