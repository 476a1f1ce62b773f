#include "tables/methods.h"

#include <stdlib.h>
#include <string.h>

#include "tables/classes.h"
#include "tables/ids.h"

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids)
{
    cmap_init(&t->map);
    t->classes = classes;
    t->ids = ids;
}

void methods_destroy(struct method_table *t)
{
    /* Entries are reachable only through the buckets: free them stripe by stripe. */
    for (int s = 0; s < CMAP_STRIPES; s++) {
        struct cmap_stripe *st = &t->map.stripes[s];
        for (uint32_t b = 0; b < st->nbuckets; b++) {
            struct cmap_node *n = st->buckets[b];
            while (n) {
                struct cmap_node *next = n->next;
                struct method_info *m = (struct method_info *)n;
                free(m->name);
                free(m->signature);
                free(m->lines);
                free(m);
                n = next;
            }
        }
    }
    cmap_destroy(&t->map);
}

static bool method_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct method_info *)n)->id == *(const jmethodID *)key;
}

static int by_location(const void *a, const void *b)
{
    jlocation x = ((const jvmtiLineNumberEntry *)a)->start_location;
    jlocation y = ((const jvmtiLineNumberEntry *)b)->start_location;
    return (x > y) - (x < y);
}

/* Everything about a method that output needs, asked of JVMTI once. */
static struct method_info *resolve(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id)
{
    struct method_info *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->id = id;
    char *name = NULL, *sig = NULL;
    if ((*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        m->name = name ? strdup(name) : NULL;
        m->signature = sig ? strdup(sig) : NULL;
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    if (!m->name) m->name = strdup("<Unknown Method>");
    if (!m->signature) m->signature = strdup("()V");
    jclass cls = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, id, &cls) != JVMTI_ERROR_NONE) cls = NULL;
    m->cls = classes_of(t->classes, jvmti, cls, t->ids);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    jboolean native = JNI_FALSE;
    if ((*jvmti)->IsMethodNative(jvmti, id, &native) == JVMTI_ERROR_NONE) m->native = native;
    jint n = 0;
    jvmtiLineNumberEntry *lines = NULL;
    if (!m->native && (*jvmti)->GetLineNumberTable(jvmti, id, &n, &lines) == JVMTI_ERROR_NONE && n > 0) {
        m->lines = malloc((size_t)n * sizeof *lines);
        if (m->lines) {
            memcpy(m->lines, lines, (size_t)n * sizeof *lines);
            qsort(m->lines, (size_t)n, sizeof *lines, by_location);
            m->nlines = n;
        }
    }
    if (lines) (*jvmti)->Deallocate(jvmti, (unsigned char *)lines);
    return m;
}

static struct cmap_node *adopt(const void *key, void *ctx) { return ctx; }

struct method_info *methods_of(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id)
{
    uint64_t h = hash_mix64((uint64_t)(uintptr_t)id);
    struct cmap_node *n = cmap_find(&t->map, h, &id, method_eq);
    if (n) return (struct method_info *)n;
    /* Resolve outside the stripe lock: JVMTI calls may wait for a safepoint. */
    struct method_info *m = resolve(t, jvmti, jni, id);
    if (!m) return NULL;
    bool created;
    n = cmap_intern(&t->map, h, &id, method_eq, adopt, m, &created);
    if (!created) {       /* another thread won the race */
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
