/* SPDX-License-Identifier: Apache-2.0 */
#include "writers/stack_profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small open-addressing index: entries are found by hash, told apart by `same` ---- */

typedef bool (*same_fn)(const struct stack_profile *p, uint32_t entry, const void *key);

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_bytes(const void *data, size_t n, uint64_t h)
{
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

/* The slot that holds the entry matching key, or the empty slot where it would go. */
static uint32_t *index_slot(const struct stack_profile *p, const struct sp_index *x, uint64_t h, const void *key,
                            same_fn same)
{
    size_t mask = x->cap - 1;
    for (size_t i = mix(h) & mask;; i = (i + 1) & mask) {
        uint32_t *s = &x->slot[i];
        if (!*s || same(p, *s - 1, key)) return s;
    }
}

/* Makes room for one more entry; `rehash` gives an existing entry's hash. */
static bool index_grow(struct stack_profile *p, struct sp_index *x,
                       uint64_t (*rehash)(const struct stack_profile *, uint32_t))
{
    if ((x->n + 1) * 2 <= x->cap) return true;
    size_t cap = x->cap ? x->cap * 2 : 1024;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return false;
    for (size_t i = 0; i < x->cap; i++) {
        if (!x->slot[i]) continue;
        size_t j = mix(rehash(p, x->slot[i] - 1)) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = x->slot[i];
    }
    free(x->slot);
    x->slot = slot;
    x->cap = cap;
    return true;
}

/* ---- strings ---- */

static uint64_t str_hash(const char *s) { return hash_bytes(s, strlen(s), 0xcbf29ce484222325ull); }

static uint64_t str_rehash(const struct stack_profile *p, uint32_t i) { return str_hash(sp_str(p, i)); }

static bool str_same(const struct stack_profile *p, uint32_t i, const void *key)
{
    return strcmp(sp_str(p, i), key) == 0;
}

uint32_t sp_string(struct stack_profile *p, const char *s)
{
    if (p->oom) return 0;
    if (!s) s = "";
    uint64_t h = str_hash(s);
    if (!index_grow(p, &p->str_index, str_rehash)) goto oom;
    uint32_t *slot = index_slot(p, &p->str_index, h, s, str_same);
    if (*slot) return *slot - 1;
    size_t len = strlen(s) + 1;
    if (!grow_array((void **)&p->str_at, &p->capstr, p->nstr + 1, sizeof *p->str_at)) goto oom;
    p->str_at[p->nstr] = (uint32_t)p->pool.len;
    buf_put(&p->pool, s, len);
    if (p->pool.oom || p->pool.len > UINT32_MAX) goto oom;
    *slot = (uint32_t)++p->nstr;
    p->str_index.n++;
    return (uint32_t)p->nstr - 1;
oom:
    p->oom = true;
    return 0;
}

/* ---- frames ---- */

static uint64_t frame_hash(const struct sp_frame *f) { return hash_bytes(f, sizeof *f, 0x84222325cbf29ce4ull); }

static uint64_t frame_rehash(const struct stack_profile *p, uint32_t i) { return frame_hash(&p->frames[i]); }

static bool frame_same(const struct stack_profile *p, uint32_t i, const void *key)
{
    return memcmp(&p->frames[i], key, sizeof p->frames[i]) == 0;
}

uint32_t sp_frame(struct stack_profile *p, const char *name, const char *file, int line, enum sp_kind kind)
{
    struct sp_frame f;
    memset(&f, 0, sizeof f); /* padding too: frames are hashed and compared as bytes */
    f.name = sp_string(p, name);
    f.file = file && *file ? sp_string(p, file) : 0;
    f.line = line > 0 ? line : 0;
    f.kind = (uint8_t)kind;
    if (p->oom || !index_grow(p, &p->frame_index, frame_rehash)) goto oom;
    uint32_t *slot = index_slot(p, &p->frame_index, frame_hash(&f), &f, frame_same);
    if (*slot) return *slot - 1;
    if (!grow_array((void **)&p->frames, &p->capframes, p->nframes + 1, sizeof *p->frames)) goto oom;
    p->frames[p->nframes] = f;
    *slot = (uint32_t)++p->nframes;
    p->frame_index.n++;
    return (uint32_t)p->nframes - 1;
oom:
    p->oom = true;
    return 0;
}

/* ---- stacks ---- */

struct stack_key {
    const uint32_t *frames;
    uint32_t n;
};

static uint64_t stack_hash(const uint32_t *frames, uint32_t n)
{
    return hash_bytes(frames, n * sizeof *frames, 0x9e3779b97f4a7c15ull ^ n);
}

static uint64_t stack_rehash(const struct stack_profile *p, uint32_t i)
{
    return stack_hash(p->frame_ix + p->stacks[i].first, p->stacks[i].n);
}

static bool stack_same(const struct stack_profile *p, uint32_t i, const void *key)
{
    const struct stack_key *k = key;
    const struct sp_stack *s = &p->stacks[i];
    return s->n == k->n && memcmp(p->frame_ix + s->first, k->frames, k->n * sizeof *k->frames) == 0;
}

void sp_add(struct stack_profile *p, const uint32_t *frames, uint32_t n, const int64_t *values)
{
    if (p->oom || !index_grow(p, &p->stack_index, stack_rehash)) goto oom;
    struct stack_key key = {frames, n};
    uint32_t *slot = index_slot(p, &p->stack_index, stack_hash(frames, n), &key, stack_same);
    if (!*slot) {
        if (!grow_array((void **)&p->stacks, &p->capstacks, p->nstacks + 1, sizeof *p->stacks) ||
            !grow_array((void **)&p->frame_ix, &p->capframe_ix, p->nframe_ix + n, sizeof *p->frame_ix))
            goto oom;
        struct sp_stack *s = &p->stacks[p->nstacks];
        memset(s, 0, sizeof *s);
        s->first = (uint32_t)p->nframe_ix;
        s->n = n;
        if (n) memcpy(p->frame_ix + p->nframe_ix, frames, n * sizeof *frames);
        p->nframe_ix += n;
        *slot = (uint32_t)++p->nstacks;
        p->stack_index.n++;
    }
    struct sp_stack *s = &p->stacks[*slot - 1];
    for (int t = 0; t < p->ntypes; t++) { /* held: a reader may hand in anything */
        int64_t v = values[t] < 0 ? 0 : values[t];
        if (v > INT64_MAX - p->total[t]) v = INT64_MAX - p->total[t];
        s->v[t] += v; /* s->v[t] <= total[t], so this fits too */
        p->total[t] += v;
    }
    return;
oom:
    p->oom = true;
}

/* ---- the rest ---- */

void sp_init(struct stack_profile *p)
{
    memset(p, 0, sizeof *p);
    buf_init(&p->pool);
    sp_string(p, ""); /* string 0: "none" in pprof's table too */
}

void sp_free(struct stack_profile *p)
{
    free(p->program);
    free(p->date);
    free(p->mode);
    free(p->note);
    buf_free(&p->pool);
    free(p->str_at);
    free(p->str_index.slot);
    free(p->frames);
    free(p->frame_index.slot);
    free(p->frame_ix);
    free(p->stacks);
    free(p->stack_index.slot);
    memset(p, 0, sizeof *p);
}

void sp_set(struct stack_profile *p, char **field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    free(*field);
    *field = s;
    if (!s) p->oom = true;
}

int sp_add_type(struct stack_profile *p, const char *type, const char *unit)
{
    if (p->ntypes >= SP_MAX_TYPES) return -1;
    p->types[p->ntypes] = (struct sp_type){type, unit};
    return p->ntypes++;
}

int64_t sp_total(const struct stack_profile *p, int type) { return type < 0 || type >= p->ntypes ? 0 : p->total[type]; }

int sp_type_named(const struct stack_profile *p, const char *name)
{
    for (int t = 0; t < p->ntypes; t++)
        if (strcmp(p->types[t].type, name) == 0) return t;
    return -1;
}

void sp_label(struct stack_profile *p, const char *key, const char *value)
{
    if (p->nlabels >= SP_MAX_LABELS) return;
    p->label_key[p->nlabels] = sp_string(p, key);
    p->label_value[p->nlabels] = sp_string(p, value);
    p->nlabels++;
}
