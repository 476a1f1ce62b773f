/* SPDX-License-Identifier: Apache-2.0 */
/* The tables without a JVM: they hold plain data, which sources/resolve.c names. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tables/bci_classes.h"
#include "tables/ids.h"
#include "tables/object_ids.h"
#include "tables/monitors.h"
#include "tables/sites.h"
#include "tables/tables.h"
#include "unit.h"

/* A method named after its ID: methods of one name, signature and class are one. */
static struct method_info *named_method(jmethodID id, struct class_info *cls, const char *name)
{
    struct method_info *m = calloc(1, sizeof *m);
    m->id = id;
    m->cls = cls && cls->canonical ? cls->canonical : cls;
    m->name = strdup(name);
    m->signature = strdup("()V");
    return m;
}

static struct method_info *fake_method(jmethodID id, struct class_info *cls)
{
    char name[32];
    snprintf(name, sizeof name, "run%lx", (unsigned long)(uintptr_t)id);
    return named_method(id, cls, name);
}

static void classes_and_methods(struct tables *t)
{
    struct class_info *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(classes_add(&t->classes, a, &t->ids) == 0 && classes_add(&t->classes, b, &t->ids) == 0,
          "two classes entered");
    CHECK(a->serial == SERIAL_CLASS_BASE + 1 && b->serial == SERIAL_CLASS_BASE + 2, "class serials in order");
    CHECK(a->object_id == ID_OBJECT_BASE + 1 && b->object_id == ID_OBJECT_BASE + 2, "class object IDs in order");
    CHECK(classes_count(&t->classes) == 2 && classes_at(&t->classes, 1) == b, "classes listed in order");

    jmethodID id = (jmethodID)(uintptr_t)0x1000;
    CHECK(methods_find(&t->methods, id) == NULL, "a method not entered is not found");
    struct method_info *m = methods_add(&t->methods, fake_method(id, a), a, 0);
    CHECK(m && methods_find(&t->methods, id) == m, "a method entered is found");
    CHECK(methods_add(&t->methods, fake_method(id, a), a, 0) == m, "a second entry of one method gives the first");

    m->lines = calloc(2, sizeof *m->lines);
    m->lines[0] = (jvmtiLineNumberEntry){0, 10};
    m->lines[1] = (jvmtiLineNumberEntry){5, 12};
    m->nlines = 2;
    CHECK(methods_line(m, 3) == 10 && methods_line(m, 5) == 12 && methods_line(m, -1) == LINE_UNKNOWN,
          "lines from the line table");
}

static void traces(struct tables *t)
{
    struct method_info *m = methods_add(&t->methods, fake_method((jmethodID)(uintptr_t)0x2000, &t->classes.unknown),
                                        &t->classes.unknown, 0);
    jvmtiFrameInfo raw[2] = {{(jmethodID)(uintptr_t)0x2000, 7}, {(jmethodID)(uintptr_t)0x2000, -1}};
    uint64_t h = traces_key_hash(0, raw, 2);
    CHECK(traces_find(&t->traces, h, 0, raw, 2, true) == NULL, "a trace not entered is not found");
    struct frame **f = calloc(2, sizeof *f);
    f[0] = frames_of(&t->frames, m, 7);
    f[1] = frames_of(&t->frames, m, -1);
    CHECK(f[0] && f[0] == frames_of(&t->frames, m, 7) && f[0] != f[1], "one frame per method and location");
    struct frame *f0 = f[0], *f1 = f[1];
    struct trace *tr = traces_add(&t->traces, h, 0, raw, 2, f, true); /* f is freed */
    CHECK(tr && tr->serial == SERIAL_TRACE_BASE + 1 && tr->frames[0] == f0 && tr->frames[1] == f1,
          "a trace entered keeps its frames");
    CHECK(traces_find(&t->traces, h, 0, raw, 2, true) == tr && traces_key_equals(tr, 0, raw, 2),
          "and is found by its key");
    CHECK(tr->raw == NULL, "raw frames its frames say are not copied");
    struct frame **again = calloc(2, sizeof *again);
    again[0] = f0;
    again[1] = f1;
    CHECK(traces_add(&t->traces, h, 0, raw, 2, again, true) == tr, "a second entry of one trace gives the first");
    CHECK(traces_find(&t->traces, traces_key_hash(200001, raw, 2), 200001, raw, 2, true) == NULL,
          "another thread's trace is another trace");
}

static bool is_ref(jthread ref, void *arg) { return ref == arg; }

