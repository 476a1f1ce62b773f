/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/monitor/monitor_events.h"

#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/monitor/juc_waits.h"
#include "sources/monitor/juc_waits_dump.h"
#include "sources/resolve.h"
#include "sources/source.h"
#include "tables/ids.h"
#include "tables/monitors.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/log.h"

/* What a thread is blocked on right now: set when it starts to block, taken when it stops. */
struct pending {
    struct monitor_entry *enter;
    uint64_t enter_start;
    struct monitor_entry *wait;
    uint64_t wait_start;
    jweak wait_object; /* what it waits on, for the MONITOR DUMP */
};

struct monitor_events {
    struct monitor_table contended; /* MonitorContendedEnter .. Entered: MONITOR TIME */
    struct monitor_table waits;     /* MonitorWait .. Waited: MONITOR WAIT TIME */
    pthread_mutex_t lock;           /* guards `slots` */
    /* By the thread's slot in the thread table: as many as threads held at once, each
     * emptied at its thread's end (thread_end) for the next thread given that slot. */
    struct pending *slots;
    size_t nslots;
    /* The serials of the threads that have ended, for MONITOR DUMP's ZO rows as the
     * original had them: 4 bytes a thread, all their entry keeps past its end. */
    uint32_t *ended;
    size_t nended, capended;
};

/* Threads hprof has no entry for (virtual threads, say, or one past its end) keep theirs here. */
static _Thread_local struct pending unknown_thread_pending;

/* The capabilities monitor=y needs, of those the VM offers. */
static int add_capabilities(jvmtiEnv *jvmti)
{
    jvmtiCapabilities want, have = host_potential_capabilities(jvmti);
    memset(&want, 0, sizeof want);
    want.can_generate_monitor_events = have.can_generate_monitor_events;
    want.can_get_monitor_info = have.can_get_monitor_info;
    want.can_get_owned_monitor_info = have.can_get_owned_monitor_info;
    want.can_get_current_contended_monitor = have.can_get_current_contended_monitor;
    return (*jvmti)->AddCapabilities(jvmti, &want) == JVMTI_ERROR_NONE ? 0 : -1;
}

static void set_callbacks(jvmtiEventCallbacks *cb);

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    if (add_capabilities(h->jvmti) != 0) {
        log_error("the JVM refused the JVMTI capabilities monitor=y needs");
        return -1;
    }
    struct monitor_events *m = calloc(1, sizeof *m);
    if (!m) return -1;
    monitors_init(&m->contended);
    monitors_init(&m->waits);
    pthread_mutex_init(&m->lock, NULL);
    host_set_state(h, SOURCE_MONITORS, m);
    set_callbacks(cb);
    if (juc_waits_init(h, &m->contended, &m->waits) != 0)
        log_warning("monitor=y: this JVM cannot rewrite java.util.concurrent's classes; only monitors are seen");
    return 0;
}

/*
 * Runs `fn` on the thread's pending slot with the slot lock held (the slot array may
 * grow under other threads). Threads without an entry use a thread-local slot.
 */
typedef void (*pending_fn)(struct pending *p, void *arg);

static void with_pending(struct monitor_events *m, const struct thread_info *ti, pending_fn fn, void *arg)
{
    if (!ti) {
        fn(&unknown_thread_pending, arg);
        return;
    }
    pthread_mutex_lock(&m->lock);
    if (grow_array_zeroed((void **)&m->slots, &m->nslots, (size_t)ti->slot + 1, sizeof *m->slots))
        fn(&m->slots[ti->slot], arg);
    pthread_mutex_unlock(&m->lock);
}

/* Is this an event we count? Live phase, a thread that is not ours. */
static struct host *counting(JNIEnv *jni, jthread thread)
{
    struct host *h = host_get();
    if (!h || !host_monitors(h) || atomic_load(&h->phase) != PHASE_LIVE) return NULL;
    if (host_is_own_current(h, jni, thread)) return NULL;
    return h;
}

/* The entry of the thread an event came on (its own: no lock needed, see resolve.h). */
static const struct thread_info *self_of(struct host *h, jthread thread) { return threads_lookup(h->jvmti, thread); }
static uint32_t serial_of(const struct thread_info *ti) { return ti ? ti->serial : 0; }

