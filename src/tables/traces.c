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
    bool hold;           /* the finder keeps the trace (see claim) */
    struct trace *found; /* by_raw: copied out under the stripe's lock */
};

/* A raw key of a trace. The sweeper frees it once its frames' class is unloaded (or its
 * trace is forgotten), so it is read only under its stripe's lock. Its frames are the
 * trace's own when the trace was first entered by them (nearly always: at depth=64 a copy
 * would cost 1 KB a trace; raw is then the trace's, NULL where its frames say them), else
 * its copy (a class defined again). */
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
    bool hold;
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
    atomic_init(&t->empty.hold, TRACE_HELD);
    pthread_mutex_init(&t->sampling, NULL);
    atomic_init(&t->window, 0);
    atomic_init(&t->forgotten, 0);
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

/* Whether resolved frames say the raw ones: each its method's first jmethodID, at its
 * location. */
static bool frames_say(struct frame *const *resolved, const jvmtiFrameInfo *raw, int n)
{
    for (int i = 0; i < n; i++)
        if (resolved[i]->method->id != raw[i].method || resolved[i]->location != raw[i].location) return false;
    return true;
}

/* Whether n raw frames are `raw`, or where that is NULL, what the resolved frames say. */
static bool raw_is(const jvmtiFrameInfo *raw, struct frame *const *resolved, const jvmtiFrameInfo *frames, int n)
{
    return raw ? same_frames(raw, frames, n) : frames_say(resolved, frames, n);
}

bool traces_key_equals(const struct trace *t, uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    return t->thread_serial == thread_serial && t->nframes == (uint32_t)nframes &&
        raw_is(t->raw, t->frames, frames, nframes);
}

/*
 * A trace found may be handed out: not one forgotten (its raw keys may outlive it for
 * the length of a sweep), and held for good when the finder keeps it. The compare-and-
 * swap decides against traces_forget_idle, which forgets a trace only from
 * TRACE_SAMPLES_ONLY: a trace is either held or forgotten, never both.
 */
static bool claim(struct trace *tr, bool hold)
{
    uint8_t h = atomic_load_explicit(&tr->hold, memory_order_acquire);
    while (h != TRACE_HELD) {
        if (h == TRACE_FORGOTTEN) return false;
        if (!hold) return true;
        if (atomic_compare_exchange_weak(&tr->hold, &h, TRACE_HELD)) return true;
    }
    return true;
}

static bool raw_eq(const struct cmap_node *n, const void *key)
{
    const struct trace_raw *r = (const struct trace_raw *)n;
    struct trace_key *k = (struct trace_key *)key;
    if (r->thread_serial != k->thread_serial || r->nframes != (uint32_t)k->nframes ||
        !raw_is(r->raw, r->trace->frames, k->frames, k->nframes) || !claim(r->trace, k->hold))
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
    return claim((struct trace *)t, k->hold);
}

static uint64_t frames_hash(const struct frames_key *k)
{
    uint64_t h = k->thread_serial + ((uint64_t)k->nframes << 32);
    for (int i = 0; i < k->nframes; i++) h = (h ^ (uint64_t)(uintptr_t)k->frames[i]) * 0x9E3779B97F4A7C15ULL;
    return hash_mix64(h);
}

uint64_t traces_key_hash(uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    struct trace_key k = {thread_serial, nframes, frames, true, NULL};
    return key_hash(&k);
}

struct trace_make_ctx {
    struct trace_table *table;
    const jvmtiFrameInfo *raw; /* NULL: the frames' own methods and locations */
};

static void trace_number(void *p, uint32_t i) { ((struct trace *)p)->serial = SERIAL_TRACE_BASE + 1 + i; }

static struct cmap_node *trace_make(const void *key, void *ctx)
{
    const struct frames_key *k = key;
    const struct trace_make_ctx *c = ctx;
    size_t n = (size_t)k->nframes;
    bool copy_raw = c->raw && !frames_say(k->frames, c->raw, k->nframes);
    struct trace *t = calloc(1, sizeof *t + n * sizeof(struct frame *) + (copy_raw ? n * sizeof(jvmtiFrameInfo) : 0));
    if (!t) return NULL;
    t->frames = t->frame_at;
    if (n) memcpy(t->frame_at, k->frames, n * sizeof(struct frame *));
    if (copy_raw) {
        jvmtiFrameInfo *raw = (jvmtiFrameInfo *)(t->frame_at + n);
        memcpy(raw, c->raw, n * sizeof *raw);
        t->raw = raw;
    }
    t->thread_serial = k->thread_serial;
    t->nframes = (uint32_t)n;
    atomic_init(&t->hold, k->hold ? TRACE_HELD : TRACE_SAMPLES_ONLY);
    atomic_init(&t->window, atomic_load_explicit(&c->table->window, memory_order_relaxed));
    /* whole before it is published: a dump walks the traces while others are added */
    if (registry_add_numbered(&c->table->all, t, trace_number) == UINT32_MAX) {
        free(t);
        return NULL;
    }
    return &t->node;
}

static struct cmap_node *raw_make(const void *key, void *ctx)
{
    const struct trace_key *k = key;
    const struct trace *t = ctx;
    /* A trace outlives its raw keys and its raw frames never change: they can be shared. */
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
                          int nframes, bool hold)
{
    struct trace_key k = {thread_serial, nframes, frames, hold, NULL};
    cmap_find(&t->by_raw, hash, &k, raw_eq);
    return k.found;
}

