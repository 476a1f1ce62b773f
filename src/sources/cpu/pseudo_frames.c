/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/pseudo_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host.h"

static struct class_info *new_class(struct host *h, const char *name, const char *file)
{
    struct class_info *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    size_t n = strlen(name) + 3;
    c->name = strdup(name);
    c->signature = malloc(n);
    if (c->signature) snprintf(c->signature, n, "L%s;", name);
    c->source_file = file ? strdup(file) : NULL;
    if (!c->name || !c->signature || (file && !c->source_file) || classes_add(&h->t.classes, c, &h->t.ids) != 0) {
        free(c->name);
        free(c->signature);
        free(c->source_file);
        free(c);
        return NULL;
    }
    return c;
}

struct class_info *pseudo_class(struct host *h, const char *name) { return new_class(h, name, NULL); }

struct class_info *pseudo_library(struct host *h, const char *lib) { return new_class(h, lib, lib); }

static int new_method(struct host *h, struct class_info *c, jmethodID id, const char *name, bool native)
{
    struct method_info *m = calloc(1, sizeof *m);
    if (!m) return -1;
    m->id = id;
    m->cls = c;
    m->native = native;
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

int pseudo_method(struct host *h, struct class_info *c, jmethodID id, const char *name)
{
    return new_method(h, c, id, name, false);
}

int pseudo_native_method(struct host *h, struct class_info *c, jmethodID id, const char *name)
{
    return new_method(h, c, id, name, true);
}
