/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/strings.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"

struct string_entry {
    struct cmap_node node;
    uint32_t id;
    uint32_t output; /* the output it was last written to */
    size_t len;
    char text[];
};

struct string_ctx {
    struct string_table *t;
    size_t len;
};

static bool string_eq(const struct cmap_node *n, const void *key)
{
    const struct string_entry *e = (const struct string_entry *)n;
    return strcmp(e->text, key) == 0;
}

/* Numbered before it is published: the binary writer looks strings up while others are added. */
static void string_number(void *p, uint32_t i) { ((struct string_entry *)p)->id = ID_STRING_BASE + 1 + i; }

static struct cmap_node *string_make(const void *key, void *ctx)
{
    struct string_ctx *c = ctx;
    struct string_entry *e = malloc(sizeof *e + c->len + 1);
    if (!e) return NULL;
    memcpy(e->text, key, c->len + 1);
    e->len = c->len;
    e->output = c->t->output;
    if (registry_add_numbered(&c->t->all, e, string_number) == UINT32_MAX) {
        free(e);
        return NULL;
    }
    return &e->node;
}

void strings_init(struct string_table *t)
{
    cmap_init(&t->map);
    registry_init(&t->all);
    t->output = 0;
}

uint32_t strings_id(struct string_table *t, const char *s, bool *is_new)
{
    *is_new = false;
    if (!s) return 0;
    struct string_ctx c = {t, strlen(s)};
    struct cmap_node *n = cmap_intern(&t->map, hash_bytes(s, c.len), s, string_eq, string_make, &c, is_new);
    if (!n) return 0;
    struct string_entry *e = (struct string_entry *)n;
    if (e->output != t->output) {
        e->output = t->output;
        *is_new = true;
    }
    return e->id;
}

void strings_new_output(struct string_table *t) { t->output++; }
