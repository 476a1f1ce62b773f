/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The class sweeper: what the tables keep for a class goes when the class is unloaded.
 *
 * A program that defines classes again and again (a class loader per plugin, per
 * request, per script) would otherwise leave behind, for every copy, a class entry, an
 * instrumented class's number, and a jmethodID alias and a raw trace key for each of its
 * methods met in a stack. The canonical methods and traces those lead to, with their
 * counts, stay: they are as many as the program's distinct methods and stacks.
 *
 * Once a second, on its own thread, the sweeper looks for classes whose weak reference
 * (the entry's mirror) has been cleared:
 *   1. their class entries become vacant (the next class of the name takes one) and
 *      their generation moves on, which makes their methods' aliases stale;
 *   2. instrumented classes whose loader is gone become vacant too;
 *   3. stale aliases are taken out, and then the raw trace keys with one of those
 *      jmethodIDs in them.
 * A mirror given up in step 1 may still be in a thread's hands (heap=sites reads it
 * without a lock to compare classes): it is deleted two passes later, seconds after
 * anyone could have read it for a comparison.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/source.h"
#include "tables/bci_classes.h"
#include "tables/classes.h"
#include "tables/methods.h"
#include "tables/traces.h"

#include "util/cmap.h"
#include "util/log.h"
#include "util/pacer.h"
#include "util/env.h"

#define SWEEP_PERIOD_MS 1000

/* What a pass sweeps (and, summed, every pass so far). */
struct class_sweep_stats {
    uint64_t classes;    /* class entries made vacant */
    uint64_t numbered;   /* instrumented classes made vacant */
    uint64_t aliases;    /* jmethodIDs forgotten */
    uint64_t raw_traces; /* raw trace keys forgotten */
};

/* Weak references given up, to be deleted later. */
struct weak_list {
    jweak *refs;
    size_t n, cap;
};

/* The jmethodIDs of unloaded methods met in one pass: open addressing, a power of two. */
struct id_set {
    jmethodID *slots;
    size_t n, cap;
};

struct class_sweeper {
    struct pacer pace;           /* the thread's passes */
    pthread_mutex_t lock;        /* over total */
    struct weak_list retired[2]; /* [0] given up in the last pass, [1] in the one before */
    struct id_set dead;
    struct class_sweep_stats total;
};

static struct class_sweeper *of(struct host *h) { return host_state(h, SOURCE_CLASS_SWEEPER); }

static void weak_add(struct weak_list *l, jweak w)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        jweak *r = realloc(l->refs, cap * sizeof *r);
        if (!r) return; /* leaked: out of memory */
        l->refs = r;
        l->cap = cap;
    }
    l->refs[l->n++] = w;
}

static void weak_delete_all(struct weak_list *l, JNIEnv *jni)
{
    for (size_t i = 0; i < l->n; i++) (*jni)->DeleteWeakGlobalRef(jni, l->refs[i]);
    l->n = 0;
}

static size_t id_slot(const struct id_set *s, jmethodID id)
{
    return (size_t)hash_mix64((uint64_t)(uintptr_t)id) & (s->cap - 1);
}

static void id_put(struct id_set *s, jmethodID id)
{
    if (2 * (s->n + 1) > s->cap) {
        struct id_set g = {calloc(s->cap ? s->cap * 2 : 256, sizeof(jmethodID)), 0, s->cap ? s->cap * 2 : 256};
        if (!g.slots) return; /* its raw keys stay: memory, not a wrong answer */
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i]) id_put(&g, s->slots[i]);
        free(s->slots);
        *s = g;
    }
    size_t i = id_slot(s, id);
    while (s->slots[i] && s->slots[i] != id) i = (i + 1) & (s->cap - 1);
    if (!s->slots[i]) s->n++;
    s->slots[i] = id;
}

static bool id_has(jmethodID id, void *ctx)
{
    const struct id_set *s = ctx;
    if (!s->n) return false;
    for (size_t i = id_slot(s, id); s->slots[i]; i = (i + 1) & (s->cap - 1))
        if (s->slots[i] == id) return true;
    return false;
}

static void note_dead(jmethodID id, void *ctx) { id_put(ctx, id); }

/* Step 1: class entries whose class is gone. */
static uint32_t vacate_classes(struct host *h, JNIEnv *jni, struct weak_list *retire)
{
    struct class_table *t = &h->t.classes;
    uint32_t vacated = 0, n = classes_count(t);
    for (uint32_t i = 0; i < n; i++) {
        struct class_info *c = classes_at(t, i);
        /* Only this thread takes a mirror from an entry in use, so m stays c's until then. */
        jweak m = c ? atomic_load(&c->mirror) : NULL;
        if (!m || !(*jni)->IsSameObject(jni, m, NULL)) continue;
        pthread_mutex_lock(&t->naming);
        jweak old = classes_vacate(t, c);
        pthread_mutex_unlock(&t->naming);
        if (old) weak_add(retire, old);
        vacated++;
    }
    return vacated;
}

