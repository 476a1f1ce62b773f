/* SPDX-License-Identifier: Apache-2.0 */
/* The objects held for heap=sites' live counts (sources/alloc/site_objects.c), through a
 * fake JNI whose weak references are tagged slots as HotSpot's are and whose "GC"
 * empties the slots of dead objects: sweeps count exactly the live objects whichever
 * way they read the references, ask the JVM only where they must, and a log's lock
 * keeps sweeps from another thread out of its thread's appends. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/alloc/site_objects.h"
#include "unit.h"

struct fake_obj {
    _Alignas(8) _Atomic int alive; /* aligned as Java objects are (notes keep tag bits below) */
};

/* Every slot made, so that the fake GC can empty those of dead objects. */
static void **slots[1 << 20];
static _Atomic size_t nslots;
static _Atomic size_t asked_null, deleted;
static uintptr_t tag = 1; /* HotSpot's weak tag; 0 makes the references unlike its */

static jweak JNICALL new_weak(JNIEnv *env, jobject obj)
{
    void **slot = malloc(sizeof *slot);
    if (!slot) return NULL;
    *slot = obj;
    size_t i = atomic_fetch_add(&nslots, 1);
    if (i < sizeof slots / sizeof *slots) slots[i] = slot;
    return (jweak)((uintptr_t)slot | tag);
}

static void *deref(jobject ref) { return ref ? *(void **)((uintptr_t)ref & ~(uintptr_t)3) : NULL; }

static void JNICALL delete_weak(JNIEnv *env, jweak ref)
{
    atomic_fetch_add(&deleted, 1);
    *(void **)((uintptr_t)ref & ~(uintptr_t)3) = (void *)1; /* freed: never read again */
}

static jboolean JNICALL same_object(JNIEnv *env, jobject a, jobject b)
{
    if (!b) atomic_fetch_add(&asked_null, 1);
    return deref(a) == (b ? deref(b) : NULL);
}

/* The fake collector: empties the slots of the objects no longer alive. */
static void fake_gc(struct site_objects *t)
{
    size_t n = atomic_load(&nslots);
    for (size_t i = 0; i < n; i++) {
        struct fake_obj *o = *slots[i];
        if (o && o != (void *)1 && !atomic_load(&o->alive)) *slots[i] = NULL;
    }
    site_objects_gc_finished(t);
}

struct counts {
    uint64_t objs[4], bytes[4];
};

static void add_live(uint32_t site, uint64_t size, uint32_t weight, void *ctx)
{
    struct counts *c = ctx;
    c->objs[site % 4]++;
    c->bytes[site % 4] += size;
}

static struct JNINativeInterface_ fns;
static JNIEnv env = &fns;

/* 12,000 objects at 4 sites, every third dead: a sweep finds 8,000 live. */
static void sweep_counts(const char *mode, bool pauses_only, size_t want_asked)
{
    struct site_objects t;
    site_objects_init(&t);
    struct fake_obj probe = {1};
    site_objects_read_slots(&t, &env, (jobject)&probe, pauses_only);
    CHECK_STR(site_objects_slots_name(&t), mode, "%s: the sweeps' way chosen", mode);
    static struct fake_obj objs[12000];
    struct site_log *l = site_objects_log(&t);
    for (int i = 0; i < 12000; i++) {
        atomic_store(&objs[i].alive, 1);
        site_objects_add(&t, l, &env, (jobject)&objs[i], (uint32_t)(i % 4), 16);
    }
    for (int i = 0; i < 12000; i += 3) atomic_store(&objs[i].alive, 0);
    fake_gc(&t);
    atomic_store(&asked_null, 0);
    atomic_store(&deleted, 0);
    struct counts c = {{0}, {0}};
    site_objects_sweep(&t, &env, add_live, &c);
    CHECK(c.objs[0] + c.objs[1] + c.objs[2] + c.objs[3] == 8000 && c.objs[0] == 2000 && c.objs[1] == 2000 &&
              c.objs[2] == 2000 && c.objs[3] == 2000 && c.bytes[1] == 32000,
          "%s: 8000 live, 2000 at each site (%llu %llu %llu %llu)", mode, (unsigned long long)c.objs[0],
          (unsigned long long)c.objs[1], (unsigned long long)c.objs[2], (unsigned long long)c.objs[3]);
    CHECK(atomic_load(&deleted) == 4000 && site_objects_held(&t) == 8000,
          "%s: the 4000 dead ones' references deleted (%zu), 8000 held (%zu)", mode, atomic_load(&deleted),
          site_objects_held(&t));
    CHECK(atomic_load(&asked_null) == want_asked, "%s: the JVM asked %zu times (want %zu)", mode,
          atomic_load(&asked_null), want_asked);
}

