/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/sites.h"

#include <stdlib.h>

#include "tables/classes.h"

struct site_key {
    struct trace *trace;
    struct class_info *cls;
    struct site_table *table;
};

void sites_init(struct site_table *t)
{
    cmap_init(&t->map);
    registry_init(&t->all);
}

static bool site_eq(const struct cmap_node *n, const void *key)
{
    const struct site *s = (const struct site *)n;
    const struct site_key *k = key;
    return s->trace == k->trace && s->cls == k->cls;
}

static void site_number(void *p, uint32_t i) { ((struct site *)p)->id = i + 1; }

static struct cmap_node *site_make(const void *key, void *ctx)
{
    const struct site_key *k = key;
    struct site *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->trace = k->trace;
    s->cls = k->cls;
    /* whole before it is published: a dump walks the sites while others are added */
    if (registry_add_numbered(&k->table->all, s, site_number) == UINT32_MAX) {
        free(s);
        return NULL;
    }
    return &s->node;
}

struct site *sites_of(struct site_table *t, struct trace *trace, struct class_info *cls)
{
    cls = classes_canonical(cls); /* every loader's class of a name: one site */
    struct site_key k = {trace, cls, t};
    uint64_t h = hash_mix64((uint64_t)(uintptr_t)trace * 31 + (uint64_t)(uintptr_t)cls);
    return (struct site *)cmap_intern(&t->map, h, &k, site_eq, site_make, NULL, NULL);
}

struct site *sites_by_id(struct site_table *t, uint32_t id)
{
    if (id == 0 || id > registry_count(&t->all)) return NULL;
    return registry_get(&t->all, id - 1);
}

uint32_t sites_count(struct site_table *t) { return registry_count(&t->all); }

void sites_show_counts(struct site_table *t, bool take)
{
    uint32_t n = sites_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct site *s = sites_by_id(t, i + 1);
        s->shown_objs = take ? atomic_exchange(&s->alloc_objs, 0) : atomic_load(&s->alloc_objs);
        s->shown_bytes = take ? atomic_exchange(&s->alloc_bytes, 0) : atomic_load(&s->alloc_bytes);
    }
}
