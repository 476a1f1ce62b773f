#include "tables/bci_classes.h"

#include <stdlib.h>
#include <string.h>

struct name_node {
    struct cmap_node node;
    struct bci_class *first;
    char name[];
};

void bci_classes_init(struct bci_class_table *t)
{
    registry_init(&t->all);
    cmap_init(&t->by_name);
    pthread_mutex_init(&t->lock, NULL);
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

static char **copy_strings(unsigned n, char *const *src)
{
    char **out = calloc(n ? n : 1, sizeof *out);
    for (unsigned i = 0; out && i < n; i++) out[i] = strdup(src[i] ? src[i] : "");
    return out;
}

struct bci_class *bci_classes_add(struct bci_class_table *t, JNIEnv *jni, const char *name, jobject loader)
{
    struct bci_class *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->name = strdup(name);
    uint32_t i = c->name ? registry_add(&t->all, c) : UINT32_MAX;
    if (i == UINT32_MAX) return NULL;   /* leaked: out of memory */
    c->cnum = i + 1;
    c->loader = loader && jni ? (*jni)->NewWeakGlobalRef(jni, loader) : NULL;
    struct name_node *n = (struct name_node *)cmap_intern(&t->by_name, hash_bytes(name, strlen(name)), name,
                                                          name_eq, name_make, NULL, NULL);
    if (n) {
        pthread_mutex_lock(&t->lock);
        c->same_name = n->first;
        n->first = c;
        pthread_mutex_unlock(&t->lock);
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

/* Matches the class's methods to the numbered ones by name and descriptor. */
static bool fill_ids(struct bci_class *c, jvmtiEnv *jvmti, jclass cls)
{
    jint n = 0;
    jmethodID *ids = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &ids) != JVMTI_ERROR_NONE) return false;
    for (jint i = 0; i < n; i++) {
        char *name = NULL, *sig = NULL;
        if ((*jvmti)->GetMethodName(jvmti, ids[i], &name, &sig, NULL) != JVMTI_ERROR_NONE) continue;
        for (unsigned m = 0; m < c->nmethods; m++) {
            if (strcmp(c->method_names[m], name) == 0 && strcmp(c->method_descs[m], sig) == 0) {
                atomic_store(&c->ids[m], ids[i]);
                break;
            }
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    return true;
}

void bci_classes_bind(struct bci_class *c, jvmtiEnv *jvmti, jclass cls)
{
    if (fill_ids(c, jvmti, cls)) atomic_store(&c->prepared, true);
}

/* The numbered class this loaded class is, if any; `unprepared` skips prepared ones. */
static struct bci_class *find(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls, bool unprepared)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return NULL;
    size_t len = strlen(sig);
    struct name_node *n = NULL;
    if (len >= 3 && sig[0] == 'L') {
        sig[len - 1] = 0;                /* "Ljava/lang/String;" -> "java/lang/String" */
        n = (struct name_node *)cmap_find(&t->by_name, hash_bytes(sig + 1, len - 2), sig + 1, name_eq);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (!n) return NULL;
    jobject loader = NULL;
    (*jvmti)->GetClassLoader(jvmti, cls, &loader);
    struct bci_class *found = NULL;
    pthread_mutex_lock(&t->lock);
    for (struct bci_class *c = n->first; c && !found; c = c->same_name) {
        if (unprepared && atomic_load(&c->prepared)) continue;
        bool same = loader ? (c->loader && (*jni)->IsSameObject(jni, c->loader, loader)) : c->loader == NULL;
        if (same) found = c;
    }
    pthread_mutex_unlock(&t->lock);
    if (loader) (*jni)->DeleteLocalRef(jni, loader);
    return found;
}

bool bci_classes_is_numbered(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    return find(t, jvmti, jni, cls, false) != NULL;
}

void bci_classes_prepared(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    struct bci_class *c = find(t, jvmti, jni, cls, true);
    if (c && fill_ids(c, jvmti, cls)) atomic_store(&c->prepared, true);
}
