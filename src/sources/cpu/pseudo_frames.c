/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/pseudo_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host.h"

struct class_info *pseudo_class(struct host *h, const char *name)
{
    struct class_info *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    size_t n = strlen(name) + 3;
    c->name = strdup(name);
    c->signature = malloc(n);
    if (c->signature) snprintf(c->signature, n, "L%s;", name);
    if (!c->name || !c->signature || classes_add(&h->t.classes, c, &h->t.ids) != 0) {
        free(c->name);
        free(c->signature);
        free(c);
        return NULL;
    }
    return c;
}

int pseudo_method(struct host *h, struct class_info *c, jmethodID id, const char *name)
{
    struct method_info *m = calloc(1, sizeof *m);
    if (!m) return -1;
    m->id = id;
    m->cls = c;
    m->name = strdup(name);
    m->signature = strdup("()V");
    if (!m->name || !m->signature) {
        free(m->name);
        free(m->signature);
        free(m);
        return -1;
    }
    return methods_add(&h->t.methods, m, c, 0) ? 0 : -1;
}
