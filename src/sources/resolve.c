/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/resolve.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tables/bci_classes.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/methods.h"
#include "tables/tags.h"
#include "tables/threads.h"
#include "tables/traces.h"
#include "util/cmap.h"
#include "util/names.h"

/* A copy of a string JVMTI allocated, which goes back to JVMTI. */
static char *take(jvmtiEnv *jvmti, char *s)
{
    char *copy = s ? strdup(s) : NULL;
    if (s) (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    return copy;
}

/* ---- classes ---- */

static void free_class(struct class_info *c)
{
    free(c->signature);
    free(c->name);
    free(c->source_file);
    free(c);
}

/* A class's names, asked of JVMTI; NULL when it cannot tell. */
static struct class_info *name_class(jvmtiEnv *jvmti, jclass cls)
{
    char *sig = NULL, *src = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return NULL;
    struct class_info *c = calloc(1, sizeof *c);
    if (!c) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        return NULL;
    }
    char name[1024];
    c->signature = take(jvmti, sig);
    c->name = c->signature ? strdup(names_from_signature(c->signature, name, sizeof name)) : NULL;
    if ((*jvmti)->GetSourceFileName(jvmti, cls, &src) == JVMTI_ERROR_NONE) c->source_file = take(jvmti, src);
    if (!c->signature || !c->name) {
        free_class(c);
        return NULL;
    }
    return c;
}

static struct class_info *tagged(jvmtiEnv *jvmti, jclass cls)
{
    jlong tag = 0;
    return (*jvmti)->GetTag(jvmti, cls, &tag) == JVMTI_ERROR_NONE && tag_is_class(tag) ? tag_class(tag) : NULL;
}

struct class_info *classes_of(struct class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls, struct ids *ids)
{
    if (!cls) return &t->unknown;
    struct class_info *c = tagged(jvmti, cls);
    if (c) return c;
    /* Named before the lock, which covers only the tag's check and set: threads that
     * meet new classes at once wait for no one's JVMTI calls. */
    struct class_info *fresh = name_class(jvmti, cls);
    if (!fresh) return &t->unknown;
    jweak mirror = jni ? (*jni)->NewWeakGlobalRef(jni, cls) : NULL;
    pthread_mutex_lock(&t->naming);
    c = tagged(jvmti, cls); /* another thread may have entered it meanwhile */
    if (!c) {
        /* The entry of an unloaded class of this name, else a new one. */
        c = mirror ? classes_reuse(t, fresh->signature, fresh->source_file) : NULL;
        if (!c && classes_add(t, fresh, ids) == 0) {
            c = fresh;
            fresh = NULL;
        }
        if (c) {
            atomic_store(&c->mirror, mirror);
            mirror = NULL;
            (*jvmti)->SetTag(jvmti, cls, tag_for_class(c));
        }
    }
    pthread_mutex_unlock(&t->naming);
    if (fresh) free_class(fresh);
    if (mirror) (*jni)->DeleteWeakGlobalRef(jni, mirror);
    return c ? c : &t->unknown;
}

/* ---- methods and traces ---- */

static int by_location(const void *a, const void *b)
{
    jlocation x = ((const jvmtiLineNumberEntry *)a)->start_location;
    jlocation y = ((const jvmtiLineNumberEntry *)b)->start_location;
    return (x > y) - (x < y);
}

static void read_line_table(struct method_info *m, jvmtiEnv *jvmti)
{
    jint n = 0;
    jvmtiLineNumberEntry *lines = NULL;
    if ((*jvmti)->GetLineNumberTable(jvmti, m->id, &n, &lines) == JVMTI_ERROR_NONE && n > 0) {
        m->lines = malloc((size_t)n * sizeof *lines);
        if (m->lines) {
            memcpy(m->lines, lines, (size_t)n * sizeof *lines);
            qsort(m->lines, (size_t)n, sizeof *lines, by_location);
            m->nlines = n;
        }
    }
    if (lines) (*jvmti)->Deallocate(jvmti, (unsigned char *)lines);
}

/* Everything about a method that output needs, asked of JVMTI once, and the entry of
 * the class that defines it (*defined_in: NULL when JVMTI cannot tell) at *generation. */
