/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/jvm/gc_events.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_tracker.h"
#include "sources/host.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/perfdata.h"

#define RING 256 /* GCs queued for the thread; more in a burst are counted, not kept */

struct gc_events {
    struct perfdata perf;
    bool have_perf;
    jvmtiEventGarbageCollectionStart chained_start; /* the callbacks another source set */
    jvmtiEventGarbageCollectionFinish chained;
    /* The collection under way (the VM thread alone writes these). */
    uint64_t start_ns, start_us, used_before;
    uint32_t seq;
    struct tl_counts last_alloc; /* sites' totals at the previous GC */

    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct gc_record ring[RING];
    uint32_t head, tail; /* records tail..head-1 wait */
    uint64_t lost;
    bool stopping, running;
    _Atomic bool stopped; /* VM death: no more records */
    struct timeline_table table;
};

static struct gc_events *of(struct host *h) { return host_state(h, SOURCE_GC); }

struct timeline_table *gc_events_table(struct host *h)
{
    struct gc_events *g = of(h);
    return g ? &g->table : NULL;
}

/* ---- the GC callbacks: clock, counters, a queued record; no JNI, no JVMTI ---- */

static void JNICALL gc_start(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    struct gc_events *g = h ? of(h) : NULL;
    if (!g) return;
    if (g->chained_start) g->chained_start(jvmti);
    uint64_t committed;
    if (g->have_perf) perfdata_heap(&g->perf, &g->used_before, &committed);
    g->start_us = clock_wall_us();
    g->start_ns = clock_ns();
}

static void JNICALL gc_finish(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    struct gc_events *g = h ? of(h) : NULL;
    if (!g) return;
    if (atomic_load(&g->stopped)) {
        if (g->chained) g->chained(jvmti);
        return;
    }
    struct gc_record r = {.seq = ++g->seq, .start_us = g->start_us, .used_before = g->used_before};
    r.duration_ns = clock_ns() - g->start_ns; /* first: nothing of ours in it */
    /* heap=sites marks what its logs hold now: before the record is queued, so that the
     * thread's live count is this GC's. */
    if (g->chained) g->chained(jvmti);
    if (g->have_perf) perfdata_heap(&g->perf, &r.used_after, &r.committed);
    struct site_table *st = alloc_tracker_sites(h);
    /* callers=sampled: the counts are in the threads' own Java counters, read through
     * JNI, which a GC event cannot call: taken by the timeline's thread (deliver). */
    if (st && !alloc_tracker_counted(h)) {
        struct tl_counts now = timeline_snapshot(&g->table, st, r.seq);
        r.alloc_objs = now.objs - g->last_alloc.objs;
        r.alloc_bytes = now.bytes - g->last_alloc.bytes;
        g->last_alloc = now;
    }
    pthread_mutex_lock(&g->lock);
    if (g->head - g->tail < RING)
        g->ring[g->head++ % RING] = r;
    else
        g->lost++;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
}

/* ---- the timeline's thread ---- */

/* callers=sampled: the allocation counts up to now, as of the batch's last GC (a little
 * later than it: what the threads allocated since it ended is in too; GCs that came
 * faster than this thread share the record of their last). */
static void take_counts(struct host *h, JNIEnv *jni, struct gc_record *last)
{
    struct gc_events *g = of(h);
    struct site_table *st = alloc_tracker_sites(h);
    if (!st) return;
    alloc_tracker_collect(h, jni);
    struct tl_counts now = timeline_snapshot(&g->table, st, last->seq);
    last->alloc_objs = now.objs - g->last_alloc.objs;
    last->alloc_bytes = now.bytes - g->last_alloc.bytes;
    g->last_alloc = now;
}

/* Hands the queued records over: each GC's, and the allocation record after the last
 * one (timeline=gc) or when the period is over (timeline=<ms>). */
static void deliver(struct host *h, JNIEnv *jni, struct gc_record *batch, uint32_t n, bool tick)
{
    bool per_gc = h->opt->timeline == TIMELINE_GC;
    if (n && alloc_tracker_counted(h)) take_counts(h, jni, &batch[n - 1]);
    for (uint32_t i = 0; i < n; i++) h->services->timeline(h, jni, &batch[i], per_gc && i + 1 == n);
    if (tick) h->services->timeline(h, jni, NULL, true);
}

