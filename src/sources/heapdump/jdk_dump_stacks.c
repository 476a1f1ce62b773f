/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JDK dump's thread stacks as hprof's traces (see jdk_dump_stacks.h).
 */
#include "sources/heapdump/jdk_dump_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/dump_threads.h"
#include "sources/host.h"
#include "sources/heapdump/jdk_dump_reader.h"
#include "sources/resolve.h"
#include "tables/frames.h"
#include "tables/methods.h"
#include "tables/traces.h"
#include "util/buf.h"

#define MAX_FRAMES 65536

/* A method of a class the stacks name. */
struct mth {
    struct class_info *ci;
    char *name, *sig;
    jmethodID id;
};

struct stack_work {
    struct host *h;
    JNIEnv *jni;
    struct class_info **need; /* the frames' classes, sorted */
    uint32_t nneed;
    struct mth *m; /* their methods, sorted by class, name, signature */
    size_t nm, mcap;
};

static int by_ptr(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t) * (void *const *)x, b = (uintptr_t) * (void *const *)y;
    return (a > b) - (a < b);
}

static int by_method(const void *x, const void *y)
{
    const struct mth *a = x, *b = y;
    if (a->ci != b->ci) return (uintptr_t)a->ci < (uintptr_t)b->ci ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->sig, b->sig);
}

/* Notes the methods of class `cls` (entry ci). */
static void add_methods(struct stack_work *s, jclass cls, struct class_info *ci)
{
    jvmtiEnv *jvmti = s->h->jvmti;
    jint n = 0;
    jmethodID *ids = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &ids) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; i++) {
        char *name = NULL, *sig = NULL;
        if ((*jvmti)->GetMethodName(jvmti, ids[i], &name, &sig, NULL) == JVMTI_ERROR_NONE && name && sig &&
            grow_array((void **)&s->m, &s->mcap, s->nm + 1, sizeof *s->m)) {
            struct mth *m = &s->m[s->nm];
            m->ci = ci;
            m->name = strdup(name);
            m->sig = strdup(sig);
            m->id = ids[i];
            if (m->name && m->sig) {
                s->nm++;
            } else {
                free(m->name);
                free(m->sig);
            }
        }
        if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
}

/* The methods of every needed class that is loaded now. */
static void index_methods(struct stack_work *s)
{
    jint n = 0;
    jclass *all = NULL;
    if (!s->nneed || (*s->h->jvmti)->GetLoadedClasses(s->h->jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
    (*s->jni)->EnsureLocalCapacity(s->jni, n + 16);
    for (jint i = 0; i < n; i++) {
        struct class_info *ci = classes_of(&s->h->t.classes, s->h->jvmti, s->jni, all[i], &s->h->t.ids);
        if (bsearch(&ci, s->need, s->nneed, sizeof *s->need, by_ptr)) add_methods(s, all[i], ci);
        (*s->jni)->DeleteLocalRef(s->jni, all[i]);
    }
    (*s->h->jvmti)->Deallocate(s->h->jvmti, (unsigned char *)all);
    if (s->m) qsort(s->m, s->nm, sizeof *s->m, by_method);
}

/* The first location of a line in a method (-1 when the line is none of its). */
static jlocation line_location(struct stack_work *s, jmethodID id, int32_t line)
{
    struct method_info *m = line > 0 ? methods_of(&s->h->t.methods, s->h->jvmti, s->jni, id) : NULL;
    jlocation best = -1;
    for (int i = 0; m && i < m->nlines; i++)
        if (m->lines[i].line_number == line && (best < 0 || m->lines[i].start_location < best))
            best = m->lines[i].start_location;
    return best;
}

/* The raw frames of the JDK's frames f[0..n); false when one cannot be found. */
static bool raw_frames(struct stack_work *s, struct jdr *r, const struct jdr_frame *f, uint32_t n, jvmtiFrameInfo *out)
{
    for (uint32_t i = 0; i < n; i++) {
        struct mth key = {jdr_class_info(r, f[i].class_k), f[i].method, f[i].signature, NULL};
        const struct mth *hit =
            key.ci && key.name && key.sig && s->m ? bsearch(&key, s->m, s->nm, sizeof *s->m, by_method) : NULL;
        if (!hit) return false;
        out[i].method = hit->id;
        out[i].location = line_location(s, hit->id, f[i].line);
    }
    return true;
}

/* The classes every stack names, into s->need. */
static void needed_classes(struct stack_work *s, struct jdr *r, struct jdr_frame **f, const uint32_t *nf, uint32_t n)
{
    size_t cap = 0;
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < nf[t]; i++) {
            struct class_info *ci = jdr_class_info(r, f[t][i].class_k);
            if (ci && grow_array((void **)&s->need, &cap, (size_t)s->nneed + 1, sizeof *s->need))
                s->need[s->nneed++] = ci;
        }
    if (s->need) qsort(s->need, s->nneed, sizeof *s->need, by_ptr);
}

/* Whether the trace JVMTI gave is the stack the JDK wrote (same methods, same lines):
 * then it serves, and no second trace of the same stack is written. */
static bool same_stack(struct host *h, const struct trace *tr, const struct jdr_frame *f, const jvmtiFrameInfo *raw,
                       uint32_t n)
{
    if (!tr || tr->nframes != n) return false;
    for (uint32_t i = 0; i < n; i++)
        if (tr->frames[i]->method != methods_find(&h->t.methods, raw[i].method) ||
            (f[i].line > 0 && tr->frames[i]->line != f[i].line))
            return false;
    return true;
}

void jdk_dump_stacks(struct host *h, JNIEnv *jni, struct jdr *r, const uint64_t *dump_ids,
                     const struct dump_thread *const *threads, uint32_t n)
{
    struct stack_work s = {.h = h, .jni = jni};
    struct jdr_frame **f = calloc((size_t)n + 1, sizeof *f);
    uint32_t *nf = calloc((size_t)n + 1, sizeof *nf);
    jvmtiFrameInfo *raw = malloc(MAX_FRAMES * sizeof *raw);
    for (uint32_t t = 0; f && nf && raw && t < n; t++) {
        uint32_t want = jdr_thread_frames(r, dump_ids[t], NULL, 0);
        if (!want || !(f[t] = calloc(want, sizeof **f))) continue;
        nf[t] = want < MAX_FRAMES ? want : MAX_FRAMES;
        jdr_thread_frames(r, dump_ids[t], f[t], nf[t]);
    }
    if (f && nf && raw) {
        needed_classes(&s, r, f, nf, n);
        index_methods(&s);
    }
    for (uint32_t t = 0; t < n; t++) {
        struct trace *tr = threads[t]->trace;
        if (f && nf && raw && f[t] && raw_frames(&s, r, f[t], nf[t], raw) && !same_stack(h, tr, f[t], raw, nf[t]))
            tr = traces_of(&h->t.traces, h->jvmti, jni, threads[t]->ti->serial, raw, (int)nf[t]);
        if (!tr) tr = threads[t]->trace;
        if (tr) jdr_set_thread_trace(r, dump_ids[t], tr->serial);
        if (f && nf && f[t]) jdr_frames_free(f[t], nf[t]);
        if (f) free(f[t]);
    }
    for (size_t i = 0; i < s.nm; i++) {
        free(s.m[i].name);
        free(s.m[i].sig);
    }
    free(s.m);
    free(s.need);
    free(raw);
    free(nf);
    free(f);
}
