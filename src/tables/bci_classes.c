#include "tables/bci_classes.h"

#include <stdlib.h>
#include <string.h>

/* The classes of one name, newest first: pushed without a lock, never removed. */
struct name_node {
    struct cmap_node node;
    struct bci_class *_Atomic newest;
    char name[];
};

void bci_classes_init(struct bci_class_table *t)
{
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

struct bci_class *bci_classes_add(struct bci_class_table *t, const char *name, jweak loader)
{
    struct bci_class *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->name = strdup(name);
    c->loader = loader;
    /* numbered before it is published: the Tracker's calls look classes up by number */
    uint32_t i = c->name ? registry_add_numbered(&t->all, c, bci_number) : UINT32_MAX;
    if (i == UINT32_MAX) return NULL;   /* leaked: out of memory */
    struct name_node *n = (struct name_node *)cmap_intern(&t->by_name, name_hash(name), name, name_eq, name_make,
                                                          NULL, NULL);
    if (n) {
        c->same_name = atomic_load(&n->newest);
        while (!atomic_compare_exchange_weak(&n->newest, &c->same_name, c)) {}
    }
    return c;
}

int bci_classes_set_methods(struct bci_class *c, unsigned nmethods, char *const *names, char *const *descs)
{
    c->method_names = copy_strings(nmethods, names);
    c->method_descs = copy_strings(nmethods, descs);
    c->ids = calloc(nmethods ? nmethods : 1, sizeof *c->ids);
    if (!c->method_names || !c->method_descs || !c->ids) return -1;
    c->nmethods = nmethods;
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
