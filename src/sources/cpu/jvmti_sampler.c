/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/jvmti_sampler.h"

#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/source.h"
#include "sources/cpu/call_counts.h"
#include "util/pacer.h"
#include "util/log.h"

struct cpu_sampler {
    struct pacer pace; /* the thread's passes */
    _Atomic bool enabled;
    bool has_cpu_time; /* GetThreadCpuTime is available */
    jvmtiFrameInfo *frames;
    int nframes;   /* room in frames */
    jthread *refs; /* the threads of a pass, lent by the thread table */
    struct thread_info **infos;
    int cap;
};

static bool grow(struct cpu_sampler *s, int n)
{
    if (n <= s->cap) return true;
    int cap = n + 64;
    jthread *r = realloc(s->refs, (size_t)cap * sizeof *r);
    if (r) s->refs = r;
    struct thread_info **i = realloc(s->infos, (size_t)cap * sizeof *i);
    if (i) s->infos = i;
    if (!r || !i) return false;
    s->cap = cap;
    return true;
}

/*
 * Is this thread running code right now, as far as we can tell? JVMTI says RUNNABLE
 * also for threads blocked inside the VM or in a native read, so where the thread's
 * CPU clock is available it decides: the thread must have used CPU since the last look.
 */
static bool is_running(struct host *h, struct cpu_sampler *s, jthread t, struct thread_info *ti)
{
    jint state = 0;
    if ((*h->jvmti)->GetThreadState(h->jvmti, t, &state) != JVMTI_ERROR_NONE) return false;
    if (!(state & JVMTI_THREAD_STATE_ALIVE) || !(state & JVMTI_THREAD_STATE_RUNNABLE)) return false;
    if (state & JVMTI_THREAD_STATE_SUSPENDED) return false;
    if (!s->has_cpu_time) return !(state & JVMTI_THREAD_STATE_IN_NATIVE);
    jlong ns = 0;
    if ((*h->jvmti)->GetThreadCpuTime(h->jvmti, t, &ns) != JVMTI_ERROR_NONE) return false;
    /* Without a baseline (no CPU clock when it started) trust the state once. */
    bool first_look = ti->last_cpu_ns == 0;
    bool busy = first_look ? !(state & JVMTI_THREAD_STATE_IN_NATIVE) : ns > ti->last_cpu_ns;
    ti->last_cpu_ns = ns > 0 ? ns : 1;
    return busy;
}

static void sample_once(struct host *h, struct cpu_sampler *s, JNIEnv *jni)
{
    if (!grow(s, threads_live_count(&h->t.threads))) return;
    int n = threads_lend_sampled(&h->t.threads, s->refs, s->infos, s->cap);
    /* The depth may change at any time (socket CONTROL): read once a pass. */
    int depth = host_depth(h);
    if (depth > s->nframes) {
        jvmtiFrameInfo *f = realloc(s->frames, (size_t)depth * sizeof *f);
        if (f) {
            s->frames = f;
            s->nframes = depth;
        }
        if (depth > s->nframes) depth = s->nframes;
    }
    bool wall = h->opt->clock == CLOCK_WALL;
    for (int i = 0; i < n; i++) {
        if (!wall && !is_running(h, s, s->refs[i], s->infos[i])) continue;
        jint count = 0;
        if ((*h->jvmti)->GetStackTrace(h->jvmti, s->refs[i], 0, depth, s->frames, &count) != JVMTI_ERROR_NONE) continue;
        if (call_counts_wanted(h->opt)) count = call_counts_frames(h, jni, s->frames, count, count, NULL);
        if (count < 0) call_counts_set_apart(h, APART_NO_METHOD, 1);
        if (count <= 0) continue; /* not in Java code yet (or any more) */
        uint32_t thread_serial = h->opt->thread ? s->infos[i]->serial : 0;
        traces_sampling_begin(&h->t.traces);
        struct trace *t = traces_of_sample(&h->t.traces, h->jvmti, jni, thread_serial, s->frames, count);
        if (t) traces_add_samples(&h->t.traces, t, 1);
        call_counts_sampled(h, t, 1);
        traces_sampling_end(&h->t.traces);
    }
    threads_give_back(&h->t.threads, s->infos, n);
}

static struct cpu_sampler *of(struct host *h) { return host_state(h, SOURCE_CPU_SAMPLER); }

static void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct cpu_sampler *s = of(h);
    /* The interval is the pause between passes, as in the original agent. */
    while (pacer_pause(&s->pace, host_interval(h)))
        if (atomic_load(&s->enabled)) sample_once(h, s, jni);
    pacer_end(&s->pace);
}

int cpu_sampler_start(struct host *h, JNIEnv *jni)
{
    struct cpu_sampler *s = calloc(1, sizeof *s);
    if (!s) return -1;
    pacer_init(&s->pace);
    atomic_init(&s->enabled, true);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    (*h->jvmti)->GetCapabilities(h->jvmti, &caps);
    s->has_cpu_time = caps.can_get_thread_cpu_time;
    s->nframes = host_depth(h) > 0 ? host_depth(h) : 1;
    s->frames = calloc((size_t)s->nframes, sizeof *s->frames);
    if (!s->frames || !grow(s, 64)) return -1;
    pacer_begin(&s->pace);
    host_set_state(h, SOURCE_CPU_SAMPLER, s);
    if (!host_start_thread(h, jni, "HPROF cpu sampling thread", sampler_main, h)) {
        pacer_end(&s->pace);
        log_error("cannot start the CPU sampling thread; no CPU samples will be taken");
        return -1;
    }
    return 0;
}

static void stop(struct host *h, JNIEnv *jni)
{
    struct cpu_sampler *s = of(h);
    if (s) pacer_stop(&s->pace, 5000);
}

void cpu_sampler_enable(struct host *h, bool on)
{
    struct cpu_sampler *s = of(h);
    if (s) atomic_store(&s->enabled, on);
}

static bool wanted(const struct options *o)
{
    return (o->cpu == CPU_SAMPLES || call_counts_wanted(o)) && o->sampler == ENGINE_JVMTI;
}

static void start(struct host *h, JNIEnv *jni) { cpu_sampler_start(h, jni); }

/* CPU sampling as a whole, every live thread with it. On starts the thread where it
 * does not run yet (a net= CONTROL with cpu=off, or the signal engine handing over). */
static void enable(struct host *h, JNIEnv *jni, const struct options *o, bool on)
{
    threads_set_sampled_all(&h->t.threads, on);
    if (on && !of(h)) cpu_sampler_start(h, jni);
    cpu_sampler_enable(h, on);
}

const struct source cpu_sampler_source = {
    .name = "cpu samples",
    .wanted = wanted,
    .start = start,
    .enable = enable,
    .stop = stop,
};