/* A thread appends while another sweeps its log again and again. */
struct appender {
    struct site_objects *t;
    struct site_log *l;
    struct fake_obj *objs;
    int n;
    _Atomic int done;
};

static void *append_all(void *arg)
{
    struct appender *a = arg;
    for (int i = 0; i < a->n; i++) site_objects_add(a->t, a->l, &env, (jobject)&a->objs[i], 1, 8);
    atomic_store(&a->done, 1);
    return NULL;
}

static void count_one(uint32_t site, uint64_t size, uint32_t weight, void *ctx) { ++*(uint64_t *)ctx; }

static void sweeps_beside_appends(void)
{
    struct site_objects t;
    site_objects_init(&t);
    struct fake_obj probe = {1};
    site_objects_read_slots(&t, &env, (jobject)&probe, true);
    enum { N = 100000 };
    struct fake_obj *objs = calloc(N, sizeof *objs);
    for (int i = 0; i < N; i++) atomic_store(&objs[i].alive, 1);
    struct appender a = {&t, site_objects_log(&t), objs, N, 0};
    pthread_t th;
    pthread_create(&th, NULL, append_all, &a);
    /* Sweeps back to back would keep the lock from the appender (it spins, then
     * sleeps); a dump sweeps each log once. So a pause after each. */
    int sweeps = 0; /* those that met the log part-filled */
    while (!atomic_load(&a.done)) {
        uint64_t seen = 0;
        site_objects_sweep(&t, &env, count_one, &seen);
        if (seen > 0 && seen < N) sweeps++;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    pthread_join(th, NULL);
    uint64_t live = 0;
    site_objects_sweep(&t, &env, count_one, &live);
    CHECK(live == N && site_objects_held(&t) == N,
          "a log swept %d times while its thread appended: all %d objects held (%llu)", sweeps, N,
          (unsigned long long)live);
    free(objs);
}

/* ---- alloc_sample=: weights ---- */

struct weighed {
    uint64_t objs, bytes;
};

static void add_weighed(uint32_t site, uint64_t size, uint32_t weight, void *ctx)
{
    struct weighed *w = ctx;
    w->objs += weight;
    w->bytes += size * weight;
}

static jlong tags[3000];
static struct fake_obj wobjs[3000];

static jvmtiError JNICALL set_tag(jvmtiEnv *jvmti, jobject obj, jlong value)
{
    tags[(struct fake_obj *)deref(obj) - wobjs] = value;
    return JVMTI_ERROR_NONE;
}

/*
 * Samples that stand for several objects each: the weight each was added with comes back
 * with it at every sweep, through the log's growth and the sweeps' compaction, and in
 * the tags a reference walk reads; entries added before the first weighed one weigh 1.
 */
static void weights(void)
{
    atomic_store(&nslots, 0);
    struct site_objects t;
    site_objects_init(&t);
    struct fake_obj probe = {1};
    site_objects_read_slots(&t, &env, (jobject)&probe, true);
    struct site_log *l = site_objects_log(&t);
    struct weighed want = {0, 0};
    for (int i = 0; i < 3000; i++) {
        atomic_store(&wobjs[i].alive, 1);
        uint32_t w = i < 10 ? 1 : (uint32_t)(i % 7) + 1;
        uint64_t size = 16 + (uint64_t)(i % 5) * 8;
        if (i < 10)
            site_objects_add(&t, l, &env, (jobject)&wobjs[i], 1, size);
        else
            site_objects_add_weighted(&t, l, &env, (jobject)&wobjs[i], 1, size, w);
        if (i % 3 == 0) continue; /* dies below */
        want.objs += w;
        want.bytes += w * size;
    }
    for (int i = 0; i < 3000; i += 3) atomic_store(&wobjs[i].alive, 0);
    fake_gc(&t);
    struct weighed got = {0, 0};
    site_objects_sweep(&t, &env, add_weighed, &got);
    CHECK(got.objs == want.objs && got.bytes == want.bytes,
          "weights: the live ones' weights and weighed bytes after a sweep (%llu %llu, want %llu %llu)",
          (unsigned long long)got.objs, (unsigned long long)got.bytes, (unsigned long long)want.objs,
          (unsigned long long)want.bytes);
    got = (struct weighed){0, 0};
    site_objects_sweep(&t, &env, add_weighed, &got);
    CHECK(got.objs == want.objs && got.bytes == want.bytes, "weights: the same at the next sweep (%llu %llu)",
          (unsigned long long)got.objs, (unsigned long long)got.bytes);
    struct jvmtiInterface_1_ jf;
    memset(&jf, 0, sizeof jf);
    jf.SetTag = set_tag;
    jvmtiEnv je = &jf;
    site_objects_tag(&t, &je, true);
    CHECK(site_objects_tag_site(tags[11]) == 1 && site_objects_tag_weight(tags[11]) == 5 &&
              site_objects_tag_weight(tags[1]) == 1,
          "weights: tags carry the site and the weight (%llx %llx)", (unsigned long long)tags[11],
          (unsigned long long)tags[1]);
    site_objects_tag(&t, &je, false);
    CHECK(tags[11] == 1, "weights: tags for a heap dump carry the site alone (%llx)", (unsigned long long)tags[11]);
}

/* ---- live=sampled: notes ---- */

static jweak JNICALL new_weak_of_local(JNIEnv *e, jobject local) { return new_weak(e, deref(local)); }
static jboolean JNICALL same_local(JNIEnv *e, jobject a, jobject b) { return deref(a) == (b ? deref(b) : NULL); }
static bool any_site(uint32_t site, void *ctx) { return true; }

struct sample_counts {
    uint64_t plain, samples;
};

static void count_samples(uint32_t site, uint64_t size, uint32_t weight, void *ctx)
{
    struct sample_counts *c = ctx;
    if (site & SITE_REF_SAMPLED)
        c->samples++;
    else
        c->plain++;
}

/*
 * Local references are slots, as HotSpot's are: a note tells its object from another
 * by address until a GC pause, never counts as live or held, is never "the last object
 * counted", and a sweep drops it (but the newest, which later VM events may ask about).
 */
static void notes(void)
{
    struct JNINativeInterface_ f = fns;
    f.NewWeakGlobalRef = new_weak_of_local;
    f.IsSameObject = same_local;
    JNIEnv e = &f;
    atomic_store(&nslots, 0); /* the fake GC forgets the earlier tests' objects */
    struct site_objects t;
    site_objects_init(&t);
    struct fake_obj probe = {1};
    void *probe_local = &probe;
    site_objects_read_slots(&t, &e, (jobject)&probe_local, false);
    CHECK(!site_objects_can_note(&t), "notes: off where the collector moves objects while the program runs");
    site_objects_read_slots(&t, &e, (jobject)&probe_local, true);
    CHECK(site_objects_can_note(&t), "notes: on where local references read as the weak ones, collector in pauses");
    static struct fake_obj objs[100];
    static void *locals[100];
    struct site_log *l = site_objects_log(&t);
    int noted = 0;
    for (int i = 0; i < 100; i++) {
        atomic_store(&objs[i].alive, 1);
        locals[i] = &objs[i];
        if (i % 2)
            noted += site_objects_note(&t, l, &e, (jobject)&locals[i], 1, 16);
        else
            site_objects_add(&t, l, &e, (jobject)&locals[i], 1 | (i % 4 == 0 ? SITE_REF_SAMPLED : 0), 16);
    }
    CHECK(noted == 50, "notes: 50 objects noted (%d)", noted);
    CHECK(site_objects_held(&t) == 50, "notes: 50 held, notes not counted (%zu)", site_objects_held(&t));
    struct fake_obj other = {1};
    void *other_local = &other;
    CHECK(!site_objects_is_last(&t, l, &e, (jobject)&locals[99]), "notes: a note is never the last object held");
    CHECK(site_objects_recent(&t, l, &e, (jobject)&locals[51], any_site, NULL, 16, 65536),
          "notes: a noted object is found again by its address");
    CHECK(site_objects_recent(&t, l, &e, (jobject)&locals[98], any_site, NULL, 16, 65536),
          "notes: a held object is found again");
    CHECK(!site_objects_recent(&t, l, &e, (jobject)&other_local, any_site, NULL, 16, 65536),
          "notes: an object never counted is not found");
    site_objects_gc_started(&t);
    CHECK(!site_objects_recent(&t, l, &e, (jobject)&locals[97], any_site, NULL, 16, 65536),
          "notes: during a GC pause a note matches nothing");
    site_objects_gc_finished(&t);
    CHECK(!site_objects_recent(&t, l, &e, (jobject)&locals[95], any_site, NULL, 16, 65536),
          "notes: a note taken before a GC pause matches nothing (its object may have moved)");
    CHECK(site_objects_recent(&t, l, &e, (jobject)&locals[96], any_site, NULL, 16, 65536),
          "notes: a held object is still found after the pause");
    for (int i = 0; i < 100; i += 8) atomic_store(&objs[i].alive, 0); /* 13 held ones, 7 of them samples */
    fake_gc(&t);
    struct sample_counts c = {0, 0};
    site_objects_sweep(&t, &e, count_samples, &c);
    CHECK(c.plain == 25 && c.samples == 12,
          "notes: the sweep counts held objects only: 25 plain, 12 samples (%llu %llu)", (unsigned long long)c.plain,
          (unsigned long long)c.samples);
    CHECK(site_objects_held(&t) == 37, "notes: 37 held after the sweep (%zu)", site_objects_held(&t));
    CHECK(l->n == 37, "notes: the notes from before the pause dropped by the sweep (%zu entries)", l->n);
    site_objects_note(&t, l, &e, (jobject)&locals[1], 1, 16);
    site_objects_sweep(&t, &e, count_samples, &c);
    CHECK(l->n == 38 && site_objects_recent(&t, l, &e, (jobject)&locals[1], any_site, NULL, 16, 65536),
          "notes: one taken since the last pause is kept by a sweep, and still found (%zu entries)", l->n);
}

int main(void)
{
    fns.NewWeakGlobalRef = new_weak;
    fns.DeleteWeakGlobalRef = delete_weak;
    fns.IsSameObject = same_object;
    /* G1, Parallel, Serial: the slots alone. ZGC, Shenandoah: the JVM asked about the
     * 8000 slots not empty. References unlike HotSpot's: asked about all 12000. */
    sweep_counts("slot", true, 0);
    sweep_counts("null slot", false, 8000);
    tag = 0;
    sweep_counts("JNI", true, 12000);
    tag = 1;
    sweeps_beside_appends();
    weights();
    notes();
    return UNIT_DONE();
}