/* The trace of the thread's stack now (the empty trace if it has no Java frames). */
static struct trace *trace_now(struct host *h, JNIEnv *jni, jthread thread, uint32_t thread_serial)
{
    int depth = host_depth(h);
    jvmtiFrameInfo small[64];
    jvmtiFrameInfo *frames = depth <= 64 ? small : malloc((size_t)depth * sizeof *frames);
    struct trace *t = NULL;
    jint count = 0;
    if (frames && depth > 0 &&
        (*h->jvmti)->GetStackTrace(h->jvmti, thread, 0, depth, frames, &count) == JVMTI_ERROR_NONE && count > 0)
        t = traces_of(&h->t.traces, h->jvmti, jni, h->opt->thread ? thread_serial : 0, frames, count);
    if (frames != small) free(frames);
    return t ? t : &h->t.traces.empty;
}

static struct class_info *class_of(struct host *h, JNIEnv *jni, jobject object)
{
    jclass c = (*jni)->GetObjectClass(jni, object);
    struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, c, &h->t.ids);
    if (c) (*jni)->DeleteLocalRef(jni, c);
    return ci;
}

struct began {
    struct monitor_entry *e;
    uint64_t at;
    jweak object;
};

static void enter_began(struct pending *p, void *arg)
{
    struct began *b = arg;
    p->enter = b->e;
    p->enter_start = b->at;
}

static void wait_began(struct pending *p, void *arg)
{
    struct began *b = arg;
    p->wait = b->e;
    p->wait_start = b->at;
    b->object = p->wait_object; /* a stale one, should a Waited have been missed */
    p->wait_object = NULL;
}

static void wait_object_set(struct pending *p, void *arg) { p->wait_object = arg; }

static void enter_ended(struct pending *p, void *arg)
{
    struct began *b = arg;
    b->e = p->enter;
    b->at = p->enter_start;
    p->enter = NULL;
}

static void wait_ended(struct pending *p, void *arg)
{
    struct began *b = arg;
    b->e = p->wait;
    b->at = p->wait_start;
    b->object = p->wait_object;
    p->wait = NULL;
    p->wait_object = NULL;
}

static struct monitor_entry *entry_now(struct host *h, struct monitor_table *table, JNIEnv *jni, jthread thread,
                                       jobject object, uint32_t serial)
{
    struct trace *t = trace_now(h, jni, thread, serial);
    struct class_info *c = class_of(h, jni, object);
    return monitors_of(table, t, c, false);
}

static void JNICALL on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    struct host *h = counting(jni, thread);
    if (!h) return;
    const struct thread_info *ti = self_of(h, thread);
    struct began b = {entry_now(h, &host_monitors(h)->contended, jni, thread, object, serial_of(ti)), 0, NULL};
    if (!b.e) return;
    b.at = clock_ns();
    with_pending(host_monitors(h), ti, enter_began, &b);
}

static void JNICALL on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    uint64_t end = clock_ns();
    struct host *h = counting(jni, thread);
    if (!h) return;
    struct began b = {NULL, 0, NULL};
    with_pending(host_monitors(h), self_of(h, thread), enter_ended, &b);
    if (b.e) monitors_add(b.e, end > b.at ? end - b.at : 0);
}

static void JNICALL on_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jlong timeout)
{
    struct host *h = counting(jni, thread);
    if (!h) return;
    const struct thread_info *ti = self_of(h, thread);
    uint32_t serial = serial_of(ti);
    struct began b = {entry_now(h, &host_monitors(h)->waits, jni, thread, object, serial), 0, NULL};
    if (!b.e) return;
    host_record(h,
                &(struct live_record){.kind = LIVE_MONITOR_WAIT,
                                      .thread_serial = serial,
                                      .ms = (int64_t)timeout,
                                      .signature = b.e->cls->signature ? b.e->cls->signature : "<unknown>"});
    b.at = clock_ns();
    with_pending(host_monitors(h), ti, wait_began, &b);
    if (b.object) (*jni)->DeleteWeakGlobalRef(jni, b.object);
    /* Kept so that a dump can list the monitor: JVMTI no longer reports the monitor a
     * thread waits on in Object.wait as its contended monitor (JDK 23 and later). */
    if (ti) {
        jweak w = (*jni)->NewWeakGlobalRef(jni, object);
        if (w) with_pending(host_monitors(h), ti, wait_object_set, w);
    }
}

