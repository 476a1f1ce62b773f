/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/signal_sampler.h"
#include "sources/cpu/call_counts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/cpu/jvmti_sampler.h"
#include "sources/cpu/native_frames.h"
#include "sources/cpu/native_threads.h"
#include "sources/cpu/perf_events.h"
#include "sources/cpu/pseudo_frames.h"
#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/hotspot/running_threads.h"
#include "sources/cpu/signal_handler.h"
#include "sources/cpu/signal_timers.h"
#include "sources/cpu/signal_internal.h"
#include "sources/jvm/thread_events.h"
#include "sources/hotspot/vm_flags.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/pacer.h"
#include "util/env.h"

#define RING_SLOTS  2048
#define MIN_FRAMES  64
#define MAX_FRAMES  1024
#define MAX_THREADS 16384
#define DRAIN_MS    20
#define RESCAN_MS   200 /* how often the threads that are not Java threads are listed */
#define MAX_NATIVES 1024

/* Pseudo-methods: IDs no real jmethodID can have (those are addresses in the VM). */
#define PSEUDO_REASON(r) ((jmethodID)(uintptr_t)(0x100 + (r)*16))
#define PSEUDO_STATE(s)  ((jmethodID)(uintptr_t)(0x1000 + (s)*16))
#define PSEUDO_NO_ID     ((jmethodID)(uintptr_t)0x2000)

/* AsyncGetCallTrace's codes 0 ... -10 as HotSpot names them, then the agent's. */
static const char *const REASON_NAMES[REASON_COUNT] = {
    [REASON_AGCT_FIRST + 0] = "no_Java_frame",
    [REASON_AGCT_FIRST + 1] = "no_class_load",
    [REASON_AGCT_FIRST + 2] = "GC_active",
    [REASON_AGCT_FIRST + 3] = "unknown_not_Java",
    [REASON_AGCT_FIRST + 4] = "not_walkable_not_Java",
    [REASON_AGCT_FIRST + 5] = "unknown_Java",
    [REASON_AGCT_FIRST + 6] = "not_walkable_Java",
    [REASON_AGCT_FIRST + 7] = "unknown_state",
    [REASON_AGCT_FIRST + 8] = "thread_exit",
    [REASON_AGCT_FIRST + 9] = "deopt",
    [REASON_AGCT_FIRST + 10] = "safepoint",
    [REASON_FAULT] = "walk_faulted",
    [REASON_LOST] = "buffer_full",
    [REASON_NOT_JAVA] = "not_a_Java_thread",
    [REASON_OTHER] = "other",
};
static const char *const STATE_NAMES[STATE_COUNT] = {
    [STATE_RUNNABLE] = "RUNNABLE", [STATE_NATIVE] = "IN_NATIVE",  [STATE_BLOCKED] = "BLOCKED",
    [STATE_WAITING] = "WAITING",   [STATE_SLEEPING] = "SLEEPING", [STATE_PARKED] = "PARKED",
};

/* The handler's part first (the host's state points at it), then the drain's. */
struct cpu_signal {
    struct signal_sampler s;
    struct pacer pace;          /* the thread's rounds */
    pthread_mutex_t drain_lock; /* the ring has one consumer at a time */
    pthread_mutex_t timer_lock; /* a timer is armed or disarmed, or deleted, at a time */
    _Atomic bool fell_back;     /* the JVMTI sampler took over */
    bool said_no_timer;
    jvmtiFrameInfo *frames;         /* the drain's, MAX_FRAMES + 2 */
    struct native_threads *natives; /* threads=all: their frames (the drain's) */
    struct native_frames *native;   /* native=y: the native frames (the drain's) */
};

static struct cpu_signal *of(struct host *h) { return host_state(h, SOURCE_SIGNAL_SAMPLER); }

/* ---- pseudo-frames ---- */

/* The methods the profile shows instead of a stack: why there is none, the state. */
static void make_pseudo_frames(struct host *h, bool wall)
{
    struct class_info *failed = pseudo_class(h, "[walk_failed]");
    if (failed) {
        for (int r = REASON_AGCT_FIRST; r < REASON_COUNT; r++)
            pseudo_method(h, failed, PSEUDO_REASON(r), REASON_NAMES[r]);
        pseudo_method(h, failed, PSEUDO_NO_ID, "method_without_ID");
    }
    struct class_info *state = wall ? pseudo_class(h, "[thread_state]") : NULL;
    for (int s = STATE_RUNNABLE; state && s < STATE_COUNT; s++)
        pseudo_method(h, state, PSEUDO_STATE(s), STATE_NAMES[s]);
}

