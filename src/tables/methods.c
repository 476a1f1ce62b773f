#include "tables/methods.h"

#include <stdlib.h>

#include "tables/ids.h"

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids)
{
    cmap_init(&t->map);
    t->classes = classes;
    t->ids = ids;
}

static bool method_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct method_info *)n)->id == *(const jmethodID *)key;
}

static uint64_t method_hash(jmethodID id) { return hash_mix64((uint64_t)(uintptr_t)id); }

struct method_info *methods_find(struct method_table *t, jmethodID id)
{
    return (struct method_info *)cmap_find(&t->map, method_hash(id), &id, method_eq);
}

static struct cmap_node *adopt(const void *key, void *ctx) { return ctx; }

struct method_info *methods_add(struct method_table *t, struct method_info *m)
{
    struct cmap_node *n = cmap_intern(&t->map, method_hash(m->id), &m->id, method_eq, adopt, m, NULL);
    if (n != &m->node) {       /* another thread was first, or no memory */
        free(m->name);
        free(m->signature);
        free(m->lines);
        free(m);
    }
    return (struct method_info *)n;
}

int methods_line(const struct method_info *m, jlocation location)
{
    if (m->native) return LINE_NATIVE;
    if (location < 0) return LINE_UNKNOWN;
    if (m->nlines == 0) return LINE_NONE;
    int line = m->lines[0].line_number;
    for (int i = 0; i < m->nlines && m->lines[i].start_location <= location; i++)
        line = m->lines[i].line_number;
    return line;
}