static void threads(struct tables *t)
{
    struct thread_table *tt = &t->threads;
    struct thread_info *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    a->ref = (jthread)(uintptr_t)0xa0;
    b->ref = (jthread)(uintptr_t)0xb0;
    CHECK(threads_add(tt, a, &t->ids) == 0 && threads_add(tt, b, &t->ids) == 0, "two threads entered");
    CHECK(a->serial == SERIAL_THREAD_BASE + 1 && threads_live_count(tt) == 2 && a->sampled, "live and sampled");
    CHECK(a->slot == 0 && b->slot == 1, "each its own slot");
    CHECK(threads_set_sampled_by_id(tt, b->object_id, false) && !b->sampled, "sampling off by object ID");
    jthread refs[4];
    struct thread_info *infos[4];
    int n = threads_lend_sampled(tt, refs, infos, 4);
    CHECK(n == 1 && infos[0] == a && refs[0] == a->ref, "only the sampled thread is lent");
    threads_end(tt, a);
    CHECK(threads_live_count(tt) == 1 && a->ended && a->ref, "a thread that ends keeps its entry and reference");
    CHECK(threads_lend(tt, a) == NULL, "an ended thread is lent no more");
    CHECK(threads_find_ended(tt, is_ref, (void *)(uintptr_t)0xa0) == a, "an ended thread is found by its reference");
    struct thread_info *held[4];
    CHECK(threads_ended_take(tt, held, 4) == 0, "an ended entry held by others is not taken");
    threads_release(tt, a);
    threads_release(tt, a);
    n = threads_ended_take(tt, held, 4);
    bool alive[1] = {false};
    CHECK(n == 1 && threads_ended_reclaim(tt, held, alive, n) == NULL && tt->nended == 1,
          "an ended thread still alive stays");
    threads_read_begin(tt);
    bool gone[1] = {true};
    n = threads_ended_take(tt, held, 4);
    CHECK(n == 1 && threads_ended_reclaim(tt, held, gone, n) == NULL, "nothing is reclaimed under a reader");
    threads_read_end(tt);
    n = threads_ended_take(tt, held, 4);
    struct thread_info *out = threads_ended_reclaim(tt, held, gone, n);
    CHECK(out == a && !out->next_ended && tt->nended == 0, "an ended thread gone is reclaimed");
    threads_free(out);
    struct thread_info *c = calloc(1, sizeof *c);
    c->ref = (jthread)(uintptr_t)0xc0;
    CHECK(threads_add(tt, c, &t->ids) == 0 && c->slot == 0 && c->serial == SERIAL_THREAD_BASE + 3,
          "a new thread takes the freed slot and a new serial");
    CHECK(threads_lend(tt, b) == b->ref && threads_lend(tt, b) == b->ref, "one thread lent twice");
    threads_release(tt, b);
    threads_release(tt, b);
    threads_end(tt, b);
    threads_end(tt, c);
    CHECK(threads_live_count(tt) == 0 && !threads_set_sampled_by_id(tt, b->object_id, true),
          "an ended thread cannot be sampled");
    n = threads_ended_take(tt, held, 4);
    bool both[2] = {true, true};
    out = threads_ended_reclaim(tt, held, both, n);
    CHECK(n == 2 && out && out->next_ended && !out->next_ended->next_ended && tt->nended == 0 && tt->nfree == 2,
          "every ended thread gone is reclaimed, its slot given back");
    while (out) {
        struct thread_info *next = out->next_ended;
        threads_free(out);
        out = next;
    }
}

struct id_list {
    jmethodID ids[8];
    int n;
};

static void record_dead(jmethodID id, void *ctx)
{
    struct id_list *d = ctx;
    if (d->n < 8) d->ids[d->n++] = id;
}

static bool is_dead(jmethodID id, void *ctx)
{
    const struct id_list *d = ctx;
    for (int i = 0; i < d->n; i++)
        if (d->ids[i] == id) return true;
    return false;
}

static bool gone_loader(jweak loader, void *ctx) { return loader == (jweak)(uintptr_t)0x10; }
static void drop_loader(jweak loader, void *ctx) { *(jweak *)ctx = loader; }
static bool any_class(const struct bci_class *c, void *ctx) { return true; }

