/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/traces.h"

#include <stdlib.h>
#include <string.h>

#include "tables/frames.h"
#include "tables/ids.h"
#include "tables/methods.h"

struct trace_key {
    uint32_t thread_serial;
    int nframes;
    const jvmtiFrameInfo *frames;
    struct trace *found; /* by_raw: copied out under the stripe's lock */
};

/* A raw key of a trace. The sweeper frees it once its frames' class is unloaded, so it
 * is read only under its stripe's lock. Its frames are the trace's own when the trace
 * was first entered by them (nearly always: at depth=64 a copy would cost 1 KB a trace),
 * else its copy (a class defined again). */
struct trace_raw {
    struct cmap_node node;
    struct trace *trace;
    uint32_t thread_serial;
    uint32_t nframes;
    const jvmtiFrameInfo *raw;
    jvmtiFrameInfo copy[];
};

/* The resolved key of a new trace. */
struct frames_key {
    uint32_t thread_serial;
    int nframes;
    struct frame *const *frames;
};

void traces_init(struct trace_table *t, struct method_table *methods, struct frame_table *frames)
{
    cmap_init(&t->by_raw);
    cmap_init(&t->map);
    registry_init(&t->all);
    t->methods = methods;
    t->frames = frames;
    memset(&t->empty, 0, sizeof t->empty);
    t->empty.serial = SERIAL_TRACE_BASE;
}

uint32_t traces_count(struct trace_table *t) { return registry_count(&t->all); }
struct trace *traces_at(struct trace_table *t, uint32_t i) { return registry_get(&t->all, i); }

/*
 * Computed for every allocation under exact heap=sites, over up to 64 frames: two
 * independent chains of multiplies (methods, locations), so that the CPU runs them side
 * by side, one full mix at the end.
 */
static uint64_t key_hash(const struct trace_key *k)
{
    uint64_t a = k->thread_serial + ((uint64_t)k->nframes << 32), b = 0x243F6A8885A308D3ULL;
    for (int i = 0; i < k->nframes; i++) {
        a = (a ^ (uint64_t)(uintptr_t)k->frames[i].method) * 0x9E3779B97F4A7C15ULL;
        b = (b ^ (uint64_t)k->frames[i].location) * 0xC2B2AE3D27D4EB4FULL;
    }
    return hash_mix64(a ^ (b >> 29) ^ (b << 35));
}

