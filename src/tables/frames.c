/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/frames.h"

#include <stdlib.h>

#include "tables/ids.h"
#include "tables/methods.h"

struct frame_key {
    struct method_info *method;
    jlocation location;
    struct frame_table *table;
};

void frames_init(struct frame_table *t)
{
    cmap_init(&t->map);
    registry_init(&t->all);
}

static bool frame_eq(const struct cmap_node *n, const void *key)
{
    const struct frame *f = (const struct frame *)n;
    const struct frame_key *k = key;
    return f->method == k->method && f->location == k->location;
}

static void frame_number(void *p, uint32_t i) { ((struct frame *)p)->id = ID_FRAME_BASE + 1 + i; }

static struct cmap_node *frame_make(const void *key, void *ctx)
{
    const struct frame_key *k = key;
    struct frame *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->method = k->method;
    f->location = k->location;
    f->line = methods_line(k->method, k->location);
    /* whole before it is published: a dump walks the frames while others are added */
    if (registry_add_numbered(&k->table->all, f, frame_number) == UINT32_MAX) {
        free(f);
        return NULL;
    }
    return &f->node;
}

struct frame *frames_of(struct frame_table *t, struct method_info *m, jlocation location)
{
    struct frame_key k = {m, location, t};
    uint64_t h = hash_mix64((uint64_t)(uintptr_t)m * 31 + (uint64_t)location);
    return (struct frame *)cmap_intern(&t->map, h, &k, frame_eq, frame_make, NULL, NULL);
}