static void JNICALL on_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jboolean timed_out)
{
    uint64_t end = clock_ns();
    struct host *h = counting(jni, thread);
    if (!h) return;
    const struct thread_info *ti = self_of(h, thread);
    uint32_t serial = serial_of(ti);
    struct began b = {NULL, 0, NULL};
    with_pending(host_monitors(h), ti, wait_ended, &b);
    if (b.object) (*jni)->DeleteWeakGlobalRef(jni, b.object);
    if (!b.e) return;
    uint64_t ns = end > b.at ? end - b.at : 0;
    monitors_add(b.e, ns);
    host_record(h,
                &(struct live_record){.kind = LIVE_MONITOR_WAITED,
                                      .thread_serial = serial,
                                      .ms = (int64_t)(ns / 1000000u),
                                      .signature = b.e->cls->signature ? b.e->cls->signature : "<unknown>"});
}

static void set_callbacks(jvmtiEventCallbacks *cb)
{
    cb->MonitorContendedEnter = on_contended_enter;
    cb->MonitorContendedEntered = on_contended_entered;
    cb->MonitorWait = on_wait;
    cb->MonitorWaited = on_waited;
}

/* The events on (VM init, an attached profile resumed) or off (paused). */
static void monitor_events_enable(struct host *h, bool on)
{
    static const jvmtiEvent events[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                        JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};
    if (!host_monitors(h)) return;
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if ((*h->jvmti)->SetEventNotificationMode(h->jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, events[i], NULL) !=
                JVMTI_ERROR_NONE &&
            on) {
            log_warning("monitor=y: the JVM cannot report monitor events; no monitor times will be gathered");
            break;
        }
    juc_waits_enable(h, NULL, on);
}

static void start(struct host *h, JNIEnv *jni)
{
    monitor_events_enable(h, true);
    juc_waits_start(h, jni);
}

static void stop(struct host *h, JNIEnv *jni) { juc_waits_enable(h, jni, false); }

static void enable(struct host *h, JNIEnv *jni, const struct options *o, bool on) { monitor_events_enable(h, on); }

static void note_ended(struct monitor_events *m, uint32_t serial)
{
    pthread_mutex_lock(&m->lock);
    if (m->nended == m->capended) {
        size_t cap = m->capended ? m->capended * 2 : 64;
        uint32_t *e = realloc(m->ended, cap * sizeof *e);
        if (e) m->ended = e, m->capended = cap;
    }
    if (m->nended < m->capended) m->ended[m->nended++] = serial;
    pthread_mutex_unlock(&m->lock);
}

/* The thread's slot, emptied for the next thread given it (on the ending thread, before
 * the thread table lets its entry go: sources end in reverse order). */
static void thread_end(struct host *h, JNIEnv *jni, jthread thread)
{
    if (!host_monitors(h)) return;
    juc_waits_thread_end(h, jni, thread);
    const struct thread_info *ti = self_of(h, thread); /* NULL for the agent's own */
    if (!ti) return;
    struct began b = {NULL, 0, NULL};
    with_pending(host_monitors(h), ti, wait_ended, &b);
    if (b.object) (*jni)->DeleteWeakGlobalRef(jni, b.object);
    with_pending(host_monitors(h), ti, enter_ended, &b);
    note_ended(host_monitors(h), ti->serial);
}

/* ---- the dump ---- */

/* A snapshot being filled, with the monitors it has met so far. */
struct dump_state {
    struct monitor_snapshot *snap;
    jobject *objects; /* global references to the monitors seen */
    size_t nobjects, capobjects;
};

static void note_monitor(JNIEnv *jni, struct dump_state *d, jobject o)
{
    if (!o) return;
    for (size_t i = 0; i < d->nobjects; i++)
        if ((*jni)->IsSameObject(jni, d->objects[i], o)) return;
    if (!grow_array((void **)&d->objects, &d->capobjects, d->nobjects + 1, sizeof *d->objects)) return;
    jobject g = (*jni)->NewGlobalRef(jni, o);
    if (g) d->objects[d->nobjects++] = g;
}