static bool same_frames(const jvmtiFrameInfo *a, const jvmtiFrameInfo *b, int n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

bool traces_key_equals(const struct trace *t, uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    return t->thread_serial == thread_serial && t->nframes == (uint32_t)nframes && same_frames(t->raw, frames, nframes);
}

static bool raw_eq(const struct cmap_node *n, const void *key)
{
    const struct trace_raw *r = (const struct trace_raw *)n;
    struct trace_key *k = (struct trace_key *)key;
    if (r->thread_serial != k->thread_serial || r->nframes != (uint32_t)k->nframes ||
        !same_frames(r->raw, k->frames, k->nframes))
        return false;
    k->found = r->trace;
    return true;
}

static bool frames_eq(const struct cmap_node *n, const void *key)
{
    const struct trace *t = (const struct trace *)n;
    const struct frames_key *k = key;
    if (t->thread_serial != k->thread_serial || t->nframes != (uint32_t)k->nframes) return false;
    for (int i = 0; i < k->nframes; i++)
        if (t->frames[i] != k->frames[i]) return false;
    return true;
}

static uint64_t frames_hash(const struct frames_key *k)
{
    uint64_t h = k->thread_serial + ((uint64_t)k->nframes << 32);
    for (int i = 0; i < k->nframes; i++) h = (h ^ (uint64_t)(uintptr_t)k->frames[i]) * 0x9E3779B97F4A7C15ULL;
    return hash_mix64(h);
}

uint64_t traces_key_hash(uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    struct trace_key k = {thread_serial, nframes, frames, NULL};
    return key_hash(&k);
}

struct trace_make_ctx {
    struct trace_table *table;
    const jvmtiFrameInfo *raw; /* NULL: the frames' own methods and locations */
    struct frame **resolved;
};

static void trace_number(void *p, uint32_t i) { ((struct trace *)p)->serial = SERIAL_TRACE_BASE + 1 + i; }

static struct cmap_node *trace_make(const void *key, void *ctx)
{
    const struct frames_key *k = key;
    struct trace_make_ctx *c = ctx;
    struct trace *t = calloc(1, sizeof *t + (size_t)k->nframes * sizeof(jvmtiFrameInfo));
    if (!t) return NULL;
    t->frames = c->resolved;
    t->thread_serial = k->thread_serial;
    t->nframes = (uint32_t)k->nframes;
    for (int i = 0; i < k->nframes; i++) /* a thread with no Java frames has no array at all */
        t->raw[i] = c->raw ? c->raw[i] : (jvmtiFrameInfo){k->frames[i]->method->id, k->frames[i]->location};
    /* whole before it is published: a dump walks the traces while others are added */
    if (registry_add_numbered(&c->table->all, t, trace_number) == UINT32_MAX) {
        free(t);
        return NULL;
    }
    c->resolved = NULL; /* the trace owns them now */
    return &t->node;
}

static struct cmap_node *raw_make(const void *key, void *ctx)
{
    const struct trace_key *k = key;
    const struct trace *t = ctx;
    /* A trace is never freed and its raw frames never change: they can be shared. */
    bool shared = traces_key_equals(t, k->thread_serial, k->frames, k->nframes);
    size_t copy = shared ? 0 : (size_t)k->nframes;
    struct trace_raw *r = malloc(sizeof *r + copy * sizeof(jvmtiFrameInfo));
    if (!r) return NULL;
    r->trace = ctx;
    r->thread_serial = k->thread_serial;
    r->nframes = (uint32_t)k->nframes;
    r->raw = shared ? t->raw : r->copy;
    if (copy) memcpy(r->copy, k->frames, copy * sizeof(jvmtiFrameInfo));
    return &r->node;
}

struct trace *traces_find(struct trace_table *t, uint64_t hash, uint32_t thread_serial, const jvmtiFrameInfo *frames,
                          int nframes)
{
    struct trace_key k = {thread_serial, nframes, frames, NULL};
    cmap_find(&t->by_raw, hash, &k, raw_eq);
    return k.found;
}

struct trace *traces_add(struct trace_table *t, uint64_t hash, uint32_t thread_serial, const jvmtiFrameInfo *frames,
                         int nframes, struct frame **resolved)
{
    struct trace_key k = {thread_serial, nframes, frames, NULL};
    struct frames_key fk = {thread_serial, nframes, resolved};
    struct trace_make_ctx c = {t, frames, resolved};
    struct trace *tr = (struct trace *)cmap_intern(&t->map, frames_hash(&fk), &fk, frames_eq, trace_make, &c, NULL);
    free(c.resolved); /* NULL unless the trace was there before */
    /* Traces are never freed: the one made or found is returned, not read back from the
     * raw key (another thread may have entered that first, for the same trace). */
    if (tr) cmap_intern(&t->by_raw, hash, &k, raw_eq, raw_make, tr, NULL);
    return tr;
}

struct dead_test {
    bool (*dead)(jmethodID id, void *ctx);
    void *ctx;
};

struct trace *traces_of_frames(struct trace_table *t, uint32_t thread_serial, struct frame *const *frames, int nframes)
{
    struct frames_key fk = {thread_serial, nframes, frames};
    uint64_t hash = frames_hash(&fk);
    struct trace *tr = (struct trace *)cmap_find(&t->map, hash, &fk, frames_eq); /* never freed */
    if (tr) return tr;
    struct frame **copy = calloc((size_t)(nframes ? nframes : 1), sizeof *copy);
    if (!copy) return NULL;
    if (nframes) memcpy(copy, frames, (size_t)nframes * sizeof *copy);
    struct trace_make_ctx c = {t, NULL, copy};
    tr = (struct trace *)cmap_intern(&t->map, hash, &fk, frames_eq, trace_make, &c, NULL);
    free(c.resolved); /* NULL unless another thread made it first */
    return tr;
}

static bool raw_is_dead(const struct cmap_node *n, void *ctx)
{
    const struct trace_raw *r = (const struct trace_raw *)n;
    const struct dead_test *d = ctx;
    for (uint32_t i = 0; i < r->nframes; i++)
        if (d->dead(r->raw[i].method, d->ctx)) return true;
    return false;
}

uint32_t traces_sweep(struct trace_table *t, bool (*dead)(jmethodID id, void *ctx), void *ctx)
{
    struct dead_test d = {dead, ctx};
    uint32_t count = 0;
    struct cmap_node *n = cmap_sweep(&t->by_raw, raw_is_dead, &d);
    while (n) {
        struct cmap_node *next = n->next;
        free(n);
        count++;
        n = next;
    }
    return count;
}

void traces_clear_cpu_samples(struct trace_table *t)
{
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) atomic_store(&traces_at(t, i)->cpu_samples, 0);
}

void traces_clear_counts(struct trace_table *t)
{
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct trace *tr = traces_at(t, i);
        atomic_store(&tr->cpu_samples, 0);
        atomic_store(&tr->calls, 0);
        atomic_store(&tr->cost_ns, 0);
    }
}

/* A trace and its frames as not yet written (output lock held). */
static void forget_trace(struct trace *tr)
{
    tr->written = false;
    for (uint32_t k = 0; k < tr->nframes; k++) tr->frames[k]->written = false;
}

void traces_forget_written(struct trace_table *t)
{
    forget_trace(&t->empty);
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) forget_trace(traces_at(t, i));
}