static void numbered_classes(void)
{
    struct bci_class_table t;
    bci_classes_init(&t);
    struct bci_class *boot = bci_classes_add(&t, "p/A", 7, NULL);
    struct bci_class *app = bci_classes_add(&t, "p/A", 7, (jweak)(uintptr_t)0x10);
    CHECK(boot && app && boot->cnum == 1 && app->cnum == 2 && bci_classes_get(&t, 2) == app, "classes by number");
    CHECK(bci_classes_named(&t, "p/A") == app && app->same_name == boot && !boot->same_name,
          "the classes of one name, newest first");
    CHECK(bci_classes_named(&t, "p/B") == NULL, "no class of another name");
    char *names[] = {"<init>", "run"}, *descs[] = {"()V", "(I)V"};
    CHECK(bci_classes_set_methods(&t, app, 2, names, descs) == 0 && app->version && app->version->nmethods == 2,
          "methods listed, a version made");
    bci_classes_name_method(app, "run", "(I)V", (jmethodID)(uintptr_t)0x42);
    bci_classes_name_method(app, "run", "()V", (jmethodID)(uintptr_t)0x43);
    CHECK(atomic_load(&app->ids[1]) == (jmethodID)(uintptr_t)0x42 && atomic_load(&app->ids[0]) == NULL,
          "a method is named by name and descriptor");
    CHECK(bci_classes_find(&t, "p/A", true, any_class, NULL) == app, "the newest class waits for its ClassPrepare");
    atomic_store(&app->prepared, true);
    atomic_store(&boot->prepared, true);
    CHECK(bci_classes_find(&t, "p/A", true, any_class, NULL) == NULL &&
              bci_classes_find(&t, "p/A", false, any_class, NULL) == app,
          "prepared classes wait no more, and are found among all");

    /* The app loader goes: its class is vacant, and the same bytes from a new loader take
     * its number back; other bytes of the name get a number of their own. */
    jweak dropped = NULL;
    CHECK(bci_classes_sweep(&t, gone_loader, drop_loader, &dropped) == 1 && app->vacant &&
              dropped == (jweak)(uintptr_t)0x10 && !boot->vacant,
          "a class whose loader is gone is vacant, its loader reference dropped; the boot loader's stays");
    CHECK(bci_classes_find(&t, "p/A", false, any_class, NULL) == boot, "a vacant class is not found");
    struct bci_class *other = bci_classes_add(&t, "p/A", 8, (jweak)(uintptr_t)0x20);
    CHECK(other && other != app && other->cnum == 3, "other bytes of the name: a new number");
    CHECK(bci_classes_set_methods(&t, other, 2, names, descs) == 0 && other->version && other->version != app->version,
          "and a version of their own");
    struct bci_class *again = bci_classes_add(&t, "p/A", 7, (jweak)(uintptr_t)0x30);
    CHECK(again == app && app->cnum == 2 && !app->vacant && !atomic_load(&app->prepared) &&
              atomic_load(&app->ids[1]) == NULL && app->loader == (jweak)(uintptr_t)0x30,
          "the same bytes take the vacant number, unprepared, their methods not named yet");
    CHECK(bci_classes_set_methods(&t, app, 0, NULL, NULL) == 0 && app->nmethods == 2, "and keep the methods listed");
    CHECK(bci_classes_find(&t, "p/A", true, any_class, NULL) == app, "a reused class waits for its ClassPrepare again");
    CHECK(registry_count(&t.all) == 3, "three numbers for four classes (%u)", registry_count(&t.all));
    struct bci_class *twin = bci_classes_add(&t, "p/A", 7, (jweak)(uintptr_t)0x40);
    CHECK(twin && twin != app && twin->cnum == 4 && bci_classes_set_methods(&t, twin, 2, names, descs) == 0 &&
              twin->version == app->version,
          "a copy loaded beside the first: its own number, the version of its bytes");
}

/*
 * A class a second loader defines: its class entry joins the first's name, its methods and
 * traces are the first's, and once it is unloaded only its aliases and raw keys go.
 */