static struct method_info *name_method(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id,
                                       struct class_info **defined_in, uint32_t *generation)
{
    *defined_in = NULL;
    struct method_info *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->id = id;
    char *name = NULL, *sig = NULL;
    if ((*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        m->name = take(jvmti, name);
        m->signature = take(jvmti, sig);
    }
    if (!m->name) m->name = strdup("<Unknown Method>");
    if (!m->signature) m->signature = strdup("()V");
    jclass cls = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, id, &cls) != JVMTI_ERROR_NONE) cls = NULL;
    struct class_info *c = classes_of(t->classes, jvmti, jni, cls, t->ids);
    if (cls) {
        /* read while the reference holds the class: it cannot be unloaded meanwhile */
        *generation = atomic_load(&c->generation);
        if (c != &t->classes->unknown) *defined_in = c;
        (*jni)->DeleteLocalRef(jni, cls);
    }
    m->cls = c->canonical;
    jboolean native = JNI_FALSE;
    if ((*jvmti)->IsMethodNative(jvmti, id, &native) == JVMTI_ERROR_NONE) m->native = native;
    if (!m->native) read_line_table(m, jvmti);
    if (!m->name || !m->signature) {
        free(m->name);
        free(m->signature);
        free(m->lines);
        free(m);
        return NULL;
    }
    return m;
}

struct method_info *methods_of(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id)
{
    struct method_info *m = methods_find(t, id);
    if (m) return m;
    /* Named outside any table lock: JVMTI calls may wait for a safepoint. */
    struct class_info *defined_in;
    uint32_t generation = 0;
    m = name_method(t, jvmti, jni, id, &defined_in, &generation);
    return m ? methods_add(t, m, defined_in, generation) : NULL;
}

/* The trace of these frames, made on first sight; `hold`: see traces_find. */
static struct trace *trace_lookup(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint64_t hash,
                                  uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes, bool hold)
{
    struct trace *tr = traces_find(t, hash, thread_serial, frames, nframes, hold);
    if (tr) return tr;
    /* First sight: the frames are resolved outside any table lock. */
    struct frame **resolved = calloc((size_t)(nframes ? nframes : 1), sizeof *resolved);
    if (!resolved) return NULL;
    for (int i = 0; i < nframes; i++) {
        struct method_info *m = methods_of(t->methods, jvmti, jni, frames[i].method);
        resolved[i] = m ? frames_of(t->frames, m, frames[i].location) : NULL;
        if (!resolved[i]) {
            free(resolved);
            return NULL;
        }
    }
    return traces_add(t, hash, thread_serial, frames, nframes, resolved, hold);
}

struct trace *traces_of(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint32_t thread_serial,
                        const jvmtiFrameInfo *frames, int nframes)
{
    return trace_lookup(t, jvmti, jni, traces_key_hash(thread_serial, frames, nframes), thread_serial, frames, nframes,
                        true);
}

struct trace *traces_of_hashed(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint64_t hash,
                               uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes)
{
    return trace_lookup(t, jvmti, jni, hash, thread_serial, frames, nframes, true);
}

struct trace *traces_of_sample(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint32_t thread_serial,
                               const jvmtiFrameInfo *frames, int nframes)
{
    return trace_lookup(t, jvmti, jni, traces_key_hash(thread_serial, frames, nframes), thread_serial, frames, nframes,
                        false);
}

/* ---- the tracker's numbered classes ---- */

struct bci_class *bci_classes_number(struct bci_class_table *t, JNIEnv *jni, const char *name, jobject loader,
                                     const unsigned char *bytes, size_t len)
{
    jweak weak = loader && jni ? (*jni)->NewWeakGlobalRef(jni, loader) : NULL;
    struct bci_class *c = bci_classes_add(t, name, hash_bytes(bytes, len), weak);
    if (!c && weak) (*jni)->DeleteWeakGlobalRef(jni, weak);
    return c;
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
        bci_classes_name_method(c, name, sig, ids[i]);
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

struct same_loader {
    JNIEnv *jni;
    jobject loader;
};

static bool has_loader(const struct bci_class *c, void *ctx)
{
    const struct same_loader *s = ctx;
    return s->loader ? c->loader && (*s->jni)->IsSameObject(s->jni, c->loader, s->loader) : !c->loader;
}

/* The numbered class this loaded class is (same name, same loader), if any;
 * `unprepared` skips prepared ones. */
static struct bci_class *numbered_twin(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls,
                                       bool unprepared)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE || !sig) return NULL;
    size_t len = strlen(sig);
    struct same_loader s = {jni, NULL};
    struct bci_class *c = NULL;
    if (len >= 3 && sig[0] == 'L') {
        sig[len - 1] = 0; /* "Ljava/lang/String;" -> "java/lang/String" */
        (*jvmti)->GetClassLoader(jvmti, cls, &s.loader);
        c = bci_classes_find(t, sig + 1, unprepared, has_loader, &s);
        if (s.loader) (*jni)->DeleteLocalRef(jni, s.loader);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return c;
}

struct bci_class *bci_classes_of(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    return numbered_twin(t, jvmti, jni, cls, false);
}

bool bci_classes_is_numbered(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    return bci_classes_of(t, jvmti, jni, cls) != NULL;
}

struct bci_class *bci_classes_prepared(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    struct bci_class *c = numbered_twin(t, jvmti, jni, cls, true);
    if (c) bci_classes_bind(c, jvmti, cls);
    return c;
}

