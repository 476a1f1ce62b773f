/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/classes.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"

void classes_init(struct class_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->naming, NULL);
    registry_init(&t->all);
    cmap_init(&t->by_signature);
    t->unknown.serial = SERIAL_CLASS_BASE; /* never written as a LOAD CLASS */
    t->unknown.name = "<Unknown Class>";
    t->unknown.signature = "L<Unknown Class>;";
    t->unknown.canonical = &t->unknown;
}

uint32_t classes_count(struct class_table *t) { return registry_count(&t->all); }
struct class_info *classes_at(struct class_table *t, uint32_t i) { return registry_get(&t->all, i); }

static void class_number(void *p, uint32_t i) { ((struct class_info *)p)->serial = SERIAL_CLASS_BASE + 1 + i; }

static bool signature_eq(const struct cmap_node *n, const void *key)
{
    return strcmp(((const struct class_info *)((const struct by_signature_node *)n)->canonical)->signature, key) == 0;
}

static struct cmap_node *signature_make(const void *key, void *ctx)
{
    struct by_signature_node *n = calloc(1, sizeof *n);
    if (n) n->canonical = ctx;
    return n ? &n->node : NULL;
}

static uint64_t signature_hash(const char *sig) { return hash_bytes(sig, strlen(sig)); }

/* The canonical entry of c's signature: c, if it is the first (naming lock not needed:
 * the map and the push are safe by themselves). */
static struct class_info *join_signature(struct class_table *t, struct class_info *c)
{
    struct by_signature_node *n = (struct by_signature_node *)cmap_intern(
        &t->by_signature, signature_hash(c->signature), c->signature, signature_eq, signature_make, c, NULL);
    if (!n) return c; /* out of memory: a name of its own */
    struct class_info *first = n->canonical;
    if (first != c) {
        struct class_info *next = atomic_load(&first->next_same);
        do c->next_same = next;
        while (!atomic_compare_exchange_weak(&first->next_same, &next, c));
    }
    return first;
}

/* Whole before it is published: a dump walks the classes while others load. */
int classes_add(struct class_table *t, struct class_info *c, struct ids *ids)
{
    c->object_id = ids_new_object(ids);
    c->canonical = c->signature ? join_signature(t, c) : c;
    return registry_add_numbered(&t->all, c, class_number) == UINT32_MAX ? -1 : 0;
}

static bool same_source(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static struct by_signature_node *signature_node(struct class_table *t, const char *signature)
{
    return (struct by_signature_node *)cmap_find(&t->by_signature, signature_hash(signature), signature,
                                                 signature_eq); /* never taken out */
}

struct class_info *classes_by_signature(struct class_table *t, const char *signature)
{
    struct by_signature_node *n = signature_node(t, signature);
    return n ? n->canonical : NULL;
}

struct class_info *classes_reuse(struct class_table *t, const char *signature, const char *source_file)
{
    struct by_signature_node *n = signature_node(t, signature);
    struct class_info **p = n ? &n->vacant : NULL;
    for (struct class_info *c = p ? *p : NULL; c; p = &c->next_vacant, c = *p) {
        if (!same_source(c->source_file, source_file)) continue;
        *p = c->next_vacant;
        c->next_vacant = NULL;
        c->vacant = false;
        atomic_store(&c->instance_size, 0);
        atomic_store(&c->clone_override, 0);
        return c;
    }
    return NULL;
}

jweak classes_vacate(struct class_table *t, struct class_info *c)
{
    struct by_signature_node *n = c->signature ? signature_node(t, c->signature) : NULL;
    c->vacant = true;
    atomic_fetch_add(&c->generation, 1);
    if (n) { /* else never taken again: memory, not a wrong answer */
        c->next_vacant = n->vacant;
        n->vacant = c;
    }
    return atomic_exchange(&c->mirror, NULL);
}

const char *classes_most_entries(struct class_table *t, uint32_t *most, uint32_t *vacant)
{
    const char *name = NULL;
    *most = *vacant = 0;
    for (uint32_t i = 0, n = classes_count(t); i < n; i++) {
        struct class_info *c = classes_at(t, i);
        if (!c) continue;
        *vacant += c->vacant;
        if (c->canonical != c) continue;
        uint32_t k = 0;
        for (struct class_info *e = c; e; e = atomic_load(&e->next_same)) k++;
        if (k > *most) {
            *most = k;
            name = c->name;
        }
    }
    return name;
}