/* One live thread's trace and state now, and the monitors it owns or waits for. */
static void gather_thread(struct host *h, JNIEnv *jni, struct dump_state *d, jthread thread, uint32_t serial)
{
    jvmtiEnv *jvmti = h->jvmti;
    struct monitor_dump_thread *t = &d->snap->threads[d->snap->nthreads++];
    t->serial = serial;
    t->trace_serial = SERIAL_TRACE_BASE;
    t->state = JVMTI_THREAD_STATE_TERMINATED;
    if ((*jni)->PushLocalFrame(jni, 64) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    jint state = 0;
    if ((*jvmti)->GetThreadState(jvmti, thread, &state) == JVMTI_ERROR_NONE) t->state = state;
    if (state & JVMTI_THREAD_STATE_ALIVE) {
        t->trace_serial = trace_now(h, jni, thread, serial)->serial;
        jint nowned = 0;
        jobject *owned = NULL;
        if ((*jvmti)->GetOwnedMonitorInfo(jvmti, thread, &nowned, &owned) == JVMTI_ERROR_NONE) {
            for (jint k = 0; k < nowned; k++) note_monitor(jni, d, owned[k]);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)owned);
        }
        jobject contended = NULL;
        if ((*jvmti)->GetCurrentContendedMonitor(jvmti, thread, &contended) == JVMTI_ERROR_NONE)
            note_monitor(jni, d, contended);
    }
    (*jni)->PopLocalFrame(jni, NULL);
}

/* By serial; of two rows of one thread (ended just now, still on the live list), the
 * live one first. */
static int by_serial(const void *x, const void *y)
{
    const struct monitor_dump_thread *a = x, *b = y;
    if (a->serial != b->serial) return (a->serial > b->serial) - (a->serial < b->serial);
    bool ta = a->state & JVMTI_THREAD_STATE_TERMINATED, tb = b->state & JVMTI_THREAD_STATE_TERMINATED;
    return ta - tb;
}

/* The threads that ended, terminated (ZO); then all in serial order, one row a thread. */
static void add_ended(struct monitor_events *m, struct monitor_snapshot *snap, size_t room)
{
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nended && (size_t)snap->nthreads < room; i++)
        snap->threads[snap->nthreads++] =
            (struct monitor_dump_thread){m->ended[i], SERIAL_TRACE_BASE, JVMTI_THREAD_STATE_TERMINATED};
    pthread_mutex_unlock(&m->lock);
    qsort(snap->threads, snap->nthreads, sizeof *snap->threads, by_serial);
    int n = 0;
    for (int i = 0; i < snap->nthreads; i++)
        if (n == 0 || snap->threads[i].serial != snap->threads[n - 1].serial) snap->threads[n++] = snap->threads[i];
    snap->nthreads = n;
}

/* Every thread, as the original dumped them: the live ones with their state, the ended
 * ones as terminated; in serial order. The live entries are lent, so none is freed
 * meanwhile; one that ends meanwhile is terminated. */
static void gather_threads(struct host *h, JNIEnv *jni, struct dump_state *d)
{
    struct monitor_snapshot *snap = d->snap;
    int max = threads_live_count(&h->t.threads) + 16;
    pthread_mutex_lock(&host_monitors(h)->lock);
    size_t room = (size_t)max + host_monitors(h)->nended + 16;
    pthread_mutex_unlock(&host_monitors(h)->lock);
    jthread *refs = calloc((size_t)max, sizeof *refs);
    struct thread_info **infos = calloc((size_t)max, sizeof *infos);
    snap->threads = calloc(room, sizeof *snap->threads);
    int n = refs && infos && snap->threads ? threads_lend_live(&h->t.threads, refs, infos, max) : 0;
    for (int i = 0; i < n; i++) gather_thread(h, jni, d, refs[i], infos[i]->serial);
    threads_give_back(&h->t.threads, infos, n);
    if (snap->threads) add_ended(host_monitors(h), snap, room);
    free(refs);
    free(infos);
}

