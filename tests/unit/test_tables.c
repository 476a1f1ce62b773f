/* The tables without a JVM: they hold plain data, which sources/resolve.c names. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables/bci_classes.h"
#include "tables/ids.h"
#include "tables/object_ids.h"
#include "tables/monitors.h"
#include "tables/sites.h"
#include "tables/tables.h"
#include "unit.h"

static struct method_info *fake_method(jmethodID id, struct class_info *cls)
{
    struct method_info *m = calloc(1, sizeof *m);
    m->id = id;
    m->cls = cls;
    m->name = strdup("run");
    m->signature = strdup("()V");
    return m;
}

static void classes_and_methods(struct tables *t)
{
    struct class_info *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(classes_add(&t->classes, a, &t->ids) == 0 && classes_add(&t->classes, b, &t->ids) == 0, "two classes entered");
    CHECK(a->serial == SERIAL_CLASS_BASE + 1 && b->serial == SERIAL_CLASS_BASE + 2, "class serials in order");
    CHECK(a->object_id == ID_OBJECT_BASE + 1 && b->object_id == ID_OBJECT_BASE + 2, "class object IDs in order");
    CHECK(classes_count(&t->classes) == 2 && classes_at(&t->classes, 1) == b, "classes listed in order");

    jmethodID id = (jmethodID)(uintptr_t)0x1000;
    CHECK(methods_find(&t->methods, id) == NULL, "a method not entered is not found");
    struct method_info *m = methods_add(&t->methods, fake_method(id, a));
    CHECK(m && methods_find(&t->methods, id) == m, "a method entered is found");
    CHECK(methods_add(&t->methods, fake_method(id, b)) == m, "a second entry of one method gives the first");

    m->lines = calloc(2, sizeof *m->lines);
    m->lines[0] = (jvmtiLineNumberEntry){0, 10};
    m->lines[1] = (jvmtiLineNumberEntry){5, 12};
    m->nlines = 2;
    CHECK(methods_line(m, 3) == 10 && methods_line(m, 5) == 12 && methods_line(m, -1) == LINE_UNKNOWN,
          "lines from the line table");
}

static void traces(struct tables *t)
{
    struct method_info *m = methods_add(&t->methods, fake_method((jmethodID)(uintptr_t)0x2000, &t->classes.unknown));
    jvmtiFrameInfo raw[2] = {{(jmethodID)(uintptr_t)0x2000, 7}, {(jmethodID)(uintptr_t)0x2000, -1}};
    uint64_t h = traces_key_hash(0, raw, 2);
    CHECK(traces_find(&t->traces, h, 0, raw, 2) == NULL, "a trace not entered is not found");
    struct frame **f = calloc(2, sizeof *f);
    f[0] = frames_of(&t->frames, m, 7);
    f[1] = frames_of(&t->frames, m, -1);
    CHECK(f[0] && f[0] == frames_of(&t->frames, m, 7) && f[0] != f[1], "one frame per method and location");
    struct trace *tr = traces_add(&t->traces, h, 0, raw, 2, f);
    CHECK(tr && tr->serial == SERIAL_TRACE_BASE + 1 && tr->frames == f, "a trace entered keeps its frames");
    CHECK(traces_find(&t->traces, h, 0, raw, 2) == tr && traces_key_equals(tr, 0, raw, 2), "and is found by its key");
    struct frame **again = calloc(2, sizeof *again);
    CHECK(traces_add(&t->traces, h, 0, raw, 2, again) == tr, "a second entry of one trace gives the first");
    CHECK(traces_find(&t->traces, traces_key_hash(200001, raw, 2), 200001, raw, 2) == NULL,
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

static void numbered_classes(void)
{
    struct bci_class_table t;
    bci_classes_init(&t);
    struct bci_class *boot = bci_classes_add(&t, "p/A", NULL);
    struct bci_class *app = bci_classes_add(&t, "p/A", (jweak)(uintptr_t)0x10);
    CHECK(boot && app && boot->cnum == 1 && app->cnum == 2 && bci_classes_get(&t, 2) == app, "classes by number");
    CHECK(bci_classes_named(&t, "p/A") == app && app->same_name == boot && !boot->same_name,
          "the classes of one name, newest first");
    CHECK(bci_classes_named(&t, "p/B") == NULL, "no class of another name");
    char *names[] = {"<init>", "run"}, *descs[] = {"()V", "(I)V"};
    CHECK(bci_classes_set_methods(app, 2, names, descs) == 0, "methods listed");
    bci_classes_name_method(app, "run", "(I)V", (jmethodID)(uintptr_t)0x42);
    bci_classes_name_method(app, "run", "()V", (jmethodID)(uintptr_t)0x43);
    CHECK(atomic_load(&app->ids[1]) == (jmethodID)(uintptr_t)0x42 && atomic_load(&app->ids[0]) == NULL,
          "a method is named by name and descriptor");
}

/* Threads entering the same methods at once: one entry each. */
static struct tables shared;

static void *enter_methods(void *arg)
{
    for (uintptr_t i = 1; i <= 2000; i++)
        if (!methods_find(&shared.methods, (jmethodID)i))
            methods_add(&shared.methods, fake_method((jmethodID)i, &shared.classes.unknown));
    return NULL;
}