/* ---- the drain ---- */

static void count(struct host *h, JNIEnv *jni, uint32_t thread_serial, const jvmtiFrameInfo *f, int n, uint64_t weight)
{
    uint32_t serial = h->opt->thread ? thread_serial : 0;
    struct trace *t = traces_of_sample(&h->t.traces, h->jvmti, jni, serial, f, n);
    if (t) traces_add_samples(&h->t.traces, t, weight);
    call_counts_sampled(h, t, weight);
}

/* One sample into the trace table: its frames (the top `depth`), or the reason it has
 * none, then with clock=wall the thread's state. */
static void record(struct host *h, struct cpu_signal *c, JNIEnv *jni, const struct sample *smp, int depth)
{
    if (smp->flags & SAMPLE_NOT_SAMPLED) return; /* sampling off for this thread (socket CONTROL) */
    jvmtiFrameInfo *f = c->frames;
    int n = 0;
    if (smp->flags & SAMPLE_NATIVE) {
        n = c->natives ? native_threads_frames(c->natives, c->native, smp, f, depth) : 0;
        if (n > 0) count(h, jni, 0, f, n, smp->weight);
        return;
    }
    /* A thread in native code or in the VM: its native frames on top (native=y). */
    int nn = c->native ? native_frames_count(smp->frames, smp->nframes) : 0;
    if (nn) n = native_frames_convert(c->native, smp->frames, nn, f, depth);
    if (smp->reason != REASON_NONE && call_counts_wanted(h->opt)) {
        call_counts_set_apart(h, APART_UNWALKED, smp->weight); /* CPU TIME lists methods: said apart */
        return;
    } else if (smp->reason != REASON_NONE) {
        if (n < depth)
            f[n++] = (jvmtiFrameInfo){PSEUDO_REASON(smp->reason < REASON_COUNT ? smp->reason : REASON_OTHER), -1};
    } else if (call_counts_wanted(h->opt)) {
        /* all the frames walked (f has room for them): the Tracker's may be under the top */
        for (; n < smp->nframes && n < MAX_FRAMES; n++)
            f[n] = (jvmtiFrameInfo){(jmethodID)smp->frames[n].method, smp->frames[n].location == -3 ? -1 : 0};
        if ((n = call_counts_frames(h, jni, f, n, depth, PSEUDO_NO_ID)) <= 0) {
            if (n < 0) call_counts_set_apart(h, APART_NO_METHOD, smp->weight);
            return;
        }
    } else {
        for (int i = nn; i < smp->nframes && n < depth; i++) {
            const struct sample_frame *sf = &smp->frames[i];
            /* bci -3 marks a native method; other negative ones are not places. */
            f[n++] = (jvmtiFrameInfo){sf->method ? (jmethodID)sf->method : PSEUDO_NO_ID,
                                      sf->location >= 0 ? sf->location : -1};
        }
    }
    if (smp->state > STATE_NONE && smp->state < STATE_COUNT && !call_counts_wanted(h->opt))
        f[n++] = (jvmtiFrameInfo){PSEUDO_STATE(smp->state), -1};
    count(h, jni, smp->thread, f, n, smp->weight);
}

/* new_threads: the rescan just adopted threads (native frames: their stacks are new). */
static void drain(struct host *h, struct cpu_signal *c, JNIEnv *jni, bool new_threads)
{
    pthread_mutex_lock(&c->drain_lock);
    if (c->native) native_frames_refresh(c->native, &c->s, clock_ns() / 1000000, new_threads);
    traces_sampling_begin(&h->t.traces);
    int depth = host_depth(h);
    if (depth > c->s.max_frames) depth = c->s.max_frames;
    struct sample *smp;
    while ((smp = sample_ring_next(&c->s.ring))) {
        /* depth=0: no samples, as with the JVMTI sampler (no frames, no trace). */
        if (depth > 0) record(h, c, jni, smp, depth);
        sample_ring_release(&c->s.ring, smp);
    }
    uint64_t weight = 0;
    if (sample_ring_take_refused(&c->s.ring, &weight) && depth > 0)
        count(h, jni, 0, &(jvmtiFrameInfo){PSEUDO_REASON(REASON_LOST), -1}, 1, weight);
    traces_sampling_end(&h->t.traces);
    pthread_mutex_unlock(&c->drain_lock);
}

