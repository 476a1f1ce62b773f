/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/bci_classes.h"

#include <stdlib.h>
#include <string.h>

/* The classes of one name, newest first: pushed under the lock, never removed. */
struct name_node {
    struct cmap_node node;
    struct bci_class *_Atomic newest;
    struct bci_class *vacant;     /* free for the same bytes again (lock) */
    struct bci_class *unprepared; /* numbered, not prepared yet (lock) */
    struct bci_version *versions; /* (lock) */
    char name[];
};

void bci_classes_init(struct bci_class_table *t)
{
    pthread_mutex_init(&t->lock, NULL);
    registry_init(&t->all);
    cmap_init(&t->by_name);
}

static bool name_eq(const struct cmap_node *n, const void *key)
{
    return strcmp(((const struct name_node *)n)->name, key) == 0;
}

static struct cmap_node *name_make(const void *key, void *ctx)
{
    size_t len = strlen(key);
    struct name_node *n = calloc(1, sizeof *n + len + 1);
    if (n) memcpy(n->name, key, len + 1);
    return n ? &n->node : NULL;
}

static uint64_t name_hash(const char *name) { return hash_bytes(name, strlen(name)); }

static char **copy_strings(unsigned n, char *const *src)
{
    char **out = calloc(n ? n : 1, sizeof *out);
    for (unsigned i = 0; out && i < n; i++) out[i] = strdup(src[i] ? src[i] : "");
    return out;
}

static void bci_number(void *p, uint32_t i) { ((struct bci_class *)p)->cnum = i + 1; }

/* A vacant entry of this name and bytes, taken for a new loader. Lock held. */
static struct bci_class *reuse(struct name_node *n, uint64_t bytes_hash, jweak loader)
{
    struct bci_class **p = n ? &n->vacant : NULL;
    for (struct bci_class *c = p ? *p : NULL; c; p = &c->next_vacant, c = *p) {
        if (c->bytes_hash != bytes_hash || !c->ids) continue;
        *p = c->next_vacant;
        c->next_vacant = NULL;
        c->vacant = false;
        c->loader = loader;
        atomic_store(&c->prepared, false);
        for (unsigned m = 0; m < c->nmethods; m++) atomic_store(&c->ids[m], NULL);
        return c;
    }
    return NULL;
}

struct bci_class *bci_classes_add(struct bci_class_table *t, const char *name, uint64_t bytes_hash, jweak loader)
{
    struct name_node *n =
        (struct name_node *)cmap_intern(&t->by_name, name_hash(name), name, name_eq, name_make, NULL, NULL);
    pthread_mutex_lock(&t->lock);
    struct bci_class *c = loader ? reuse(n, bytes_hash, loader) : NULL;
    if (!c && (c = calloc(1, sizeof *c)) != NULL) {
        c->name = strdup(name);
        c->loader = loader;
        c->bytes_hash = bytes_hash;
        /* numbered before it is published: the Tracker's calls look classes up by number */
        if (!c->name || registry_add_numbered(&t->all, c, bci_number) == UINT32_MAX) {
            free(c->name);
            free(c);
            c = NULL;
        } else if (n) {
            c->same_name = atomic_load(&n->newest);
            atomic_store(&n->newest, c);
        }
    }
    if (c && n) {
        c->next_unprepared = n->unprepared;
        n->unprepared = c;
    }
    pthread_mutex_unlock(&t->lock);
    return c;
}

uint32_t bci_classes_sweep(struct bci_class_table *t, bool (*is_gone)(jweak loader, void *ctx),
                           void (*drop)(jweak loader, void *ctx), void *ctx)
{
    uint32_t vacated = 0, n = registry_count(&t->all);
    for (uint32_t i = 0; i < n; i++) {
        struct bci_class *c = registry_get(&t->all, i);
        pthread_mutex_lock(&t->lock);
        if (c && !c->vacant && c->loader && is_gone(c->loader, ctx)) {
            drop(c->loader, ctx);
            c->loader = NULL;
            c->vacant = true;
            struct name_node *nn = (struct name_node *)cmap_find(&t->by_name, name_hash(c->name), c->name, name_eq);
            if (nn) {
                c->next_vacant = nn->vacant;
                nn->vacant = c;
            }
            vacated++;
        }
        pthread_mutex_unlock(&t->lock);
    }
    return vacated;
}

