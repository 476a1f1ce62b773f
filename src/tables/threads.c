#include "tables/threads.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"

void threads_init(struct thread_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    registry_init(&t->all);
}

void threads_destroy(struct thread_table *t, JNIEnv *jni)
{
    for (uint32_t i = 0; i < registry_count(&t->all); i++) {
        struct thread_info *ti = registry_get(&t->all, i);
        if (ti->ref && jni) (*jni)->DeleteGlobalRef(jni, ti->ref);
        free(ti->name);
        free(ti->group);
        free(ti->parent_group);
        free(ti);
    }
    free(t->live);
    registry_destroy(&t->all);
    pthread_mutex_destroy(&t->lock);
}

uint32_t threads_count(struct thread_table *t) { return registry_count(&t->all); }
struct thread_info *threads_at(struct thread_table *t, uint32_t i) { return registry_get(&t->all, i); }

static char *take_string(jvmtiEnv *jvmti, char *s)
{
    char *copy = s ? strdup(s) : NULL;
    if (s) (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    return copy;
}

/* Thread, group and parent group names, asked of JVMTI. */
static void describe(struct thread_info *ti, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return;
    ti->name = take_string(jvmti, info.name);
    if (info.thread_group) {
        jvmtiThreadGroupInfo g;
        memset(&g, 0, sizeof g);
        if ((*jvmti)->GetThreadGroupInfo(jvmti, info.thread_group, &g) == JVMTI_ERROR_NONE) {
            ti->group = take_string(jvmti, g.name);
            if (g.parent) {
                jvmtiThreadGroupInfo pg;
                memset(&pg, 0, sizeof pg);
                if ((*jvmti)->GetThreadGroupInfo(jvmti, g.parent, &pg) == JVMTI_ERROR_NONE) {
                    ti->parent_group = take_string(jvmti, pg.name);
                    if (pg.parent) (*jni)->DeleteLocalRef(jni, pg.parent);
                }
                (*jni)->DeleteLocalRef(jni, g.parent);
            }
        }
        (*jni)->DeleteLocalRef(jni, info.thread_group);
    }
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

struct thread_info *threads_lookup(jvmtiEnv *jvmti, jthread thread)
{
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, thread, &p) != JVMTI_ERROR_NONE) return NULL;
    return p;
}

static int add_live(struct thread_table *t, struct thread_info *ti)
{
    if (t->nlive == t->caplive) {
        uint32_t cap = t->caplive ? t->caplive * 2 : 64;
        struct thread_info **l = realloc(t->live, cap * sizeof *l);
        if (!l) return -1;
        t->live = l;
        t->caplive = cap;
    }
    t->live[t->nlive++] = ti;
    return 0;
}

struct thread_info *threads_started(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni,
                                    jthread thread, struct ids *ids, struct thread_info **existing)
{
    *existing = NULL;
    struct thread_info *ti = calloc(1, sizeof *ti);
    if (!ti) return NULL;
    describe(ti, jvmti, jni, thread);
    pthread_mutex_lock(&t->lock);
    struct thread_info *old = threads_lookup(jvmti, thread);
    if (old) {
        pthread_mutex_unlock(&t->lock);
        free(ti->name);
        free(ti->group);
        free(ti->parent_group);
        free(ti);
        *existing = old;
        return NULL;
    }
    uint32_t i = registry_add(&t->all, ti);
    if (i == UINT32_MAX) {
        pthread_mutex_unlock(&t->lock);
        free(ti);
        return NULL;
    }
    ti->serial = SERIAL_THREAD_BASE + 1 + i;
    ti->object_id = ids_new_object(ids);
    ti->sampled = true;
    ti->ref = (*jni)->NewGlobalRef(jni, thread);
    if (ti->ref && add_live(t, ti) != 0) {
        (*jni)->DeleteGlobalRef(jni, ti->ref);
        ti->ref = NULL;
    }
    (*jvmti)->SetThreadLocalStorage(jvmti, thread, ti);
    pthread_mutex_unlock(&t->lock);
    return ti;
}

struct thread_info *threads_ended(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    pthread_mutex_lock(&t->lock);
    struct thread_info *ti = threads_lookup(jvmti, thread);
    if (ti) {
        for (uint32_t i = 0; i < t->nlive; i++) {
            if (t->live[i] == ti) {
                t->live[i] = t->live[--t->nlive];
                break;
            }
        }
        if (ti->ref) (*jni)->DeleteGlobalRef(jni, ti->ref);
        ti->ref = NULL;
        (*jvmti)->SetThreadLocalStorage(jvmti, thread, NULL);
    }
    pthread_mutex_unlock(&t->lock);
    return ti;
}

int threads_snapshot_sampled(struct thread_table *t, JNIEnv *jni, jthread *refs,
                             struct thread_info **infos, int max)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive && n < max; i++) {
        struct thread_info *ti = t->live[i];
        if (!ti->sampled || !ti->ref) continue;
        jthread local = (*jni)->NewLocalRef(jni, ti->ref);
        if (!local) continue;
        refs[n] = local;
        infos[n] = ti;
        n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

int threads_live_count(struct thread_table *t)
{
    pthread_mutex_lock(&t->lock);
    int n = (int)t->nlive;
    pthread_mutex_unlock(&t->lock);
    return n;
}

void threads_set_sampled(struct thread_table *t, JNIEnv *jni, jobject thread, bool on)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) {
        struct thread_info *ti = t->live[i];
        if (!thread || (ti->ref && (*jni)->IsSameObject(jni, ti->ref, thread))) ti->sampled = on;
    }
    pthread_mutex_unlock(&t->lock);
}

bool threads_set_sampled_by_id(struct thread_table *t, uint32_t object_id, bool on)
{
    bool found = false;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) {
        struct thread_info *ti = t->live[i];
        if (ti->object_id == object_id) {
            ti->sampled = on;
            found = true;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return found;
}