/* ---- threads ---- */

static enum sample_state state_of(jint st)
{
    if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return STATE_BLOCKED;
    if (st & JVMTI_THREAD_STATE_SLEEPING) return STATE_SLEEPING;
    if (st & JVMTI_THREAD_STATE_PARKED) return STATE_PARKED;
    if (st & JVMTI_THREAD_STATE_WAITING) return STATE_WAITING;
    if (st & JVMTI_THREAD_STATE_IN_NATIVE) return STATE_NATIVE;
    return STATE_RUNNABLE;
}

/* clock=wall: each thread's state, then its signal. The entries of other threads are
 * read under threads_read_begin: a record's entry, read while the record is live, is not
 * freed until threads_read_end, as its thread's end takes the record out first. */
static void poke_all(struct host *h, struct cpu_signal *c, JNIEnv *jni)
{
    struct tid_map *m = &c->s.threads;
    threads_read_begin(&h->t.threads);
    for (size_t i = 0; i < tid_map_capacity(m); i++) {
        struct sig_thread *t = (struct sig_thread *)tid_map_at(m, i);
        int32_t tid = atomic_load_explicit(&t->e.tid, memory_order_acquire);
        if (tid <= 0 || !atomic_load_explicit(&t->e.live, memory_order_acquire)) continue;
        struct thread_info *ti = atomic_load(&t->info);
        jthread ref = ti && ti->sampled ? threads_lend(&h->t.threads, ti) : NULL;
        if (!ref) continue;
        jint st = 0;
        bool alive =
            (*h->jvmti)->GetThreadState(h->jvmti, ref, &st) == JVMTI_ERROR_NONE && (st & JVMTI_THREAD_STATE_ALIVE);
        threads_give_back(&h->t.threads, &ti, 1);
        if (!alive) continue;
        atomic_store_explicit(&t->state, state_of(st), memory_order_relaxed);
        /* A signal still pending would swallow this one: it counts for both instead. */
        if (atomic_fetch_add_explicit(&t->owed, 1, memory_order_relaxed) == 0 && !sample_timer_poke(&c->s, tid))
            atomic_store(&t->owed, 0);
    }
    threads_read_end(&h->t.threads);
}

static void stop_all_timers(struct cpu_signal *c)
{
    struct tid_map *m = &c->s.threads;
    pthread_mutex_lock(&c->timer_lock);
    for (size_t i = 0; i < tid_map_capacity(m); i++) sample_timer_stop(&c->s, (struct sig_thread *)tid_map_at(m, i));
    if (c->s.all_threads) native_threads_stop(&c->s);
    pthread_mutex_unlock(&c->timer_lock);
    if (atomic_load(&c->s.process_timer)) sample_timer_process(&c->s, false);
}

/* The JVMTI sampler from now on, said once. */
static void fall_back(struct host *h, JNIEnv *jni, const char *why)
{
    struct cpu_signal *c = of(h);
    if (c && atomic_exchange(&c->fell_back, true)) return;
    if (c) {
        atomic_store(&c->s.enabled, false);
        stop_all_timers(c);
    }
    log_warning("cpu=samples: %s; the JVMTI sampler takes the samples%s (it sees threads only at safepoint polls)", why,
                c ? " from now on" : "");
    cpu_sampler_start(h, jni);
}

/* The calling thread's stack, for walk_recover: its bounds, or 0, 0. */
static void own_stack(uintptr_t *lo, uintptr_t *hi)
{
    pthread_attr_t a;
    void *base = NULL;
    size_t size = 0;
    *lo = *hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) return;
    if (pthread_attr_getstack(&a, &base, &size) == 0 && base && size) {
        *lo = (uintptr_t)base;
        *hi = (uintptr_t)base + size;
    }
    pthread_attr_destroy(&a);
}

/* A thread's record, then (clock=cpu) its timer: on the thread itself (tid, env its
 * own), or for a thread already running when the agent was attached. */
