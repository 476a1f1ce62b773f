/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/alloc/site_objects.h"

#include <stdlib.h>
#include <string.h>

#define SWEEP_MIN 4096 /* entries a log holds before its first sweep */

void site_objects_init(struct site_objects *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    atomic_init(&t->gcs, 0);
}

struct site_log *site_objects_log(struct site_objects *t)
{
    pthread_mutex_lock(&t->lock);
    struct site_log *l = t->free;
    if (l) {
        t->free = l->next_free;
        l->next_free = NULL;
    } else if ((l = calloc(1, sizeof *l))) {
        pthread_mutex_init(&l->lock, NULL);
        l->sweep_at = SWEEP_MIN;
        l->next = t->all;
        __atomic_store_n(&t->all, l, __ATOMIC_RELEASE); /* read by the GC's mark */
    }
    pthread_mutex_unlock(&t->lock);
    return l;
}

void site_objects_release(struct site_objects *t, struct site_log *l)
{
    if (!l) return;
    pthread_mutex_lock(&t->lock);
    l->next_free = t->free;
    t->free = l;
    pthread_mutex_unlock(&t->lock);
}

/* In the GC (a JVMTI callback): no lock may be taken, since a thread in native can hold
 * its log's lock while it waits for this safepoint to end; the counts are read as they
 * are (a log is only prepended to the list; an entry of a thread caught in the middle of
 * its append may fall on either side of the mark). */
void site_objects_gc_finished(struct site_objects *t)
{
    /* Counted twice, before and after the marks (odd: marking), so that a sweep can tell
     * a GC came while it compacted the log (sweep_log). */
    atomic_fetch_add(&t->gcs, 1);
    for (struct site_log *l = __atomic_load_n(&t->all, __ATOMIC_ACQUIRE); l; l = l->next)
        __atomic_store_n(&l->mark, __atomic_load_n(&l->n, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);
    atomic_fetch_add(&t->gcs, 1);
}

/* Drops the entries whose objects were collected, keeping the others in order; calls
 * live() for each kept one when given. The log's lock is held. */
static void sweep_log(struct site_objects *t, struct site_log *l, JNIEnv *jni, site_objects_fn live, void *ctx,
                      bool marked)
{
    uint64_t gcs = atomic_load(&t->gcs);
    size_t kept = 0, looked = 0, mark = __atomic_load_n(&l->mark, __ATOMIC_SEQ_CST), new_mark = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct site_ref e = l->refs[i];
        if (i == l->looked) looked = kept;
        if (i == mark) new_mark = kept;
        if ((*jni)->IsSameObject(jni, e.ref, NULL)) {
            (*jni)->DeleteWeakGlobalRef(jni, e.ref);
            continue;
        }
        if (live && (!marked || i < mark)) live(e.site, (uint64_t)e.size8 << 3, ctx);
        l->refs[kept++] = e;
    }
    l->looked = l->looked >= l->n ? kept : looked;
    __atomic_store_n(&l->mark, mark >= l->n ? kept : new_mark, __ATOMIC_SEQ_CST);
    __atomic_store_n(&l->n, kept, __ATOMIC_SEQ_CST);
    /* A GC during the sweep marked the log as it was: every entry (nothing is appended
     * while the sweep holds the lock); one after this check reads the new count. */
    if (atomic_load(&t->gcs) != gcs) __atomic_store_n(&l->mark, kept, __ATOMIC_SEQ_CST);
    l->sweep_at = kept * 2 > SWEEP_MIN ? kept * 2 : SWEEP_MIN;
    /* Give memory back once most of the log's objects are gone. */
    if (l->cap > SWEEP_MIN && kept < l->cap / 4) {
        struct site_ref *refs = realloc(l->refs, l->sweep_at * sizeof *refs);
        if (refs) {
            l->refs = refs;
            l->cap = l->sweep_at;
        }
    }
}

bool site_objects_add(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                      uint64_t size)
{
    jweak ref = (*jni)->NewWeakGlobalRef(jni, obj);
    if (!ref) return false;
    pthread_mutex_lock(&l->lock);
    if (l->n >= l->sweep_at) {
        /* Only a GC clears references: without one since the last sweep there is
         * nothing to drop, and the log grows until the next. */
        uint64_t gcs = atomic_load_explicit(&t->gcs, memory_order_relaxed);
        if (gcs != l->gcs_seen) {
            l->gcs_seen = gcs;
            sweep_log(t, l, jni, NULL, NULL, false);
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        struct site_ref *refs = realloc(l->refs, cap * sizeof *refs);
        if (!refs) {
            pthread_mutex_unlock(&l->lock);
            (*jni)->DeleteWeakGlobalRef(jni, ref);
            return false;
        }
        l->refs = refs;
        l->cap = cap;
    }
    uint64_t size8 = (size + 7) >> 3;
    l->refs[l->n] = (struct site_ref){ref, site, size8 > UINT32_MAX ? UINT32_MAX : (uint32_t)size8};
    __atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE); /* read by the GC's mark */
    pthread_mutex_unlock(&l->lock);
    return true;
}

bool site_objects_is_last(struct site_log *l, JNIEnv *jni, jobject obj)
{
    pthread_mutex_lock(&l->lock);
    bool last = l->n && (*jni)->IsSameObject(jni, l->refs[l->n - 1].ref, obj);
    pthread_mutex_unlock(&l->lock);
    return last;
}

bool site_objects_recent(struct site_log *l, JNIEnv *jni, jobject obj, bool (*same_site)(uint32_t site, void *ctx),
                         void *ctx, size_t overlap, size_t max_scan)
{
    bool found = false;
    pthread_mutex_lock(&l->lock);
    size_t end = l->looked > overlap ? l->looked - overlap : 0;
    if (l->n - end > max_scan) end = l->n - max_scan;
    for (size_t i = l->n; i > end; i--) {
        const struct site_ref *e = &l->refs[i - 1];
        if (same_site(e->site, ctx) && (*jni)->IsSameObject(jni, e->ref, obj)) {
            found = true;
            break;
        }
    }
    l->looked = l->n;
    pthread_mutex_unlock(&l->lock);
    return found;
}

size_t site_objects_held(struct site_objects *t)
{
    size_t n = 0;
    pthread_mutex_lock(&t->lock);
    for (struct site_log *l = t->all; l; l = l->next) {
        pthread_mutex_lock(&l->lock);
        n += l->n;
        pthread_mutex_unlock(&l->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

void site_objects_sweep(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx)
{
    site_objects_sweep_at_gc(t, jni, live, ctx, false);
}

void site_objects_sweep_at_gc(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx, bool marked)
{
    pthread_mutex_lock(&t->lock); /* no log is made or handed over meanwhile */
    for (struct site_log *l = t->all; l; l = l->next) {
        pthread_mutex_lock(&l->lock);
        sweep_log(t, l, jni, live, ctx, marked);
        pthread_mutex_unlock(&l->lock);
    }
    pthread_mutex_unlock(&t->lock);
}

void site_objects_tag(struct site_objects *t, jvmtiEnv *env)
{
    pthread_mutex_lock(&t->lock);
    for (struct site_log *l = t->all; l; l = l->next) {
        pthread_mutex_lock(&l->lock);
        /* A collected object's reference is refused (JVMTI_ERROR_INVALID_OBJECT). */
        for (size_t i = 0; i < l->n; i++) (*env)->SetTag(env, l->refs[i].ref, (jlong)l->refs[i].site);
        pthread_mutex_unlock(&l->lock);
    }
    pthread_mutex_unlock(&t->lock);
}
