#include "tables/traces.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"

struct trace_key {
    uint32_t thread_serial;
    int nframes;
    const jvmtiFrameInfo *frames;
};

void traces_init(struct trace_table *t, struct method_table *methods, struct frame_table *frames)
{
    cmap_init(&t->map);
    registry_init(&t->all);
    t->methods = methods;
    t->frames = frames;
    memset(&t->empty, 0, sizeof t->empty);
    t->empty.serial = SERIAL_TRACE_BASE;
}

uint32_t traces_count(struct trace_table *t) { return registry_count(&t->all); }
struct trace *traces_at(struct trace_table *t, uint32_t i) { return registry_get(&t->all, i); }

/* Computed for every allocation under exact heap=sites: one multiply per frame, one
 * full mix at the end. */
static uint64_t key_hash(const struct trace_key *k)
{
    uint64_t h = k->thread_serial + ((uint64_t)k->nframes << 32);
    for (int i = 0; i < k->nframes; i++) {
        h = (h ^ (uint64_t)(uintptr_t)k->frames[i].method) * 0x9E3779B97F4A7C15ULL;
        h = (h ^ (uint64_t)k->frames[i].location) * 0xC2B2AE3D27D4EB4FULL;
    }
    return hash_mix64(h);
}

bool traces_key_equals(const struct trace *t, uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    if (t->thread_serial != thread_serial || t->nframes != (uint32_t)nframes) return false;
    for (int i = 0; i < nframes; i++)
        if (t->raw[i].method != frames[i].method || t->raw[i].location != frames[i].location) return false;
    return true;
}

static bool trace_eq(const struct cmap_node *n, const void *key)
{
    const struct trace_key *k = key;
    return traces_key_equals((const struct trace *)n, k->thread_serial, k->frames, k->nframes);
}

uint64_t traces_key_hash(uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    struct trace_key k = {thread_serial, nframes, frames};
    return key_hash(&k);
}

struct trace_make_ctx {
    struct trace_table *table;
    struct frame **resolved;
};

static void trace_number(void *p, uint32_t i) { ((struct trace *)p)->serial = SERIAL_TRACE_BASE + 1 + i; }

static struct cmap_node *trace_make(const void *key, void *ctx)
{
    const struct trace_key *k = key;
    struct trace_make_ctx *c = ctx;
    struct trace *t = calloc(1, sizeof *t + (size_t)k->nframes * sizeof(jvmtiFrameInfo));
    if (!t) return NULL;
    t->frames = c->resolved;
    t->thread_serial = k->thread_serial;
    t->nframes = (uint32_t)k->nframes;
    if (k->nframes)                /* a thread with no Java frames has no array at all */
        memcpy(t->raw, k->frames, (size_t)k->nframes * sizeof(jvmtiFrameInfo));
    /* whole before it is published: a dump walks the traces while others are added */
    if (registry_add_numbered(&c->table->all, t, trace_number) == UINT32_MAX) {
        free(t);
        return NULL;
    }
    c->resolved = NULL;            /* the trace owns them now */
    return &t->node;
}

struct trace *traces_find(struct trace_table *t, uint64_t hash, uint32_t thread_serial,
                          const jvmtiFrameInfo *frames, int nframes)
{
    struct trace_key k = {thread_serial, nframes, frames};
    return (struct trace *)cmap_find(&t->map, hash, &k, trace_eq);
}

struct trace *traces_add(struct trace_table *t, uint64_t hash, uint32_t thread_serial,
                         const jvmtiFrameInfo *frames, int nframes, struct frame **resolved)
{
    struct trace_key k = {thread_serial, nframes, frames};
    struct trace_make_ctx c = {t, resolved};
    struct cmap_node *n = cmap_intern(&t->map, hash, &k, trace_eq, trace_make, &c, NULL);
    free(c.resolved);              /* NULL unless another thread made it first */
    return (struct trace *)n;
}

void traces_clear_cpu_samples(struct trace_table *t)
{
    uint32_t n = traces_count(t);
    for (uint32_t i = 0; i < n; i++) atomic_store(&traces_at(t, i)->cpu_samples, 0);
}