/*
 * The tables as the agent's threads use them at once (make check runs this under TSan):
 * four writers enter the same names, frames, traces, sites and monitors and count on
 * them, while a reader walks the registries as a dump does. Each entry is made once, its
 * ID in order, every count kept, and the reader sees only whole entries.
 */
#define MT_KEYS 500
#define MT_WRITERS 4
static struct site_table mt_sites;
static struct monitor_table mt_monitors;
static struct method_info *mt_methods[MT_KEYS];
static struct class_info mt_class;
static _Atomic int mt_writing;
static _Atomic int mt_torn;   /* entries the reader saw half made */

static void mt_enter(uint32_t k)
{
    char name[32];
    snprintf(name, sizeof name, "name-%u", k);
    bool is_new;
    strings_id(&shared.strings, name, &is_new);
    jvmtiFrameInfo raw = {mt_methods[k]->id, (jlocation)k};
    uint64_t h = traces_key_hash(0, &raw, 1);
    struct trace *t = traces_find(&shared.traces, h, 0, &raw, 1);
    if (!t) {
        struct frame **f = calloc(1, sizeof *f);
        f[0] = frames_of(&shared.frames, mt_methods[k], (jlocation)k);
        t = traces_add(&shared.traces, h, 0, &raw, 1, f);
    }
    atomic_fetch_add(&t->cpu_samples, 1);
    struct site *site = sites_of(&mt_sites, t, &mt_class);
    atomic_fetch_add(&site->alloc_objs, 1);
    atomic_fetch_add(&site->alloc_bytes, 16);
    monitors_add(monitors_of(&mt_monitors, t, &mt_class), 10);
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
            if (!t || (t->nframes && (!t->frames || !t->frames[0] || !t->frames[0]->method))) atomic_fetch_add(&mt_torn, 1);
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
        mt_methods[k] = methods_add(&shared.methods, fake_method((jmethodID)(uintptr_t)(0x100000 + k), &mt_class));
    uint32_t traces0 = traces_count(&shared.traces);
    atomic_store(&mt_writing, MT_WRITERS);
    pthread_t th[MT_WRITERS + 1];
    pthread_create(&th[MT_WRITERS], NULL, mt_reader, NULL);
    for (uintptr_t i = 0; i < MT_WRITERS; i++) pthread_create(&th[i], NULL, mt_writer, (void *)i);
    for (int i = 0; i <= MT_WRITERS; i++) pthread_join(th[i], NULL);

    bool once = traces_count(&shared.traces) - traces0 == MT_KEYS && sites_count(&mt_sites) == MT_KEYS &&
                monitors_count(&mt_monitors) == MT_KEYS;
    uint64_t samples = 0, objs = 0, events = 0;
    for (uint32_t i = traces0; i < traces_count(&shared.traces); i++) samples += traces_at(&shared.traces, i)->cpu_samples;
    for (uint32_t i = 1; i <= sites_count(&mt_sites); i++) objs += sites_by_id(&mt_sites, i)->alloc_objs;
    for (uint32_t i = 0; i < monitors_count(&mt_monitors); i++) events += monitors_at(&mt_monitors, i)->count;
    CHECK(once, "%d threads entering %d traces, sites and monitors at once: one entry each", MT_WRITERS, MT_KEYS);
    CHECK(samples == MT_WRITERS * MT_KEYS && objs == samples && events == samples,
          "and every count kept (%llu samples, %llu objects, %llu monitor events)", (unsigned long long)samples,
          (unsigned long long)objs, (unsigned long long)events);
    bool is_new = false;
    uint32_t id = strings_id(&shared.strings, "name-7", &is_new);
    CHECK(id && !is_new, "a string entered by four threads at once has one ID");
    CHECK(atomic_load(&mt_torn) == 0, "a reader walking the tables meanwhile saw only whole entries");
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

/* Starts and ends threads one after another, reclaiming those that ended (all "gone"). */
static void *churn_writer(void *arg)
{
    struct thread_table *tt = &churn_table;
    for (int i = 0; i < CHURN_THREADS; i++) {
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
    churn_reclaim(&churn_table);     /* those the reader held at the last turns */
    CHECK(churn_table.nlive == 0 && churn_table.nended == 0 && churn_table.nslots <= 16 &&
              churn_table.next_serial == SERIAL_THREAD_BASE + 1 + CHURN_THREADS,
          "thread churn: every entry reclaimed, slots reused, serials never given twice");
}

int main(void)
{
    struct tables *t = calloc(1, sizeof *t);
    tables_init(t);
    classes_and_methods(t);
    traces(t);
    threads(t);
    numbered_classes();

    tables_init(&shared);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, enter_methods, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    bool all = true;
    for (uintptr_t i = 1; i <= 2000; i++) {
        struct method_info *m = methods_find(&shared.methods, (jmethodID)i);
        all = all && m && m->id == (jmethodID)i && methods_add(&shared.methods, fake_method((jmethodID)i, NULL)) == m;
    }
    CHECK(all, "4 threads entering 2000 methods: one entry each");
    concurrent_tables();
    thread_churn();
    return UNIT_DONE();
}