static bool loader_gone(jweak loader, void *ctx) { return (*(JNIEnv *)ctx)->IsSameObject(ctx, loader, NULL); }

/* Under the table's lock, which every reader of a loader reference holds. */
static void loader_drop(jweak loader, void *ctx) { (*(JNIEnv *)ctx)->DeleteWeakGlobalRef(ctx, loader); }

static struct class_sweep_stats class_sweeper_pass(struct host *h, JNIEnv *jni)
{
    struct class_sweeper *s = of(h);
    struct class_sweep_stats st = {0};
    if (!s) return st;
    weak_delete_all(&s->retired[1], jni);
    struct weak_list spare = s->retired[1];
    s->retired[1] = s->retired[0];
    s->retired[0] = spare;
    st.classes = vacate_classes(h, jni, &s->retired[0]);
    if (host_bci_classes(h)) st.numbered = bci_classes_sweep(host_bci_classes(h), loader_gone, loader_drop, jni);
    if (st.classes) {
        if (s->dead.n) memset(s->dead.slots, 0, s->dead.cap * sizeof *s->dead.slots);
        s->dead.n = 0;
        st.aliases = methods_sweep(&h->t.methods, note_dead, &s->dead);
        if (s->dead.n) st.raw_traces = traces_sweep(&h->t.traces, id_has, &s->dead);
    }
    pthread_mutex_lock(&s->lock);
    s->total.classes += st.classes;
    s->total.numbered += st.numbered;
    s->total.aliases += st.aliases;
    s->total.raw_traces += st.raw_traces;
    pthread_mutex_unlock(&s->lock);
    return st;
}

static void JNICALL sweeper_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct class_sweeper *s = of(h);
    while (pacer_pause(&s->pace, SWEEP_PERIOD_MS)) class_sweeper_pass(h, jni);
    pacer_end(&s->pace);
}

static struct class_sweep_stats class_sweeper_totals(struct host *h)
{
    struct class_sweep_stats st = {0};
    struct class_sweeper *s = of(h);
    if (!s) return st;
    pthread_mutex_lock(&s->lock);
    st = s->total;
    pthread_mutex_unlock(&s->lock);
    return st;
}

/* HPROF_TABLE_STATS: what the tables hold at the end, and what the sweeper took out. */
static void log_table_stats(struct host *h)
{
    uint32_t most = 0, vacant = 0;
    const char *name = classes_most_entries(&h->t.classes, &most, &vacant);
    struct class_sweep_stats st = class_sweeper_totals(h);
    log_plain("HPROF: tables: %u class entries (%u vacant), at most %u for one name (%s)", classes_count(&h->t.classes),
              vacant, most, name ? name : "-");
    uint64_t forgotten = traces_forgotten(&h->t.traces);
    log_plain("HPROF: tables: %llu methods under %llu jmethodIDs, %llu traces under %llu raw keys (%llu forgotten)",
              (unsigned long long)methods_count(&h->t.methods), (unsigned long long)methods_aliases(&h->t.methods),
              (unsigned long long)(traces_count(&h->t.traces) - forgotten),
              (unsigned long long)traces_raw_keys(&h->t.traces), (unsigned long long)forgotten);
    log_plain("HPROF: tables: %u frames (a method and a location each)", frames_count(&h->t.frames));
    if (host_bci_classes(h))
        log_plain("HPROF: tables: %u numbered classes, at most %u for one name",
                  registry_count(&host_bci_classes(h)->all), bci_classes_most(host_bci_classes(h)));
    log_plain("HPROF: tables: swept %llu class entries, %llu numbered classes, %llu jmethodIDs, %llu raw keys",
              (unsigned long long)st.classes, (unsigned long long)st.numbered, (unsigned long long)st.aliases,
              (unsigned long long)st.raw_traces);
}

/* At VM init, and again when an attached agent is started again after a stop. */
static void start(struct host *h, JNIEnv *jni)
{
    struct class_sweeper *s = of(h);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return;
        pacer_init(&s->pace);
        pthread_mutex_init(&s->lock, NULL);
        host_set_state(h, SOURCE_CLASS_SWEEPER, s);
    }
    /* Without its thread nothing is swept: the tables keep every class, as they can. */
    if (pacer_begin(&s->pace) && !host_start_thread(h, jni, "HPROF class sweeper", sweeper_main, h))
        pacer_end(&s->pace);
}

/* The thread is let go, not freed: a pass under way finishes on its own. */
static void stop(struct host *h, JNIEnv *jni)
{
    struct class_sweeper *s = of(h);
    if (!s) return;
    pacer_stop(&s->pace, 5000);
    if (env_switch("HPROF_TABLE_STATS", false)) log_table_stats(h);
}

static bool wanted(const struct options *o) { return true; }

const struct source class_sweeper_source = {
    .name = "class sweeper",
    .wanted = wanted,
    .start = start,
    .stop = stop,
};