static void enter(struct host *h, struct cpu_signal *c, JNIEnv *jni, const struct running_thread *r,
                  struct thread_info *ti)
{
    int32_t tid = r->tid;
    JNIEnv *env = r->env;
    /* Entered before: main (VM init, then its ThreadStart), or a native thread that
     * attaches again under another name (main as DestroyJavaVM). One timer each. */
    struct sig_thread *t = (struct sig_thread *)tid_map_find(&c->s.threads, tid);
    if (t) {
        t->own = ti;
        atomic_store(&t->info, ti);
        return;
    }
    t = (struct sig_thread *)tid_map_add(&c->s.threads, tid);
    if (!t) return; /* more live threads than the map holds */
    t->env = env;
    t->own = ti;
    /* A thread already running (attached) is not this one: its stack as HotSpot says. */
    t->stack_lo = r->stack_lo;
    t->stack_hi = r->stack_hi;
    if (tid == gettid()) own_stack(&t->stack_lo, &t->stack_hi);
    atomic_store(&t->info, ti);
    tid_map_publish(&t->e);
    if (!c->s.wall && !atomic_load(&c->s.process_timer) && sample_timer_start(&c->s, t, &c->s) == 0) {
        pthread_mutex_lock(&c->timer_lock);
        if (!atomic_load(&c->s.enabled)) sample_timer_arm(&c->s, t, false); /* paused: no signals */
        pthread_mutex_unlock(&c->timer_lock);
        return;
    }
    if (c->s.wall || atomic_load(&c->s.process_timer)) return;
    /* No per-thread timer: the process's CPU timer serves every thread instead. */
    int err = errno;
    if (sample_timer_process(&c->s, true) == 0) {
        atomic_store(&c->s.process_timer, true);
        if (!c->said_no_timer)
            log_warning("cpu=samples: no CPU-time timer per thread (%s); using the process's (ITIMER_PROF)",
                        strerror(err));
        c->said_no_timer = true;
    } else {
        fall_back(h, jni, "no CPU-time timer can be had");
    }
}

static void thread_start(struct host *h, JNIEnv *jni, jthread thread)
{
    struct cpu_signal *c = of(h);
    if (!c || atomic_load(&c->fell_back) || host_is_own_thread(h, jni, thread)) return;
    struct thread_info *ti = threads_lookup(h->jvmti, thread);
    if (ti) enter(h, c, jni, &(struct running_thread){.tid = gettid(), .env = jni}, ti);
}

/* Attached to a running JVM: the threads already running get their records and timers
 * here, as each would have at its start. */
static void adopt_running(struct host *h, struct cpu_signal *c, JNIEnv *jni)
{
    struct running_thread *r = NULL;
    char why[160], said[256];
    int n = running_threads_take(h->jvmti, jni, &r, why, sizeof why);
    if (n < 0) {
        snprintf(said, sizeof said, "attached to a running JVM, whose running threads cannot be given CPU timers: %s",
                 why);
        fall_back(h, jni, said);
        return;
    }
    for (int i = 0; i < n && !atomic_load(&c->fell_back); i++) {
        if (host_is_own_thread(h, jni, r[i].thread)) continue;
        struct thread_info *ti = thread_events_enter(h, jni, r[i].thread);
        if (!ti) continue;
        enter(h, c, jni, &r[i], ti);
        threads_release(&h->t.threads, ti);
    }
    running_threads_free(jni, r, n);
}

void cpu_signal_sampler_mounted(struct host *h, struct thread_info *vthread)
{
    struct cpu_signal *c = h ? of(h) : NULL;
    struct sig_thread *t = c ? (struct sig_thread *)tid_map_find(&c->s.threads, gettid()) : NULL;
    if (t) atomic_store_explicit(&t->info, vthread ? vthread : t->own, memory_order_release);
}

static void thread_end(struct host *h, JNIEnv *jni, jthread thread)
{
    struct cpu_signal *c = of(h);
    if (!c) return;
    struct sig_thread *t = (struct sig_thread *)tid_map_find(&c->s.threads, gettid());
    if (!t) return;
    pthread_mutex_lock(&c->timer_lock);
    sample_timer_stop(&c->s, t);
    pthread_mutex_unlock(&c->timer_lock);
    atomic_store(&t->info, NULL); /* its entry may go once the thread is gone */
    tid_map_remove(&c->s.threads, &t->e);
}

/* ---- the agent thread ---- */

