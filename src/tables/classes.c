#include "tables/classes.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"
#include "tables/tags.h"
#include "util/names.h"

void classes_init(struct class_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    registry_init(&t->all);
    t->unknown.serial = SERIAL_CLASS_BASE;   /* never written as a LOAD CLASS */
    t->unknown.name = "<Unknown Class>";
    t->unknown.signature = "L<Unknown Class>;";
}

void classes_destroy(struct class_table *t)
{
    for (uint32_t i = 0; i < registry_count(&t->all); i++) {
        struct class_info *c = registry_get(&t->all, i);
        free(c->signature);
        free(c->name);
        free(c->source_file);
        free(c);
    }
    registry_destroy(&t->all);
    pthread_mutex_destroy(&t->lock);
}

uint32_t classes_count(struct class_table *t) { return registry_count(&t->all); }
struct class_info *classes_at(struct class_table *t, uint32_t i) { return registry_get(&t->all, i); }

static struct class_info *make_class(struct class_table *t, jvmtiEnv *jvmti, jclass cls,
                                     struct ids *ids)
{
    char *sig = NULL, *src = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return NULL;
    struct class_info *c = calloc(1, sizeof *c);
    if (!c) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        return NULL;
    }
    char name[1024];
    c->signature = strdup(sig);
    c->name = strdup(names_from_signature(sig, name, sizeof name));
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if ((*jvmti)->GetSourceFileName(jvmti, cls, &src) == JVMTI_ERROR_NONE && src) {
        c->source_file = strdup(src);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)src);
    }
    uint32_t i = registry_add(&t->all, c);
    if (!c->signature || !c->name || i == UINT32_MAX) return NULL;   /* leaked on purpose: rare */
    c->serial = SERIAL_CLASS_BASE + 1 + i;
    c->object_id = ids_new_object(ids);
    return c;
}

struct class_info *classes_of(struct class_table *t, jvmtiEnv *jvmti, jclass cls, struct ids *ids)
{
    jlong tag = 0;
    if (!cls) return &t->unknown;
    if ((*jvmti)->GetTag(jvmti, cls, &tag) == JVMTI_ERROR_NONE && tag_is_class(tag)) return tag_class(tag);
    pthread_mutex_lock(&t->lock);
    /* Another thread may have named it while we waited. */
    struct class_info *c = NULL;
    if ((*jvmti)->GetTag(jvmti, cls, &tag) == JVMTI_ERROR_NONE && tag_is_class(tag)) {
        c = tag_class(tag);
    } else {
        c = make_class(t, jvmti, cls, ids);
        if (c) (*jvmti)->SetTag(jvmti, cls, tag_for_class(c));
    }
    pthread_mutex_unlock(&t->lock);
    return c ? c : &t->unknown;
}
