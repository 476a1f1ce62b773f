/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor=y on java.util.concurrent: MONITOR DUMP's rows of the j.u.c objects threads are
 * parked on now, with their owners (see juc_waits.c for how the waits are kept).
 */
#include "sources/monitor/juc_waits_dump.h"

#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/monitor/juc_waits_state.h"
#include "sources/resolve.h"
#include "tables/classes.h"
#include "tables/monitors.h"
#include "tables/threads.h"

/* A thread parked now: its blocker (a local reference), its serial, its kind. */
struct parked {
    jobject blocker;
    uint32_t serial;
    bool contention, done;
};

static size_t parked_count(struct juc_waits *w)
{
    size_t n = 0;
    for (int i = 0; i < STRIPES; i++) {
        pthread_mutex_lock(&w->stripes[i].lock);
        n += w->stripes[i].n;
        pthread_mutex_unlock(&w->stripes[i].lock);
    }
    return n;
}

/* Those parked now on a blocker, at most max (local references, in the caller's frame). */
static size_t gather_parked(struct juc_waits *w, JNIEnv *jni, struct parked *p, size_t max)
{
    size_t n = 0;
    for (int i = 0; i < STRIPES; i++) {
        struct stripe *s = &w->stripes[i];
        pthread_mutex_lock(&s->lock);
        for (size_t k = 0; k < s->n && n < max; k++) {
            struct juc_wait *x = s->v[k];
            jobject b = x->parked && x->blocker && x->serial ? (*jni)->NewLocalRef(jni, x->blocker) : NULL;
            if (b) p[n++] = (struct parked){b, x->serial, x->contention, false};
        }
        pthread_mutex_unlock(&s->lock);
    }
    return n;
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void add_serial(uint32_t **v, int *n, uint32_t serial)
{
    uint32_t *g = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    if (!g) return;
    *v = g;
    g[(*n)++] = serial;
}

/* The owner of a lock that has one, and how many times it holds it. */
static void owner_of(struct host *h, JNIEnv *jni, jobject lock, struct monitor_dump_monitor *m)
{
    struct juc_waits *w = host_juc(h);
    if (!w->aos || !w->owner || !(*jni)->IsInstanceOf(jni, lock, w->aos)) return;
    jobject owner = (*jni)->GetObjectField(jni, lock, w->owner);
    if (!owner) return;
    m->owner = threads_serial(&h->t.threads, h->jvmti, owner);
    bool counted = w->reentrant && w->state && (*jni)->IsInstanceOf(jni, lock, w->reentrant);
    m->entry_count = counted ? (*jni)->GetIntField(jni, lock, w->state) : 1;
    (*jni)->DeleteLocalRef(jni, owner);
}

/* One row of MONITOR DUMP for p[i]'s blocker, with every thread parked on it. */
static void dump_blocker(struct host *h, JNIEnv *jni, struct parked *p, size_t n, size_t i,
                         struct monitor_dump_monitor *m)
{
    memset(m, 0, sizeof *m);
    jclass c = (*jni)->GetObjectClass(jni, p[i].blocker);
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, c, &h->t.ids);
    (*jni)->DeleteLocalRef(jni, c);
    m->signature = ci && ci->signature ? ci->signature : "<unknown>";
    owner_of(h, jni, p[i].blocker, m);
    for (size_t k = i; k < n; k++) {
        if (p[k].done || (k != i && !(*jni)->IsSameObject(jni, p[k].blocker, p[i].blocker))) continue;
        p[k].done = true;
        if (p[k].contention)
            add_serial(&m->enter_waiters, &m->nenter_waiters, p[k].serial);
        else
            add_serial(&m->notify_waiters, &m->nnotify_waiters, p[k].serial);
    }
    if (m->enter_waiters) qsort(m->enter_waiters, (size_t)m->nenter_waiters, sizeof(uint32_t), by_value);
    if (m->notify_waiters) qsort(m->notify_waiters, (size_t)m->nnotify_waiters, sizeof(uint32_t), by_value);
}

void juc_waits_dump(struct host *h, JNIEnv *jni, struct monitor_snapshot *snap)
{
    struct juc_waits *w = host_juc(h);
    if (!w || !jni) return;
    size_t max = parked_count(w) + 16;
    struct parked *p = calloc(max, sizeof *p);
    if (!p || (*jni)->PushLocalFrame(jni, (jint)max + 16) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        free(p);
        return;
    }
    size_t n = gather_parked(w, jni, p, max);
    for (size_t i = 0; i < n; i++) {
        if (p[i].done) continue;
        struct monitor_dump_monitor *g = realloc(snap->mons, (size_t)(snap->nmons + 1) * sizeof *g);
        if (!g) break;
        snap->mons = g;
        dump_blocker(h, jni, p, n, i, &snap->mons[snap->nmons++]);
    }
    (*jni)->PopLocalFrame(jni, NULL);
    free(p);
}
