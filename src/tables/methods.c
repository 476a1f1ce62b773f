/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/methods.h"

#include <stdlib.h>
#include <string.h>

#include "tables/classes.h"
#include "tables/ids.h"

/* One jmethodID of a canonical method, and the class entry it was defined under. */
struct method_alias {
    struct cmap_node node;
    jmethodID id;
    struct method_info *method;
    struct class_info *defined_in;
    uint32_t generation; /* defined_in's then: stale once it moves on */
};

/* A lookup by jmethodID; the method is copied out under the stripe's lock, as the
 * sweeper may free the alias as soon as the lock is let go. */
struct alias_key {
    jmethodID id;
    struct method_info *found;
};

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids)
{
    cmap_init(&t->map);
    cmap_init(&t->aliases);
    t->classes = classes;
    t->ids = ids;
    memset(&t->unknown, 0, sizeof t->unknown);
    t->unknown.name = "<Unknown Method>";
    t->unknown.signature = "()V";
    t->unknown.cls = &classes->unknown;
}

static uint64_t id_hash(jmethodID id) { return hash_mix64((uint64_t)(uintptr_t)id); }

static bool alias_eq(const struct cmap_node *n, const void *key)
{
    const struct method_alias *a = (const struct method_alias *)n;
    struct alias_key *k = (struct alias_key *)key;
    if (a->id != k->id) return false;
    k->found = a->method;
    return true;
}

struct method_info *methods_find(struct method_table *t, jmethodID id)
{
    struct alias_key k = {id, NULL};
    cmap_find(&t->aliases, id_hash(id), &k, alias_eq);
    return k.found;
}

static bool same_lines(const struct method_info *a, const struct method_info *b)
{
    if (a->nlines != b->nlines) return false;
    for (int i = 0; i < a->nlines; i++)
        if (a->lines[i].start_location != b->lines[i].start_location ||
            a->lines[i].line_number != b->lines[i].line_number)
            return false;
    return true;
}

static bool method_eq(const struct cmap_node *n, const void *key)
{
    const struct method_info *a = (const struct method_info *)n, *b = key;
    return a->cls == b->cls && a->native == b->native && strcmp(a->name, b->name) == 0 &&
        strcmp(a->signature, b->signature) == 0 && same_lines(a, b);
}

static uint64_t method_hash(const struct method_info *m)
{
    uint64_t h = hash_bytes(m->name, strlen(m->name)) ^ hash_bytes(m->signature, strlen(m->signature)) * 31;
    h ^= (uint64_t)(uintptr_t)m->cls * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < m->nlines; i++) h = (h ^ (uint64_t)m->lines[i].line_number) * 0x100000001b3ULL;
    return hash_mix64(h ^ (uint64_t)m->native);
}

static struct cmap_node *adopt(const void *key, void *ctx) { return ctx; }

struct alias_make {
    struct method_info *method;
    struct class_info *defined_in;
    uint32_t generation;
};

static struct cmap_node *alias_make(const void *key, void *ctx)
{
    const struct alias_make *c = ctx;
    struct method_alias *a = malloc(sizeof *a);
    if (!a) return NULL;
    a->id = ((const struct alias_key *)key)->id;
    a->method = c->method;
    a->defined_in = c->defined_in;
    a->generation = c->generation;
    return &a->node;
}

static void free_method(struct method_info *m)
{
    free(m->name);
    free(m->signature);
    free(m->lines);
    free(m);
}

struct method_info *methods_add(struct method_table *t, struct method_info *m, struct class_info *defined_in,
                                uint32_t generation)
{
    jmethodID id = m->id;
    struct cmap_node *n = cmap_intern(&t->map, method_hash(m), m, method_eq, adopt, m, NULL);
    if (n != &m->node) free_method(m); /* an equal one was first, or no memory */
    if (!n || !defined_in) return (struct method_info *)n;
    /* The canonical method is never freed, so it is returned, not read from the alias
     * (which another thread may have made first, for the same method). */
    struct alias_key k = {id, NULL};
    struct alias_make c = {(struct method_info *)n, defined_in, generation};
    cmap_intern(&t->aliases, id_hash(id), &k, alias_eq, alias_make, &c, NULL);
    return (struct method_info *)n;
}

static bool is_stale(const struct cmap_node *n, void *ctx)
{
    const struct method_alias *a = (const struct method_alias *)n;
    return a->defined_in && atomic_load(&a->defined_in->generation) != a->generation;
}

uint32_t methods_sweep(struct method_table *t, void (*dead)(jmethodID id, void *ctx), void *ctx)
{
    uint32_t count = 0;
    struct cmap_node *n = cmap_sweep(&t->aliases, is_stale, NULL);
    while (n) {
        struct cmap_node *next = n->next;
        if (dead) dead(((struct method_alias *)n)->id, ctx);
        free(n);
        count++;
        n = next;
    }
    return count;
}

int methods_line(const struct method_info *m, jlocation location)
{
    if (m->native) return LINE_NATIVE;
    if (location < 0) return LINE_UNKNOWN;
    if (m->nlines == 0) return LINE_NONE;
    int line = m->lines[0].line_number;
    for (int i = 0; i < m->nlines && m->lines[i].start_location <= location; i++) line = m->lines[i].line_number;
    return line;
}