struct trace *traces_add(struct trace_table *t, uint64_t hash, uint32_t thread_serial, const jvmtiFrameInfo *frames,
                         int nframes, struct frame **resolved, bool hold)
{
    struct trace_key k = {thread_serial, nframes, frames, hold, NULL};
    struct frames_key fk = {thread_serial, nframes, resolved, hold};
    struct trace_make_ctx c = {t, frames};
    struct trace *tr = (struct trace *)cmap_intern(&t->map, frames_hash(&fk), &fk, frames_eq, trace_make, &c, NULL);
    free(resolved); /* copied into the trace */
    /* The one made or found is returned, not read back from the raw key (another thread
     * may have entered that first, for the same trace). Held, or the sampler's until its
     * traces_sampling_end, it cannot be forgotten meanwhile. */
    if (tr) cmap_intern(&t->by_raw, hash, &k, raw_eq, raw_make, tr, NULL);
    return tr;
}

struct dead_test {
    bool (*dead)(jmethodID id, void *ctx);
    void *ctx;
};

struct trace *traces_of_frames(struct trace_table *t, uint32_t thread_serial, struct frame *const *frames, int nframes)
{
    struct frames_key fk = {thread_serial, nframes, frames, true};
    uint64_t hash = frames_hash(&fk);
    struct trace *tr = (struct trace *)cmap_find(&t->map, hash, &fk, frames_eq); /* held now */
    if (tr) return tr;
    struct trace_make_ctx c = {t, NULL};
    return (struct trace *)cmap_intern(&t->map, hash, &fk, frames_eq, trace_make, &c, NULL);
}

static bool raw_is_dead(const struct cmap_node *n, void *ctx)
{
    const struct trace_raw *r = (const struct trace_raw *)n;
    const struct dead_test *d = ctx;
    for (uint32_t i = 0; i < r->nframes; i++)
        if (d->dead(r->raw ? r->raw[i].method : r->trace->frames[i]->method->id, d->ctx)) return true;
    return false;
}

/* Frees a chain of swept raw keys (no reader holds one: they are read under their
 * stripe's lock) and says how many. */
static uint32_t free_raw_keys(struct cmap_node *n)
{
    uint32_t count = 0;
    while (n) {
        struct cmap_node *next = n->next;
        free(n);
        count++;
        n = next;
    }
    return count;
}

uint32_t traces_sweep(struct trace_table *t, bool (*dead)(jmethodID id, void *ctx), void *ctx)
{
    struct dead_test d = {dead, ctx};
    return free_raw_keys(cmap_sweep(&t->by_raw, raw_is_dead, &d));
}

/* ---- forgetting a rolling profile's idle traces ---- */

struct idle_test {
    uint32_t window; /* the one that ended */
    uint32_t idle;
};

static bool counts_nothing(struct trace *tr)
{
    return !atomic_load(&tr->cpu_samples) && !atomic_load(&tr->calls) && !atomic_load(&tr->cost_ns);
}

/* Under its stripe's lock in the resolved map: lookups there (frames_eq) wait, and
 * those through a raw key decide by claim's compare-and-swap. */
static bool forget_if_idle(const struct cmap_node *n, void *ctx)
{
    struct trace *tr = (struct trace *)n;
    const struct idle_test *it = ctx;
    uint8_t h = TRACE_SAMPLES_ONLY;
    return it->window - atomic_load_explicit(&tr->window, memory_order_relaxed) >= it->idle && counts_nothing(tr) &&
        atomic_compare_exchange_strong(&tr->hold, &h, TRACE_FORGOTTEN);
}

static bool raw_of_forgotten(const struct cmap_node *n, void *ctx)
{
    (void)ctx;
    return atomic_load(&((const struct trace_raw *)n)->trace->hold) == TRACE_FORGOTTEN;
}

/*
 * Out of the resolved map first (from then on claim refuses them), then their raw keys,
 * then freed: the samplers are kept out by `sampling`, walks of the registry by it or
 * by the report's locks, and no other source has one (it would be held).
 */
uint32_t traces_forget_idle(struct trace_table *t, uint32_t idle)
{
    pthread_mutex_lock(&t->sampling);
    struct idle_test it = {atomic_fetch_add(&t->window, 1), idle ? idle : 1};
    struct cmap_node *gone = cmap_sweep(&t->map, forget_if_idle, &it);
    free_raw_keys(cmap_sweep(&t->by_raw, raw_of_forgotten, NULL));
    uint32_t count = 0;
    while (gone) {
        struct trace *tr = (struct trace *)gone;
        gone = gone->next;
        registry_clear(&t->all, tr->serial - SERIAL_TRACE_BASE - 1);
        free(tr);
        count++;
    }
    atomic_fetch_add(&t->forgotten, count);
    pthread_mutex_unlock(&t->sampling);
    return count;
}

/* ---- walks over every trace ---- */

void traces_clear_cpu_samples(struct trace_table *t)
{
    pthread_mutex_lock(&t->sampling);
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct trace *tr = traces_at(t, i);
        if (tr) atomic_store(&tr->cpu_samples, 0);
    }
    pthread_mutex_unlock(&t->sampling);
}

void traces_clear_counts(struct trace_table *t)
{
    pthread_mutex_lock(&t->sampling);
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct trace *tr = traces_at(t, i);
        if (!tr) continue;
        atomic_store(&tr->cpu_samples, 0);
        atomic_store(&tr->calls, 0);
        atomic_store(&tr->cost_ns, 0);
    }
    pthread_mutex_unlock(&t->sampling);
}

/* A trace and its frames as not yet written (output lock held). */
static void forget_trace(struct trace *tr)
{
    tr->written = false;
    for (uint32_t k = 0; k < tr->nframes; k++) tr->frames[k]->written = false;
}

void traces_forget_written(struct trace_table *t)
{
    pthread_mutex_lock(&t->sampling);
    forget_trace(&t->empty);
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct trace *tr = traces_at(t, i);
        if (tr) forget_trace(tr);
    }
    pthread_mutex_unlock(&t->sampling);
}