static void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct cpu_signal *c = of(h);
    int period = c->s.wall ? atomic_load(&c->s.interval_ms) : DRAIN_MS, since_rescan = RESCAN_MS;
    do {
        int adopted = 0;
        if (c->s.all_threads && since_rescan >= RESCAN_MS && !atomic_load(&c->fell_back)) {
            /* Under the timer lock, and only while sampling is on: a paused sampler arms
             * no timer for a thread it adopts (arm_all arms them when it resumes). */
            pthread_mutex_lock(&c->timer_lock);
            if (atomic_load(&c->s.enabled)) adopted = native_threads_rescan(c->natives, &c->s);
            pthread_mutex_unlock(&c->timer_lock);
            since_rescan = 0;
        }
        since_rescan += period;
        if (c->s.wall && atomic_load(&c->s.enabled)) poke_all(h, c, jni);
        drain(h, c, jni, adopted > 0);
        if (!atomic_load(&c->fell_back) && !sample_signal_is_ours())
            fall_back(h, jni, "the program replaced the SIGPROF handler");
    } while (pacer_pause(&c->pace, period));
    pacer_end(&c->pace);
}

/* ---- the life cycle ---- */

/* cpu=times,timing=gprof takes its times from this engine. */
static bool wanted(const struct options *o)
{
    return (o->cpu == CPU_SAMPLES || call_counts_wanted(o)) && o->sampler == ENGINE_SIGNAL;
}

/* Agent_OnLoad: the walker and the events it needs (ClassLoad on, IDs made at ClassPrepare). */
static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    struct cpu_signal *c = calloc(1, sizeof *c);
    if (!c) return -1;
    /* HPROF_SAMPLER_NO_AGCT=1: as on a JVM without AsyncGetCallTrace (tests the fallback). */
    c->s.walker = env_switch("HPROF_SAMPLER_NO_AGCT", false) ? NULL : async_trace_open();
    c->s.agct = async_trace_fn(c->s.walker);
    if (!c->s.agct) {
        free(c);
        return 0; /* start says so and uses the JVMTI sampler */
    }
    cb->ClassLoad = async_trace_on_class_load;
    async_trace_enable_events(c->s.walker, h->jvmti);
    /* Attached: the threads already running are suspended for a moment to be read
     * (running_threads.h); without the capability the JVMTI sampler takes over. */
    jvmtiCapabilities suspend;
    memset(&suspend, 0, sizeof suspend);
    suspend.can_suspend = 1;
    if (h->late_start && host_potential_capabilities(h->jvmti).can_suspend)
        (*h->jvmti)->AddCapabilities(h->jvmti, &suspend);
    /* Debug information at every instruction of compiled code, not only at safepoints:
     * without it a walk from inside an inlined method names the method around it (the
     * next safepoint's). Set before the compilers start, as profilers do; costs memory
     * for the larger debug information of compiled methods, and on JDK 25 compile time
     * the user may rather not pay (precise=n). */
    if (h->opt->precise) vm_flags_set_bool(h->jvmti, "DebugNonSafepoints", true);
    host_set_state(h, SOURCE_SIGNAL_SAMPLER, &c->s);
    return 0;
}

static int prepare(struct host *h, struct cpu_signal *c)
{
    int depth = host_depth(h);
    c->s.max_frames = depth < MIN_FRAMES ? MIN_FRAMES : depth > MAX_FRAMES ? MAX_FRAMES : depth;
    c->s.depth = &h->depth;
    atomic_store(&c->s.interval_ms, host_interval(h));
    c->s.wall = h->opt->clock == CLOCK_WALL;
    c->s.pid = getpid();
    c->s.inject_fault = env_switch("HPROF_SAMPLER_FAULT", false);
    /* The wall clock samples Java threads only: the VM's threads wait most of the time. */
    /* cpu=times,timing=gprof times the program's methods: its Java threads only. */
    c->s.all_threads = h->opt->threads == THREADS_ALL && !c->s.wall && !call_counts_wanted(h->opt);
    pacer_init(&c->pace);
    pthread_mutex_init(&c->drain_lock, NULL);
    pthread_mutex_init(&c->timer_lock, NULL);
    c->frames = calloc(MAX_FRAMES + 2, sizeof *c->frames);
    if (!c->frames || sample_ring_init(&c->s.ring, RING_SLOTS, c->s.max_frames) != 0 ||
        tid_map_init(&c->s.threads, MAX_THREADS, sizeof(struct sig_thread)) != 0 ||
        tid_map_init(&c->s.natives, c->s.all_threads ? MAX_NATIVES : 1, sizeof(struct sig_thread)) != 0 ||
        (c->s.all_threads && !(c->natives = native_threads_new(h)))) {
        /* No frames: stop and enable see a sampler that never ran, not a ring to drain. */
        free(c->frames);
        c->frames = NULL;
        sample_ring_destroy(&c->s.ring);
        return -1;
    }
    if (depth > MAX_FRAMES)
        log_warning("cpu=samples: depth=%d is more than the %d frames a sample holds; stacks are cut at %d", depth,
                    MAX_FRAMES, MAX_FRAMES);
    make_pseudo_frames(h, c->s.wall);
    return 0;
}