static void loader_copies(struct tables *t)
{
    struct class_info *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
    a->signature = b->signature = c->signature = "Lp/Plugin;";
    a->source_file = b->source_file = "Plugin.java";
    c->source_file = "Other.java";
    CHECK(classes_add(&t->classes, a, &t->ids) == 0 && classes_add(&t->classes, b, &t->ids) == 0 &&
              classes_add(&t->classes, c, &t->ids) == 0 && a->canonical == a && b->canonical == a && c->canonical == a,
          "classes of one signature share the first's entry as their canonical one");
    pthread_mutex_lock(&t->classes.naming);
    CHECK(classes_reuse(&t->classes, "Lp/Plugin;", "Plugin.java") == NULL, "no entry is vacant while its classes live");
    pthread_mutex_unlock(&t->classes.naming);

    jmethodID id1 = (jmethodID)(uintptr_t)0x7010, id2 = (jmethodID)(uintptr_t)0x7020;
    struct method_info *m1 = methods_add(&t->methods, named_method(id1, a, "step"), a, 0);
    struct method_info *m2 = methods_add(&t->methods, named_method(id2, b, "step"), b, 0);
    CHECK(m1 && m2 == m1 && methods_find(&t->methods, id2) == m1 && m1->cls == a,
          "the same method of two loaders' classes is one method, found by either jmethodID");
    struct method_info *lined = named_method((jmethodID)(uintptr_t)0x7030, b, "step");
    lined->lines = calloc(1, sizeof *lined->lines);
    lined->lines[0] = (jvmtiLineNumberEntry){0, 99};
    lined->nlines = 1;
    CHECK(methods_add(&t->methods, lined, b, 0) != m1, "another line table: another method");

    jvmtiFrameInfo raw1[1] = {{id1, 3}}, raw2[1] = {{id2, 3}};
    uint32_t before = traces_count(&t->traces);
    struct frame **f1 = calloc(1, sizeof *f1), **f2 = calloc(1, sizeof *f2);
    f1[0] = frames_of(&t->frames, m1, 3);
    f2[0] = frames_of(&t->frames, m2, 3);
    struct trace *t1 = traces_add(&t->traces, traces_key_hash(0, raw1, 1), 0, raw1, 1, f1, true);
    struct trace *t2 = traces_add(&t->traces, traces_key_hash(0, raw2, 1), 0, raw2, 1, f2, true);
    CHECK(t1 && t2 == t1 && traces_count(&t->traces) == before + 1 &&
              traces_find(&t->traces, traces_key_hash(0, raw2, 1), 0, raw2, 1, true) == t1,
          "the two copies' raw frames lead to one trace");
    jvmtiFrameInfo by_alias[1] = {{id2, 5}}, by_first[1] = {{id1, 5}};
    struct frame **f5 = calloc(1, sizeof *f5);
    f5[0] = frames_of(&t->frames, m1, 5);
    struct trace *t5 = traces_add(&t->traces, traces_key_hash(0, by_alias, 1), 0, by_alias, 1, f5, true);
    CHECK(t5 && t5 != t1 && t5->raw && t5->raw[0].method == id2 && traces_key_equals(t5, 0, by_alias, 1) &&
              !traces_key_equals(t5, 0, by_first, 1) &&
              traces_find(&t->traces, traces_key_hash(0, by_alias, 1), 0, by_alias, 1, true) == t5 &&
              traces_find(&t->traces, traces_key_hash(0, by_first, 1), 0, by_first, 1, true) == NULL,
          "a trace first entered by an alias keeps those raw frames, which its frames do not say");

    struct monitor_table mons;
    monitors_init(&mons);
    struct site_table copy_sites;
    sites_init(&copy_sites);
    CHECK(monitors_of(&mons, t1, a, false) && monitors_of(&mons, t1, b, false) == monitors_of(&mons, t1, a, false) &&
              sites_of(&copy_sites, t1, b) == sites_of(&copy_sites, t1, a) && sites_of(&copy_sites, t1, a)->cls == a,
          "a monitor or a site of either loader's class: one entry, named by the first");

    /* b's class is unloaded */
    pthread_mutex_lock(&t->classes.naming);
    atomic_store(&b->mirror, (jweak)(uintptr_t)0xb0);
    jweak old = classes_vacate(&t->classes, b);
    struct class_info *taken = classes_reuse(&t->classes, "Lp/Plugin;", "Other.java");
    pthread_mutex_unlock(&t->classes.naming);
    CHECK(old == (jweak)(uintptr_t)0xb0 && b->vacant && atomic_load(&b->generation) == 1 && !atomic_load(&b->mirror) &&
              taken == NULL,
          "a vacated entry gives its mirror up, moves its generation on, and waits for its own source file");
    struct id_list dead = {{0}, 0};
    CHECK(methods_sweep(&t->methods, record_dead, &dead) == 2 && dead.n == 2 &&
              methods_find(&t->methods, id2) == NULL && methods_find(&t->methods, id1) == m1,
          "the unloaded class's aliases are swept, the other's stay (%d)", dead.n);
    CHECK(traces_sweep(&t->traces, is_dead, &dead) == 2 && /* raw2's key and by_alias' */
              traces_find(&t->traces, traces_key_hash(0, raw2, 1), 0, raw2, 1, true) == NULL &&
              traces_find(&t->traces, traces_key_hash(0, raw1, 1), 0, raw1, 1, true) == t1 &&
              traces_at(&t->traces, before) == t1,
          "then its raw trace keys; the trace stays");
    pthread_mutex_lock(&t->classes.naming);
    taken = classes_reuse(&t->classes, "Lp/Plugin;", "Plugin.java");
    pthread_mutex_unlock(&t->classes.naming);
    CHECK(taken == b && !b->vacant && classes_count(&t->classes) >= 3,
          "the next class of its name and source takes it");
    CHECK(methods_sweep(&t->methods, record_dead, &dead) == 0, "nothing more to sweep");
}

/* Threads entering the same methods at once: one entry each. */
static struct tables shared;