/* The classes of a name waiting for their ClassPrepare; those prepared or vacant since
 * are dropped from the list on the way. Lock held. */
static struct bci_class *find_unprepared(struct name_node *n, bool (*match)(const struct bci_class *c, void *ctx),
                                         void *ctx)
{
    struct bci_class **p = &n->unprepared;
    while (*p) {
        struct bci_class *c = *p;
        if (c->vacant || atomic_load(&c->prepared)) {
            *p = c->next_unprepared;
            c->next_unprepared = NULL;
            continue;
        }
        if (match(c, ctx)) return c;
        p = &c->next_unprepared;
    }
    return NULL;
}

struct bci_class *bci_classes_find(struct bci_class_table *t, const char *name, bool unprepared,
                                   bool (*match)(const struct bci_class *c, void *ctx), void *ctx)
{
    struct name_node *n = (struct name_node *)cmap_find(&t->by_name, name_hash(name), name, name_eq);
    if (!n) return NULL;
    pthread_mutex_lock(&t->lock);
    struct bci_class *c = NULL;
    if (unprepared) {
        c = find_unprepared(n, match, ctx);
    } else {
        for (c = atomic_load(&n->newest); c; c = c->same_name)
            if (!c->vacant && match(c, ctx)) break;
    }
    pthread_mutex_unlock(&t->lock);
    return c;
}

/* The version of these bytes, made on first sight. Lock held. */
static struct bci_version *version_of(struct name_node *n, uint64_t bytes_hash, unsigned nmethods)
{
    struct bci_version *v = n->versions;
    while (v && (v->bytes_hash != bytes_hash || v->nmethods != nmethods)) v = v->next;
    if (v) return v;
    v = calloc(1, sizeof *v);
    if (v) v->frames = calloc(nmethods ? nmethods : 1, sizeof *v->frames);
    if (!v || !v->frames) {
        free(v);
        return NULL;
    }
    v->bytes_hash = bytes_hash;
    v->nmethods = nmethods;
    v->next = n->versions;
    n->versions = v;
    return v;
}

int bci_classes_set_methods(struct bci_class_table *t, struct bci_class *c, unsigned nmethods, char *const *names,
                            char *const *descs)
{
    if (c->ids) return 0; /* a reused entry: the same bytes, the same methods */
    c->method_names = copy_strings(nmethods, names);
    c->method_descs = copy_strings(nmethods, descs);
    c->ids = calloc(nmethods ? nmethods : 1, sizeof *c->ids);
    if (!c->method_names || !c->method_descs || !c->ids) return -1;
    c->nmethods = nmethods;
    struct name_node *n = (struct name_node *)cmap_find(&t->by_name, name_hash(c->name), c->name, name_eq);
    pthread_mutex_lock(&t->lock);
    c->version = n ? version_of(n, c->bytes_hash, nmethods) : NULL;
    pthread_mutex_unlock(&t->lock);
    return 0;
}

struct bci_class *bci_classes_get(struct bci_class_table *t, uint32_t cnum)
{
    if (cnum == 0 || cnum > registry_count(&t->all)) return NULL;
    return registry_get(&t->all, cnum - 1);
}

struct bci_class *bci_classes_named(struct bci_class_table *t, const char *name)
{
    struct name_node *n = (struct name_node *)cmap_find(&t->by_name, name_hash(name), name, name_eq);
    return n ? atomic_load(&n->newest) : NULL;
}

void bci_classes_name_method(struct bci_class *c, const char *name, const char *desc, jmethodID id)
{
    for (unsigned m = 0; m < c->nmethods; m++) {
        if (strcmp(c->method_names[m], name) == 0 && strcmp(c->method_descs[m], desc) == 0) {
            atomic_store(&c->ids[m], id);
            return;
        }
    }
}

uint32_t bci_classes_most(struct bci_class_table *t)
{
    uint32_t most = 0;
    for (uint32_t i = 0, n = registry_count(&t->all); i < n; i++) {
        struct bci_class *c = registry_get(&t->all, i);
        if (!c || bci_classes_named(t, c->name) != c) continue; /* each name once, from its newest */
        uint32_t k = 0;
        for (; c; c = c->same_name) k++;
        if (k > most) most = k;
    }
    return most;
}