/*
 * The guard goes in front of the JVM's SIGSEGV handler, except under -Xcheck:jni: the
 * JVM then checks its handlers every few seconds and prints a warning on the program's
 * standard output when one was replaced. HPROF_WALK_GUARD=1|0 decides instead.
 */
static void guard(struct host *h, struct cpu_signal *c)
{
    bool checked = false;
    vm_flags_get_bool(h->jvmti, "CheckJNICalls", &checked);
    if (env_switch("HPROF_WALK_GUARD", !checked) && sample_signal_guard(&c->s) != 0)
        log_warning("cpu=samples: cannot guard the stack walk (sigaction: %s)", strerror(errno));
}

/* threads=all: the CPU the process used before VM init (the JVM's start-up, its threads
 * not sampled yet) counted at once, in intervals, so the total is the process's CPU
 * time. Not when started late: the time before is not part of the profile. */
static void count_start_up(struct host *h, struct cpu_signal *c, JNIEnv *jni)
{
    struct timespec ts;
    if (!c->natives || h->late_start || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return;
    uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    uint64_t weight = (ms + (uint64_t)c->s.interval_ms / 2) / (uint64_t)c->s.interval_ms;
    if (weight && host_depth(h) > 0)
        count(h, jni, 0, c->frames, native_threads_start_up(c->natives, c->frames), weight);
}

/* kernel=y: perf events instead of timers where the kernel allows them; where not, why,
 * once, and the timers as without it. */
static void choose_kernel(struct host *h, struct cpu_signal *c)
{
    if (!h->opt->kernel || h->opt->cpu != CPU_SAMPLES || call_counts_wanted(h->opt)) return;
    char why[320];
    if (c->s.wall)
        snprintf(why, sizeof why, "clock=wall signals each thread from the agent's thread, where no perf event is");
    else if (!c->s.native_frames)
        snprintf(why, sizeof why, "native=n leaves out the frames between the kernel's and the Java code");
    else if (perf_events_probe(&c->s, why, sizeof why) == 0) {
        c->s.kernel = true;
        return;
    }
    log_warning("cpu=samples: kernel=y: %s; the samples go on without kernel frames", why);
}

/* VM init: IDs of the classes already loaded, the handler, main's timer, the thread. */
static void start(struct host *h, JNIEnv *jni)
{
    struct cpu_signal *c = of(h);
    if (!c) {
        fall_back(h, jni, "this JVM has no AsyncGetCallTrace");
        return;
    }
    async_trace_vm_init(c->s.walker, h->jvmti, jni);
    /* Without these, refused walks stay refused. */
    code_heap_find(h->jvmti, &c->s.code);
    thread_anchor_find(h->jvmti, jni, &c->s.anchor);
    if (prepare(h, c) != 0) {
        fall_back(h, jni, "out of memory");
        return;
    }
    count_start_up(h, c, jni);
    /* native=y: the snapshot of the process's code, before the first signal. Not with
     * timing=gprof, whose samples name the program's methods only. */
    if (h->opt->native && h->opt->cpu == CPU_SAMPLES && !call_counts_wanted(h->opt))
        c->native = native_frames_new(h, &c->s);
    c->s.native_frames = c->native != NULL;
    choose_kernel(h, c);
    guard(h, c);
    if (sample_signal_install(&c->s) != 0) {
        fall_back(h, jni, "cannot install the SIGPROF handler");
        return;
    }
    atomic_store(&c->s.enabled, true);
    jthread self = NULL;
    if ((*h->jvmti)->GetCurrentThread(h->jvmti, &self) == JVMTI_ERROR_NONE && self) {
        thread_start(h, jni, self);
        (*jni)->DeleteLocalRef(jni, self);
    }
    if (h->late_start) adopt_running(h, c, jni);
    pacer_begin(&c->pace);
    if (!host_start_thread(h, jni, "HPROF cpu sampling thread", sampler_main, h)) {
        pacer_end(&c->pace);
        fall_back(h, jni, "cannot start the sampling thread");
    }
}

/* VM death: no more samples, timers gone, the thread ended, what is left drained. The
 * handler stays: a signal already on its way must not meet SIGPROF's default action. */
static void stop(struct host *h, JNIEnv *jni)
{
    struct cpu_signal *c = of(h);
    if (!c || !c->frames) return;
    atomic_store(&c->s.enabled, false);
    stop_all_timers(c);
    pacer_stop(&c->pace, 5000);
    drain(h, c, jni, false);
    if (env_switch("HPROF_STACK_STATS", false)) {
        log_plain("cpu=samples: %llu refused stack walks made from a caller's frame\n",
                  (unsigned long long)atomic_load(&c->s.recovered));
        if (c->native) native_frames_report(c->native);
    }
    uint64_t refused = atomic_load(&c->s.perf_refused);
    if (refused && h->opt->verbose)
        log_warning("cpu=samples: kernel=y: %llu threads could not have a perf event (perf_event_mlock_kb?) and were "
                    "sampled by timers, without kernel frames",
                    (unsigned long long)refused);
    uint64_t faults = atomic_load(&c->s.faults);
    if (faults && h->opt->verbose)
        log_warning("cpu=samples: %llu stack walks faulted and were abandoned ([walk_failed].walk_faulted)",
                    (unsigned long long)faults);
}

static void class_prepare(struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    struct cpu_signal *c = of(h);
    if (c) async_trace_class_prepared(c->s.walker, h->jvmti, cls);
}

/* Every thread's timer armed (at the interval set now) or disarmed: a paused sampler
 * gets no signals at all. */
static void arm_all(struct cpu_signal *c, bool on)
{
    struct tid_map *m = &c->s.threads;
    pthread_mutex_lock(&c->timer_lock);
    for (size_t i = 0; i < tid_map_capacity(m); i++) {
        struct sig_thread *t = (struct sig_thread *)tid_map_at(m, i);
        if (atomic_load_explicit(&t->e.tid, memory_order_acquire) > 0) sample_timer_arm(&c->s, t, on);
    }
    for (size_t i = 0; c->s.all_threads && i < tid_map_capacity(&c->s.natives); i++) {
        struct sig_thread *t = (struct sig_thread *)tid_map_at(&c->s.natives, i);
        if (atomic_load_explicit(&t->e.tid, memory_order_acquire) > 0) sample_timer_arm(&c->s, t, on);
    }
    if (atomic_load(&c->s.process_timer)) sample_timer_process(&c->s, on);
    pthread_mutex_unlock(&c->timer_lock);
}

/* Started, and not handed over to the JVMTI sampler. */
static bool running(const struct cpu_signal *c) { return c && c->frames && !atomic_load(&c->fell_back); }

bool cpu_signal_sampler_enable(struct host *h, bool on)
{
    struct cpu_signal *c = of(h);
    if (!running(c)) return false;
    if (on) atomic_store(&c->s.interval_ms, host_interval(h));
    atomic_store(&c->s.enabled, on);
    if (!c->s.wall) arm_all(c, on);
    return true;
}

/* CPU sampling as a whole, every live thread with it: this engine where it runs, else
 * the JVMTI sampler (started when need be), which took over or never had this one. */
static void enable(struct host *h, JNIEnv *jni, const struct options *o, bool on)
{
    if (!running(of(h))) {
        cpu_sampler_source.enable(h, jni, o, on);
        return;
    }
    threads_set_sampled_all(&h->t.threads, on);
    cpu_signal_sampler_enable(h, on);
}

uint64_t cpu_signal_sampler_signals(struct host *h)
{
    struct cpu_signal *c = of(h);
    return c ? atomic_load(&c->s.signals) : 0;
}

int cpu_signal_sampler_max_frames(struct host *h)
{
    struct cpu_signal *c = of(h);
    return c ? c->s.max_frames : 0;
}

const struct source cpu_signal_sampler_source = {
    .name = "cpu samples (signals)",
    .wanted = wanted,
    .init = init,
    .start = start,
    .enable = enable,
    .stop = stop,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .class_prepare = class_prepare,
};