static void *enter_methods(void *arg)
{
    for (uintptr_t i = 1; i <= 2000; i++)
        if (!methods_find(&shared.methods, (jmethodID)i))
            methods_add(&shared.methods, fake_method((jmethodID)i, &shared.classes.unknown), &shared.classes.unknown,
                        0);
    return NULL;
}

/*
 * The tables as the agent's threads use them at once (make check runs this under TSan):
 * four writers enter the same names, frames, traces, sites and monitors and count on
 * them, while a reader walks the registries as a dump does. Each entry is made once, its
 * ID in order, every count kept, and the reader sees only whole entries.
 */
#define MT_KEYS    500
#define MT_WRITERS 4
static struct site_table mt_sites;
static struct monitor_table mt_monitors;
static struct method_info *mt_methods[MT_KEYS];
static struct class_info mt_class;
static _Atomic int mt_writing;
static _Atomic int mt_torn; /* entries the reader saw half made */

static void mt_enter(uint32_t k)
{
    char name[32];
    snprintf(name, sizeof name, "name-%u", k);
    bool is_new;
    strings_id(&shared.strings, name, &is_new);
    jvmtiFrameInfo raw = {mt_methods[k]->id, (jlocation)k};
    uint64_t h = traces_key_hash(0, &raw, 1);
    struct trace *t = traces_find(&shared.traces, h, 0, &raw, 1, true);
    if (!t) {
        struct frame **f = calloc(1, sizeof *f);
        f[0] = frames_of(&shared.frames, mt_methods[k], (jlocation)k);
        t = traces_add(&shared.traces, h, 0, &raw, 1, f, true);
    }
    atomic_fetch_add(&t->cpu_samples, 1);
    struct site *site = sites_of(&mt_sites, t, &mt_class);
    atomic_fetch_add(&site->alloc_objs, 1);
    atomic_fetch_add(&site->alloc_bytes, 16);
    monitors_add(monitors_of(&mt_monitors, t, &mt_class, false), 10);
}

static void *mt_writer(void *arg)
{
    uintptr_t me = (uintptr_t)arg;
    for (uint32_t i = 0; i < MT_KEYS; i++) mt_enter((i + (uint32_t)me * 131) % MT_KEYS);
    atomic_fetch_sub(&mt_writing, 1);
    return NULL;
}

static void *mt_reader(void *arg)
{
    do {
        for (uint32_t i = 0, n = traces_count(&shared.traces); i < n; i++) {
            struct trace *t = traces_at(&shared.traces, i);
            if (!t || (t->nframes && (!t->frames || !t->frames[0] || !t->frames[0]->method)))
                atomic_fetch_add(&mt_torn, 1);
        }
        for (uint32_t i = 1, n = sites_count(&mt_sites); i <= n; i++) {
            struct site *st = sites_by_id(&mt_sites, i);
            if (!st || !st->trace || st->cls != &mt_class) atomic_fetch_add(&mt_torn, 1);
        }
        struct monitor_times mt;
        monitors_rank(&mt_monitors, false, 0, &mt);
        free(mt.rows);
    } while (atomic_load(&mt_writing) > 0);
    return NULL;
}

static void concurrent_tables(void)
{
    sites_init(&mt_sites);
    monitors_init(&mt_monitors);
    for (uint32_t k = 0; k < MT_KEYS; k++)
        mt_methods[k] =
            methods_add(&shared.methods, fake_method((jmethodID)(uintptr_t)(0x100000 + k), &mt_class), &mt_class, 0);
    uint32_t traces0 = traces_count(&shared.traces);
    atomic_store(&mt_writing, MT_WRITERS);
    pthread_t th[MT_WRITERS + 1];
    pthread_create(&th[MT_WRITERS], NULL, mt_reader, NULL);
    for (uintptr_t i = 0; i < MT_WRITERS; i++) pthread_create(&th[i], NULL, mt_writer, (void *)i);
    for (int i = 0; i <= MT_WRITERS; i++) pthread_join(th[i], NULL);

    bool once = traces_count(&shared.traces) - traces0 == MT_KEYS && sites_count(&mt_sites) == MT_KEYS &&
        monitors_count(&mt_monitors) == MT_KEYS;
    uint64_t samples = 0, objs = 0, events = 0;
    for (uint32_t i = traces0; i < traces_count(&shared.traces); i++)
        samples += traces_at(&shared.traces, i)->cpu_samples;
    for (uint32_t i = 1; i <= sites_count(&mt_sites); i++) objs += sites_by_id(&mt_sites, i)->alloc_objs;
    for (uint32_t i = 0; i < monitors_count(&mt_monitors); i++) events += monitors_at(&mt_monitors, i)->count;
    CHECK(once, "%d threads entering %d traces, sites and monitors at once: one entry each", MT_WRITERS, MT_KEYS);
    CHECK(samples == MT_WRITERS * MT_KEYS && objs == samples && events == samples,
          "and every count kept (%llu samples, %llu objects, %llu monitor events)", (unsigned long long)samples,
          (unsigned long long)objs, (unsigned long long)events);
    bool is_new = false;
    uint32_t id = strings_id(&shared.strings, "name-7", &is_new);
    CHECK(id && !is_new, "a string entered by four threads at once has one ID");
    strings_new_output(&shared.strings);
    bool again = false, twice = true;
    CHECK(strings_id(&shared.strings, "name-7", &again) == id && again &&
              strings_id(&shared.strings, "name-7", &twice) == id && !twice,
          "a new output file: each string is new to it once, with the same ID (a session's binary file)");
    CHECK(atomic_load(&mt_torn) == 0, "a reader walking the tables meanwhile saw only whole entries");
}