/* ---- threads ---- */

/* Thread, group and parent group names, asked of JVMTI. */
static void describe(struct thread_info *ti, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return;
    ti->name = take(jvmti, info.name);
    if (info.thread_group) {
        jvmtiThreadGroupInfo g;
        memset(&g, 0, sizeof g);
        if ((*jvmti)->GetThreadGroupInfo(jvmti, info.thread_group, &g) == JVMTI_ERROR_NONE) {
            ti->group = take(jvmti, g.name);
            if (g.parent) {
                jvmtiThreadGroupInfo pg;
                memset(&pg, 0, sizeof pg);
                if ((*jvmti)->GetThreadGroupInfo(jvmti, g.parent, &pg) == JVMTI_ERROR_NONE) {
                    ti->parent_group = take(jvmti, pg.name);
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

uint32_t threads_serial(struct thread_table *t, jvmtiEnv *jvmti, jthread thread)
{
    /* Under the lock the thread's end clears its storage with: an entry read here is
     * not reclaimed before the lock is let go (threads_ended). */
    pthread_mutex_lock(&t->naming);
    struct thread_info *ti = threads_lookup(jvmti, thread);
    uint32_t serial = ti ? ti->serial : 0;
    pthread_mutex_unlock(&t->naming);
    return serial;
}

struct same_thread {
    JNIEnv *jni;
    jthread thread;
};

static bool is_same_thread(jthread ref, void *arg)
{
    struct same_thread *s = arg;
    return (*s->jni)->IsSameObject(s->jni, ref, s->thread);
}

/* The entry of a thread, held: the one its storage names, else (its end seen, it still
 * runs: the thread that ends the VM) the one on the ended list. Naming lock held. */
static struct thread_info *held_entry(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    struct thread_info *ti = threads_lookup(jvmti, thread);
    if (ti) {
        threads_hold(t, ti);
        return ti;
    }
    return threads_find_ended(t, is_same_thread, &(struct same_thread){jni, thread});
}

struct thread_info *threads_started(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                    struct ids *ids, struct thread_info **existing)
{
    *existing = NULL;
    struct thread_info *ti = calloc(1, sizeof *ti);
    if (!ti) return NULL;
    describe(ti, jvmti, jni, thread);
    ti->ref = (*jni)->NewGlobalRef(jni, thread);
    /* The thread-local storage says whether the thread has an entry: checked and set
     * under the lock, as VM init's list of threads and their own starts may cross. */
    pthread_mutex_lock(&t->naming);
    struct thread_info *old = held_entry(t, jvmti, jni, thread);
    bool added = !old && ti->ref && threads_add(t, ti, ids) == 0;
    if (added) {
        threads_hold(t, ti);
        (*jvmti)->SetThreadLocalStorage(jvmti, thread, ti);
    }
    pthread_mutex_unlock(&t->naming);
    if (added) return ti;
    if (ti->ref) (*jni)->DeleteGlobalRef(jni, ti->ref);
    threads_free(ti);
    *existing = old;
    return NULL;
}

struct thread_info *threads_ended(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    /* The storage is cleared under the naming lock: no lookup from another thread
     * (threads_serial, threads_started) gets the entry after this, and those before are
     * done with it or hold it. Events the thread still posts find no entry (serial 0). */
    pthread_mutex_lock(&t->naming);
    struct thread_info *ti = threads_lookup(jvmti, thread);
    if (ti) (*jvmti)->SetThreadLocalStorage(jvmti, thread, NULL);
    pthread_mutex_unlock(&t->naming);
    if (ti) threads_end(t, ti);
    return ti;
}

/* Ended entries looked at in one pass; the rest wait for the next. */
#define RECLAIM_BATCH 64

/* Whether a thread can still run code of ours: JVMTI says so until it is terminated. */
static bool is_gone(jvmtiEnv *jvmti, jthread ref)
{
    jint state = 0;
    if ((*jvmti)->GetThreadState(jvmti, ref, &state) != JVMTI_ERROR_NONE) return false;
    return !(state & JVMTI_THREAD_STATE_ALIVE);
}

void threads_reclaim(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni)
{
    struct thread_info *held[RECLAIM_BATCH];
    bool gone[RECLAIM_BATCH];
    int n = threads_ended_take(t, held, RECLAIM_BATCH);
    for (int i = 0; i < n; i++) gone[i] = is_gone(jvmti, held[i]->ref);
    struct thread_info *ti = threads_ended_reclaim(t, held, gone, n);
    while (ti) {
        struct thread_info *next = ti->next_ended;
        (*jni)->DeleteGlobalRef(jni, ti->ref);
        threads_free(ti);
        ti = next;
    }
}