static uint32_t *serials_of(struct host *h, JNIEnv *jni, jthread *threads, jint n, jthread *skip, jint nskip,
                            int *out_n)
{
    *out_n = 0;
    uint32_t *s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    for (jint i = 0; i < n; i++) {
        bool skipped = false;
        for (jint k = 0; k < nskip && !skipped; k++) skipped = (*jni)->IsSameObject(jni, threads[i], skip[k]);
        uint32_t serial = skipped ? 0 : threads_serial(&h->t.threads, h->jvmti, threads[i]);
        if (s && serial) s[(*out_n)++] = serial;
    }
    return s;
}

/* The monitors threads wait on in Object.wait, from the waits under way. */
static void gather_waited_on(struct host *h, JNIEnv *jni, struct dump_state *d)
{
    struct monitor_events *m = host_monitors(h);
    if ((*jni)->PushLocalFrame(jni, 16) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 0; i < m->nslots; i++) {
        if (!m->slots[i].wait_object) continue;
        jobject o = (*jni)->NewLocalRef(jni, m->slots[i].wait_object);
        if (!o) continue;
        note_monitor(jni, d, o);
        (*jni)->DeleteLocalRef(jni, o);
    }
    pthread_mutex_unlock(&m->lock);
    (*jni)->PopLocalFrame(jni, NULL);
}

/* Owner, entry count and waiters of every monitor seen. */
static void gather_monitors(struct host *h, JNIEnv *jni, struct dump_state *d)
{
    jvmtiEnv *jvmti = h->jvmti;
    struct monitor_snapshot *snap = d->snap;
    snap->mons = calloc(d->nobjects ? d->nobjects : 1, sizeof *snap->mons);
    if (!snap->mons) return;
    for (size_t i = 0; i < d->nobjects; i++) {
        if ((*jni)->PushLocalFrame(jni, 64) != JNI_OK) {
            (*jni)->ExceptionClear(jni);
            continue;
        }
        jvmtiMonitorUsage u;
        memset(&u, 0, sizeof u);
        if ((*jvmti)->GetObjectMonitorUsage(jvmti, d->objects[i], &u) == JVMTI_ERROR_NONE) {
            struct monitor_dump_monitor *m = &snap->mons[snap->nmons++];
            struct class_info *c = class_of(h, jni, d->objects[i]);
            m->signature = c->signature ? c->signature : "<unknown>";
            m->owner = u.owner ? threads_serial(&h->t.threads, h->jvmti, u.owner) : 0;
            m->entry_count = u.entry_count;
            /* Older VMs count the threads waiting to be notified among those waiting
             * to enter as well; each is listed once, where it belongs. */
            m->enter_waiters = serials_of(h, jni, u.waiters, u.waiter_count, u.notify_waiters, u.notify_waiter_count,
                                          &m->nenter_waiters);
            m->notify_waiters =
                serials_of(h, jni, u.notify_waiters, u.notify_waiter_count, NULL, 0, &m->nnotify_waiters);
            if (u.waiters) (*jvmti)->Deallocate(jvmti, (unsigned char *)u.waiters);
            if (u.notify_waiters) (*jvmti)->Deallocate(jvmti, (unsigned char *)u.notify_waiters);
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
}

/* The global references go; what the snapshot keeps is plain data. */
static void release_objects(JNIEnv *jni, struct dump_state *d)
{
    for (size_t i = 0; i < d->nobjects; i++) (*jni)->DeleteGlobalRef(jni, d->objects[i]);
    free(d->objects);
}

bool monitor_events_snapshot(struct host *h, JNIEnv *jni, struct monitor_snapshot *snap)
{
    memset(snap, 0, sizeof *snap);
    if (!host_monitors(h) || !jni) return false;
    monitors_rank(&host_monitors(h)->contended, true, h->opt->cutoff, &snap->contended);
    monitors_rank(&host_monitors(h)->waits, true, h->opt->cutoff, &snap->waits);
    struct dump_state d = {.snap = snap};
    gather_threads(h, jni, &d);
    gather_waited_on(h, jni, &d);
    gather_monitors(h, jni, &d);
    release_objects(jni, &d);
    juc_waits_dump(h, jni, snap);
    return true;
}

static bool wanted(const struct options *o) { return o->monitor; }

const struct source monitor_events_source = {
    .name = "monitors",
    .wanted = wanted,
    .init = init,
    .start = start,
    .stop = stop,
    .enable = enable,
    .thread_end = thread_end,
};