/* ---- a rolling profile forgets the stacks only samples named, idle for a while ---- */

/* The trace of frame (m, loc), looked up or entered: held (`hold`) or a sampler's. */
static struct trace *trace_at_loc(struct tables *t, struct method_info *m, jlocation loc, bool hold)
{
    jvmtiFrameInfo raw = {m->id, loc};
    uint64_t h = traces_key_hash(0, &raw, 1);
    struct trace *tr = traces_find(&t->traces, h, 0, &raw, 1, hold);
    if (tr) return tr;
    struct frame **f = calloc(1, sizeof *f);
    f[0] = frames_of(&t->frames, m, loc);
    return traces_add(&t->traces, h, 0, &raw, 1, f, hold);
}

/* A sampler's sample of (m, loc), as the drain counts one. */
static struct trace *sample_at(struct tables *t, struct method_info *m, jlocation loc)
{
    traces_sampling_begin(&t->traces);
    struct trace *tr = trace_at_loc(t, m, loc, false);
    traces_add_samples(&t->traces, tr, 1);
    traces_sampling_end(&t->traces);
    return tr;
}

/* A window's end: its samples taken (as its file is written), then the idle forgotten. */
static uint32_t end_window(struct tables *t, uint32_t idle)
{
    for (uint32_t i = 0, n = traces_count(&t->traces); i < n; i++) {
        struct trace *tr = traces_at(&t->traces, i);
        if (tr) atomic_exchange(&tr->cpu_samples, 0);
    }
    return traces_forget_idle(&t->traces, idle);
}

static void forgetting(void)
{
    struct tables *t = calloc(1, sizeof *t);
    tables_init(t);
    struct method_info *m = methods_add(&t->methods, fake_method((jmethodID)(uintptr_t)0x9000, &t->classes.unknown),
                                        &t->classes.unknown, 0);
    struct trace *a = sample_at(t, m, 1), *b = sample_at(t, m, 2), *held = trace_at_loc(t, m, 3, true);
    struct trace *later = sample_at(t, m, 4);
    uint32_t a_serial = a->serial, a_index = a_serial - SERIAL_TRACE_BASE - 1;
    CHECK(a && b && held && later && atomic_load(&a->hold) == TRACE_SAMPLES_ONLY &&
              atomic_load(&held->hold) == TRACE_HELD,
          "a sampler's trace is only sampled, another lookup's held");
    CHECK(trace_at_loc(t, m, 4, true) == later && atomic_load(&later->hold) == TRACE_HELD,
          "a sampled trace another source looks up is held from then on");
    CHECK(end_window(t, 2) == 0, "window 0 ends: nothing idle yet");
    sample_at(t, m, 2);
    CHECK(end_window(t, 2) == 0, "window 1 ends: a stack last sampled in window 0 is kept (2 windows)");
    sample_at(t, m, 2);
    traces_sampling_begin(&t->traces);
    struct trace *pending = trace_at_loc(t, m, 5, false);
    traces_sampling_end(&t->traces);
    atomic_store(&pending->window, 0);
    atomic_store(&pending->calls, 1); /* counts not yet taken: never lost */
    CHECK(end_window(t, 2) == 1 && traces_forgotten(&t->traces) == 1, "window 2 ends: the idle sampled stack goes");
    jvmtiFrameInfo raw1 = {m->id, 1};
    CHECK(traces_find(&t->traces, traces_key_hash(0, &raw1, 1), 0, &raw1, 1, false) == NULL &&
              traces_at(&t->traces, a_index) == NULL && traces_raw_keys(&t->traces) == 4,
          "it is found no more, its slot is empty, its raw key gone");
    CHECK(traces_find(&t->traces, traces_key_hash(0, &raw1, 1), 0, &raw1, 1, true) == NULL,
          "nor by a source that would hold it");
    struct trace *again = sample_at(t, m, 1);
    CHECK(again && again->serial > a_serial &&
              traces_find(&t->traces, traces_key_hash(0, &raw1, 1), 0, &raw1, 1, false) == again,
          "seen again: a new trace with a new serial (%u after %u)", again ? again->serial : 0, a_serial);
    uint32_t again_index = again->serial - SERIAL_TRACE_BASE - 1, b_index = b->serial - SERIAL_TRACE_BASE - 1;
    for (int w = 0; w < 5; w++) end_window(t, 2);
    CHECK(traces_at(&t->traces, held->serial - SERIAL_TRACE_BASE - 1) == held &&
              traces_at(&t->traces, later->serial - SERIAL_TRACE_BASE - 1) == later &&
              traces_at(&t->traces, pending->serial - SERIAL_TRACE_BASE - 1) == pending,
          "held traces, and one with counts not yet taken, stay however idle");
    CHECK(traces_at(&t->traces, again_index) == NULL && traces_at(&t->traces, b_index) == NULL &&
              traces_forgotten(&t->traces) == 3,
          "the idle sampled ones all go (%llu forgotten)", (unsigned long long)traces_forgotten(&t->traces));
}

