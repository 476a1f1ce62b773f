/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/alloc_sites.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_SIZE (1u << ALLOC_SITES_PAGE_BITS)

void alloc_sites_init(struct alloc_sites *t)
{
    memset(t, 0, sizeof *t);
    cmap_init(&t->traces);
    cmap_init(&t->instances);
    cmap_init(&t->groups);
    registry_init(&t->groups_all);
}

long alloc_sites_number(struct alloc_sites *t, uint32_t n)
{
    uint32_t first = atomic_fetch_add(&t->next, n);
    if ((uint64_t)first + n > (uint64_t)ALLOC_SITES_PAGES * PAGE_SIZE) return -1;
    return first;
}

uint32_t alloc_sites_count(struct alloc_sites *t)
{
    uint32_t n = atomic_load(&t->next);
    return n < (uint32_t)ALLOC_SITES_PAGES * PAGE_SIZE ? n : (uint32_t)ALLOC_SITES_PAGES * PAGE_SIZE;
}

/* The page of a number, made on first need (two threads may race: one page wins). */
typedef _Atomic(struct alloc_site *) site_ptr;

static site_ptr *page_of(struct alloc_sites *t, uint32_t number, bool make)
{
    site_ptr *_Atomic *slot = &t->pages[number >> ALLOC_SITES_PAGE_BITS];
    site_ptr *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p || !make) return p;
    site_ptr *fresh = calloc(PAGE_SIZE, sizeof *fresh);
    if (!fresh) return NULL;
    site_ptr *expected = NULL;
    if (atomic_compare_exchange_strong(slot, &expected, fresh)) return fresh;
    free(fresh);
    return expected;
}

bool alloc_sites_add(struct alloc_sites *t, const struct alloc_site *s)
{
    if (s->number >= (uint32_t)ALLOC_SITES_PAGES * PAGE_SIZE) return false;
    site_ptr *page = page_of(t, s->number, true);
    struct alloc_site *c = page ? malloc(sizeof *c) : NULL;
    if (!c) return false;
    memcpy(c, s, sizeof *c);
    atomic_init(&c->cls, atomic_load(&s->cls));
    atomic_init(&c->traces, NULL);
    atomic_init(&c->ntraces, 0);
    c->given_objs = c->given_bytes = 0;
    if (!(c->signature = strdup(s->signature ? s->signature : ""))) {
        free(c);
        return false;
    }
    atomic_store_explicit(&page[s->number & (PAGE_SIZE - 1)], c, memory_order_release);
    return true;
}

struct alloc_site *alloc_sites_at(struct alloc_sites *t, uint32_t number)
{
    if (number >= (uint32_t)ALLOC_SITES_PAGES * PAGE_SIZE) return NULL;
    site_ptr *page = page_of(t, number, false);
    return page ? atomic_load_explicit(&page[number & (PAGE_SIZE - 1)], memory_order_acquire) : NULL;
}

struct instance_key {
    struct class_info *cls;
    const struct alloc_site *call;
    const char *signature;
    struct alloc_sites *t;
};

static bool instance_eq(const struct cmap_node *n, const void *key)
{
    const struct instance_site *e = (const struct instance_site *)n;
    const struct instance_key *k = key;
    return e->cls == k->cls && e->call == k->call;
}

/* Numbers and publishes the site (under the stripe's lock: one site per class and call),
 * at the call's place in the code when there is one. */
static struct cmap_node *instance_make(const void *key, void *ctx)
{
    const struct instance_key *k = key;
    struct instance_site *e = calloc(1, sizeof *e);
    long number = e ? alloc_sites_number(k->t, 1) : -1;
    struct alloc_site s = {.number = (uint32_t)number,
                           .kind = k->signature && k->signature[0] == '[' ? ASITE_ARRAY : ASITE_NEW,
                           .made = true,
                           .cnum = k->call ? k->call->cnum : 0,
                           .mnum = k->call ? k->call->mnum : 0,
                           .bci = k->call ? k->call->bci : ASITE_NO_BCI,
                           .new_bci = k->call ? k->call->new_bci : ASITE_NO_BCI,
                           .signature = (char *)k->signature};
    atomic_init(&s.cls, k->cls);
    if (number < 0 || !alloc_sites_add(k->t, &s) || !(e->site = alloc_sites_at(k->t, (uint32_t)number))) {
        free(e);
        return NULL;
    }
    e->cls = k->cls;
    e->call = k->call;
    return &e->node;
}

struct alloc_site *alloc_sites_made(struct alloc_sites *t, struct class_info *cls, const char *signature,
                                    const struct alloc_site *call)
{
    struct instance_key k = {cls, call, signature, t};
    uint64_t hash = hash_mix64((uint64_t)(uintptr_t)cls ^ ((uint64_t)(uintptr_t)call << 1));
    struct instance_site *e =
        (struct instance_site *)cmap_intern(&t->instances, hash, &k, instance_eq, instance_make, NULL, NULL);
    return e ? e->site : NULL;
}