static void JNICALL timeline_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct gc_events *g = of(h);
    struct gc_record batch[RING];
    uint64_t period = (uint64_t)h->opt->timeline_ms * 1000000u, next = clock_ns() + period;
    bool timed = h->opt->timeline == TIMELINE_MS;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        if (g->head == g->tail) {
            if (!timed) {
                pthread_cond_wait(&g->wake, &g->lock);
            } else {
                struct timespec until = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
                pthread_cond_timedwait(&g->wake, &g->lock, &until);
            }
        }
        uint32_t n = 0;
        while (g->tail != g->head) batch[n++] = g->ring[g->tail++ % RING];
        bool tick = timed && clock_ns() >= next;
        if (tick) next += period * (1 + (clock_ns() - next) / period);
        if (!n && !tick) continue;
        pthread_mutex_unlock(&g->lock);
        deliver(h, jni, batch, n, tick);
        pthread_mutex_lock(&g->lock);
    }
    g->running = false;
    pthread_cond_broadcast(&g->wake);
    pthread_mutex_unlock(&g->lock);
}

/* ---- life cycle ---- */

static bool wanted(const struct options *o) { return o->timeline != TIMELINE_OFF; }

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    struct gc_events *g = calloc(1, sizeof *g);
    if (!g) return -1;
    jvmtiCapabilities want, have = host_potential_capabilities(h->jvmti);
    memset(&want, 0, sizeof want);
    want.can_generate_garbage_collection_events = 1;
    if (!have.can_generate_garbage_collection_events ||
        (*h->jvmti)->AddCapabilities(h->jvmti, &want) != JVMTI_ERROR_NONE) {
        log_error("timeline= needs the JVM's garbage collection events, which it does not give");
        free(g);
        return -1;
    }
    pthread_mutex_init(&g->lock, NULL);
    clock_cond_init(&g->wake);
    timeline_init(&g->table);
    /* heap=sites counts on the same events (alloc_live.c): its callbacks run from ours.
     * gc_events comes after alloc_tracker in SOURCES, so it sees the callbacks set. */
    g->chained_start = cb->GarbageCollectionStart;
    g->chained = cb->GarbageCollectionFinish;
    cb->GarbageCollectionStart = gc_start;
    cb->GarbageCollectionFinish = gc_finish;
    host_set_state(h, SOURCE_GC, g);
    return 0;
}

static void start(struct host *h, JNIEnv *jni)
{
    struct gc_events *g = of(h);
    /* The JVM maps its jvmstat file while it starts, before VMInit. */
    g->have_perf = perfdata_map_self(&g->perf);
    if (!g->have_perf)
        log_warning("timeline=: the JVM publishes no jvmstat counters (-XX:-UsePerfData?); heap used and "
                    "committed are written as 0");
    g->running = true;
    if (!host_start_thread(h, jni, "HPROF timeline thread", timeline_main, h)) {
        g->running = false;
        log_error("cannot start the timeline thread; no GC records are written");
        return;
    }
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
}

/* VM death: the thread writes what is queued and ends; GCs after (the last dump's)
 * get no record. The record count is said when some were lost in a burst. */
static void stop(struct host *h, JNIEnv *jni)
{
    struct gc_events *g = of(h);
    if (!g) return;
    (*h->jvmti)->SetEventNotificationMode(h->jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
    atomic_store(&g->stopped, true);
    pthread_mutex_lock(&g->lock);
    g->stopping = true;
    pthread_cond_broadcast(&g->wake);
    while (g->running) pthread_cond_wait(&g->wake, &g->lock);
    uint32_t n = 0;
    struct gc_record batch[RING];
    while (g->tail != g->head) batch[n++] = g->ring[g->tail++ % RING];
    uint64_t lost = g->lost;
    pthread_mutex_unlock(&g->lock);
    if (n) deliver(h, jni, batch, n, false);
    if (lost) log_warning("timeline=: %llu GCs came too fast to be recorded", (unsigned long long)lost);
}

const struct source gc_events_source = {
    .name = "gc_events",
    .wanted = wanted,
    .init = init,
    .start = start,
    .stop = stop,
};