/*
 * Forgetting while other threads look up (make check runs this under TSan and ASan):
 * samplers count on stacks that come and go, a source holds the ones it finds, and the
 * window ends meanwhile. No trace a holder has is freed (ASan would see its reads), and
 * every sample is counted on a live trace or on one forgotten only after its count
 * was taken.
 */
#define FG_KEYS   300
#define FG_ROUNDS 40
static struct tables fg;
static struct method_info *fg_method;
static _Atomic int fg_running;
static _Atomic uint64_t fg_taken, fg_counted;

/* Each round samples half the keys, then waits for two windows to end (the main thread
 * ends them all along): a key the next round leaves out is forgotten meanwhile, whatever
 * the scheduling, and one it samples again is made again while the other sampler may be
 * looking it up. */
static void *fg_sampler(void *arg)
{
    uintptr_t me = (uintptr_t)arg;
    for (uint32_t r = 0; r < FG_ROUNDS; r++) {
        for (uint32_t k = 0; k < FG_KEYS; k++) {
            sample_at(&fg, fg_method, (jlocation)((k * 7 + me + r * 13) % (FG_KEYS * 2)));
            atomic_fetch_add(&fg_counted, 1);
        }
        uint32_t w = atomic_load(&fg.traces.window);
        while (atomic_load(&fg.traces.window) - w < 2) sched_yield();
    }
    atomic_fetch_sub(&fg_running, 1);
    return NULL;
}

static void *fg_holder(void *arg)
{
    struct trace *kept[64];
    int n = 0;
    for (uint32_t r = 0; r < FG_ROUNDS * 4; r++) {
        struct trace *tr = trace_at_loc(&fg, fg_method, (jlocation)((r * 37) % (FG_KEYS * 2)), true);
        if (tr && n < 64) kept[n++] = tr;
        for (int i = 0; i < n; i++) /* read after windows ended: freed, ASan says so */
            if (atomic_load(&kept[i]->hold) != TRACE_HELD) atomic_fetch_add(&mt_torn, 1);
    }
    atomic_fetch_sub(&fg_running, 1);
    return NULL;
}

static uint64_t fg_take_all(void)
{
    uint64_t sum = 0;
    for (uint32_t i = 0, n = traces_count(&fg.traces); i < n; i++) {
        struct trace *tr = traces_at(&fg.traces, i);
        if (tr) sum += atomic_exchange(&tr->cpu_samples, 0);
    }
    return sum;
}

static void concurrent_forgetting(void)
{
    tables_init(&fg);
    fg_method = methods_add(&fg.methods, fake_method((jmethodID)(uintptr_t)0xa000, &fg.classes.unknown),
                            &fg.classes.unknown, 0);
    atomic_store(&mt_torn, 0);
    atomic_store(&fg_running, 3);
    pthread_t th[3];
    for (uintptr_t i = 0; i < 2; i++) pthread_create(&th[i], NULL, fg_sampler, (void *)i);
    pthread_create(&th[2], NULL, fg_holder, NULL);
    uint32_t windows = 0;
    while (atomic_load(&fg_running) > 0) {
        /* the report's walk and the forgetting are kept apart by its locks; here by this thread */
        atomic_fetch_add(&fg_taken, fg_take_all());
        traces_forget_idle(&fg.traces, 1);
        windows++;
    }
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    atomic_fetch_add(&fg_taken, fg_take_all());
    CHECK(windows > 1 && traces_forgotten(&fg.traces) > 0,
          "2 samplers and a holder while %u windows end: %llu traces forgotten", windows,
          (unsigned long long)traces_forgotten(&fg.traces));
    CHECK(atomic_load(&fg_taken) == atomic_load(&fg_counted), "every sample taken once (%llu of %llu)",
          (unsigned long long)atomic_load(&fg_taken), (unsigned long long)atomic_load(&fg_counted));
    CHECK(atomic_load(&mt_torn) == 0, "a held trace is never forgotten");
}