struct trace_key {
    const struct alloc_site *site;
    struct trace *trace;
};

static bool trace_eq(const struct cmap_node *n, const void *key)
{
    const struct site_trace *e = (const struct site_trace *)n;
    const struct trace_key *k = key;
    return e->site == k->site && e->trace == k->trace;
}

static struct cmap_node *trace_make(const void *key, void *ctx)
{
    const struct trace_key *k = key;
    struct site_trace *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->site = k->site;
    e->trace = k->trace;
    return &e->node;
}

uint32_t alloc_sites_sample(struct alloc_sites *t, struct alloc_site *s, struct trace *tr, uint64_t objs,
                            uint64_t bytes)
{
    struct trace_key k = {s, tr};
    uint64_t hash = hash_mix64((uint64_t)(uintptr_t)s * 31 + (uint64_t)(uintptr_t)tr);
    bool made = false;
    struct site_trace *e = (struct site_trace *)cmap_intern(&t->traces, hash, &k, trace_eq, trace_make, NULL, &made);
    if (!e) return 0;
    atomic_fetch_add_explicit(&e->objs, objs, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->bytes, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->samples, 1, memory_order_relaxed);
    if (!made) return atomic_load_explicit(&s->ntraces, memory_order_relaxed);
    /* new: onto the site's list, which dumps walk (one maker per entry: no one else
     * pushes this entry; other new traces of the site may be pushed meanwhile) */
    struct site_trace *head = atomic_load_explicit(&s->traces, memory_order_acquire);
    do e->next = head;
    while (!atomic_compare_exchange_weak_explicit(&s->traces, &head, e, memory_order_acq_rel, memory_order_acquire));
    return atomic_fetch_add_explicit(&s->ntraces, 1, memory_order_relaxed) + 1;
}

void alloc_sites_split(uint64_t n, const uint64_t *w, uint32_t k, uint64_t *out)
{
    if (k == 0) return;
    long double total = 0;
    for (uint32_t i = 0; i < k; i++) total += (long double)w[i];
    uint64_t given = 0;
    long double *rest = malloc(k * sizeof *rest);
    for (uint32_t i = 0; i < k; i++) {
        long double share = total > 0 ? (long double)n * (long double)w[i] / total : (long double)n / k;
        out[i] = (uint64_t)share;
        if (rest) rest[i] = share - (long double)out[i];
        given += out[i];
    }
    /* The units left (fewer than k) go to the largest remainders. */
    while (given < n) {
        uint32_t best = 0;
        for (uint32_t i = 1; rest && i < k; i++)
            if (rest[i] > rest[best]) best = i;
        out[best]++;
        if (rest) rest[best] = -1;
        given++;
    }
    free(rest);
}

struct group_key {
    const struct frame *top;
    const struct class_info *cls;
    struct alloc_sites *t;
};

static bool group_eq(const struct cmap_node *n, const void *key)
{
    const struct live_group *g = (const struct live_group *)n;
    const struct group_key *k = key;
    return g->top == k->top && g->cls == k->cls;
}

static void group_number(void *p, uint32_t i) { ((struct live_group *)p)->id = i + 1; }

static struct cmap_node *group_make(const void *key, void *ctx)
{
    const struct group_key *k = key;
    struct live_group *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->top = k->top;
    g->cls = k->cls;
    if (registry_add_numbered(&k->t->groups_all, g, group_number) == UINT32_MAX) {
        free(g);
        return NULL;
    }
    return &g->node;
}

static uint64_t group_hash(const struct frame *top, const struct class_info *cls)
{
    return hash_mix64((uint64_t)(uintptr_t)top * 31 + (uint64_t)(uintptr_t)cls);
}

struct live_group *alloc_sites_group(struct alloc_sites *t, const struct frame *top, const struct class_info *cls)
{
    struct group_key k = {top, cls, t};
    return (struct live_group *)cmap_intern(&t->groups, group_hash(top, cls), &k, group_eq, group_make, NULL, NULL);
}

struct live_group *alloc_sites_group_find(struct alloc_sites *t, const struct frame *top, const struct class_info *cls)
{
    struct group_key k = {top, cls, t};
    return (struct live_group *)cmap_find(&t->groups, group_hash(top, cls), &k, group_eq);
}

struct live_group *alloc_sites_group_by_id(struct alloc_sites *t, uint32_t id)
{
    if (id == 0 || id > registry_count(&t->groups_all)) return NULL;
    return registry_get(&t->groups_all, id - 1);
}

uint32_t alloc_sites_group_count(struct alloc_sites *t) { return registry_count(&t->groups_all); }