/* ---- thread churn: entries come and go while others lend and read them ---- */

#define CHURN_THREADS 2000
static struct thread_table churn_table;
static struct ids churn_ids;
static _Atomic bool churn_done;

static void churn_reclaim(struct thread_table *tt)
{
    struct thread_info *held[8];
    bool gone[8] = {true, true, true, true, true, true, true, true};
    int n = threads_ended_take(tt, held, 8);
    for (struct thread_info *f = threads_ended_reclaim(tt, held, gone, n), *next; f; f = next) {
        next = f->next_ended;
        threads_free(f);
    }
}

/* Starts and ends n threads one after another, reclaiming those that ended (all "gone"). */
static void churn(struct thread_table *tt, int n)
{
    for (int i = 0; i < n; i++) {
        struct thread_info *ti = calloc(1, sizeof *ti);
        ti->ref = (jthread)(uintptr_t)(0x1000 + i);
        ti->name = strdup("churn");
        if (threads_add(tt, ti, &churn_ids) != 0) {
            threads_free(ti);
            continue;
        }
        threads_end(tt, ti);
        churn_reclaim(tt);
    }
}

static void *churn_writer(void *arg)
{
    churn(&churn_table, CHURN_THREADS);
    atomic_store(&churn_done, true);
    return NULL;
}

/* Lends the live threads and reads them, as the samplers and the dumps do. */
static void *churn_reader(void *arg)
{
    size_t seen = 0;
    while (!atomic_load(&churn_done)) {
        jthread refs[16];
        struct thread_info *infos[16];
        int n = threads_lend_live(&churn_table, refs, infos, 16);
        for (int i = 0; i < n; i++) seen += infos[i]->serial > SERIAL_THREAD_BASE && infos[i]->name[0] == 'c';
        for (int i = 0; i < n; i++) threads_release(&churn_table, infos[i]);
        threads_read_begin(&churn_table);
        threads_read_end(&churn_table);
        /* The real readers come now and then (a wall-clock tick): one that never let
         * go would put every reclaim off (each waits for no reader to be in). */
        nanosleep(&(struct timespec){0, 20000}, NULL);
    }
    return (void *)seen;
}

static void thread_churn(void)
{
    threads_init(&churn_table);
    ids_init(&churn_ids);
    pthread_t w, r;
    pthread_create(&r, NULL, churn_reader, NULL);
    pthread_create(&w, NULL, churn_writer, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    /* Those the reader held at the last turns: they pile up past a batch when it holds
     * them at turn after turn (how many depends on the scheduler, so no bound on slots
     * is asked of this part). */
    for (int k = 0; k < CHURN_THREADS && churn_table.nended; k++) churn_reclaim(&churn_table);
    CHECK(churn_table.nlive == 0 && churn_table.nended == 0 &&
              churn_table.next_serial == SERIAL_THREAD_BASE + 1 + CHURN_THREADS,
          "thread churn beside a reader: every entry reclaimed, serials never given twice (live %u, ended %u)",
          churn_table.nlive, churn_table.nended);
    /* With no reader in, every slot given back is taken again: the table does not grow. */
    uint32_t slots = churn_table.nslots;
    churn(&churn_table, CHURN_THREADS);
    CHECK(churn_table.nslots == slots && slots >= 1 && churn_table.nended == 0 &&
              churn_table.next_serial == SERIAL_THREAD_BASE + 1 + 2 * CHURN_THREADS,
          "then %d more one after another: the slots are reused (%u before, %u after)", CHURN_THREADS, slots,
          churn_table.nslots);
}

int main(void)
{
    struct tables *t = calloc(1, sizeof *t);
    tables_init(t);
    classes_and_methods(t);
    traces(t);
    threads(t);
    numbered_classes();
    loader_copies(t);

    tables_init(&shared);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, enter_methods, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    bool all = true;
    for (uintptr_t i = 1; i <= 2000; i++) {
        struct method_info *m = methods_find(&shared.methods, (jmethodID)i);
        all = all && m && m->id == (jmethodID)i &&
            methods_add(&shared.methods, fake_method((jmethodID)i, &shared.classes.unknown), &shared.classes.unknown,
                        0) == m;
    }
    CHECK(all, "4 threads entering 2000 methods: one entry each");
    concurrent_tables();
    forgetting();
    concurrent_forgetting();
    thread_churn();
    return UNIT_DONE();
}
