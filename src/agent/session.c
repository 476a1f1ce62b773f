/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sessions and rolling windows (agent/session.h): the agent-level state of what is
 * gathered now, where it goes, and since when; the report layer writes it.
 */
#include "agent/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/lifecycle.h"
#include "agent/switch_rules.h"
#include "report/report.h"
#include "sources/host.h"
#include "sources/cpu/call_counts.h"
#include "sources/cpu/method_times.h"
#include "sources/cpu/signal_sampler.h"
#include "util/fd_io.h"
#include "util/clock.h"
#include "util/log.h"

static int64_t now_ns(void) { return (int64_t)clock_wall_us() * 1000; }

bool session_depth_text(struct session *s, char *buf, size_t len)
{
    struct host *h = s->h;
    const struct options *o = s->opt;
    int depth = host_depth(h), kept = depth, frames = cpu_signal_sampler_max_frames(h);
    const char *why = "";
    /* The signal sampler, unless the JVMTI sampler took over (it takes any depth). */
    if (o->cpu == CPU_SAMPLES && !host_state(h, SOURCE_CPU_SAMPLER) && frames > 0 && depth > frames) {
        kept = frames;
        why = "the frames a sample holds, fixed at start";
    } else if (o->cpu == CPU_TIMES && depth > METHOD_TIMES_MAX_DEPTH) {
        kept = METHOD_TIMES_MAX_DEPTH;
        why = "the most a call stack keeps";
    }
    if (kept < depth)
        snprintf(buf, len, "depth %d cut to %d (%s)", depth, kept, why);
    else
        snprintf(buf, len, "depth %d", depth);
    return kept < depth;
}

void session_mode_text(struct session *s, char *buf, size_t len)
{
    struct host *h = s->h;
    const struct options *o = s->opt;
    const char *heap[] = {"", "heap=sites", "heap=dump", "heap=all"};
    char depth[128];
    size_t n = 0;
    buf[0] = 0;
    session_depth_text(s, depth, sizeof depth);
    if (o->cpu == CPU_SAMPLES)
        n += (size_t)snprintf(buf + n, len - n, "cpu=samples (every %d ms, %s)", host_interval(h), depth);
    else if (call_counts_wanted(o))
        n += (size_t)snprintf(buf + n, len - n,
                              "cpu=times, timing=gprof (every call counted, times from samples every %d ms, %s)",
                              host_interval(h), depth);
    else if (o->cpu != CPU_OFF)
        n += (size_t)snprintf(buf + n, len - n, "cpu=%s (%s)", options_cpu_name(o->cpu), depth);
    if (o->heap && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", heap[o->heap & 3]);
    if (o->heap & HEAP_SITES && o->alloc_sample && n < len)
        n += (size_t)snprintf(buf + n, len - n, " (sampled every %ld bytes)", o->alloc_sample);
    if (o->monitor && n < len) snprintf(buf + n, len - n, "%smonitor=y", n ? ", " : "");
}

/* Where the profile goes, as a path the user can find (file= is relative to the JVM's
 * working directory): the file the output opened (force=n may have chosen another). */
static void session_where(struct session *s, char *buf, size_t len)
{
    const struct options *o = s->opt;
    const char *file = o->viewonly ? s->path : s->r->out.name;
    char cwd[4096];
    if (o->net_host)
        snprintf(buf, len, "net=%s:%d", o->net_host, o->net_port);
    else if (!file || file[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(buf, len, "%s", file ? file : "");
    else
        snprintf(buf, len, "%s/%s", cwd, file);
}

void session_say_started(struct session *s, const char *how)
{
    char mode[256], where[FD_PATH_MAX];
    session_mode_text(s, mode, sizeof mode);
    session_where(s, where, sizeof where);
    log_plain("HPROF: %s: %s; the profile goes to %s", how, mode, where);
    if (s->opt->rotate_s)
        log_plain("HPROF: a file every %d s (%%t: the window's start)%s", s->opt->rotate_s,
                  s->opt->keep ? ", the last ones kept" : "");
}

/* ---- rolling ---- */

/* Stacks no sample named in this many windows are forgotten at a window's end: a
 * rolling profile's memory stays flat while the program keeps showing new stacks, and
 * a stack seen again is resolved again (lookups in the method and frame tables). */
#define IDLE_WINDOWS 2

/* The window's end (session lock held): its file written, the next one opened. */
static void end_window(struct session *s, JNIEnv *jni)
{
    report_dump(s->r, jni, DUMP_WINDOW_END);
    report_forget_idle_traces(s->r, IDLE_WINDOWS);
    kept_files_add(&s->kept, s->opt->keep, s->opt->viewonly ? s->path : s->r->out.name);
    int64_t now = now_ns();
    char *path = session_file_name(s->opt->file, now), err[512];
    if (!path || report_begin_session(s->r, s->opt, path, err, sizeof err) != 0) {
        log_error("rotate=: %s; the window goes on into the last file", path ? err : "out of memory");
        free(path);
    } else {
        free(s->path);
        s->path = path;
    }
    s->window_ns = now;
    s->windows++;
}

static void JNICALL rotation_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct session *s = arg;
    pthread_mutex_lock(&s->lock);
    while (host_live(s->h)) {
        if (!s->active || !s->opt->rotate_s) {
            pthread_cond_wait(&s->wake, &s->lock);
            continue;
        }
        int64_t due = s->window_ns + (int64_t)s->opt->rotate_s * 1000000000;
        if (now_ns() < due) {
            struct timespec until = {(time_t)(due / 1000000000), (long)(due % 1000000000)};
            pthread_cond_timedwait(&s->wake, &s->lock, &until);
            continue;
        }
        end_window(s, jni);
    }
    s->rotating = false;
    pthread_mutex_unlock(&s->lock);
}

/* The rotation thread, once (session lock held). */
static void start_rotation(struct session *s, JNIEnv *jni)
{
    if (s->rotating) {
        pthread_cond_signal(&s->wake);
        return;
    }
    s->rotating = host_start_thread(s->h, jni, "HPROF rotation thread", rotation_main, s) != NULL;
    if (!s->rotating) log_error("rotate=: cannot start the rotation thread; the profile is one window");
}

/* ---- the life cycle ---- */

int session_init(struct session *s, struct host *h, struct report *r, struct lifecycle *sources, char *err,
                 size_t errlen)
{
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    s->h = h;
    s->r = r;
    s->sources = sources;
    s->opt = h->opt;
    s->number = 1;
    s->start_ns = s->window_ns = now_ns();
    s->path = session_file_name(h->opt->file, s->start_ns);
    if (!s->path) snprintf(err, errlen, "out of memory");
    return s->path ? 0 : -1;
}

void session_vm_init(struct session *s, JNIEnv *jni)
{
    pthread_mutex_lock(&s->lock);
    s->active = true;
    s->start_ns = s->window_ns = now_ns();
    if (s->opt->rotate_s) start_rotation(s, jni);
    pthread_mutex_unlock(&s->lock);
}

/* The options of the next session: those given, or the last session's again (with
 * force=n, so that the last file is not written over). NULL when refused (said). */
static struct options *next_options(struct session *s, const char *given)
{
    struct options *o = calloc(1, sizeof *o);
    char err[1024];
    if (!o) {
        log_error("out of memory");
        return NULL;
    }
    if (options_parse(*given ? given : s->opt->text, o, err, sizeof err) != OPTIONS_OK) {
        log_error("%s", err);
        free(o);
        return NULL;
    }
    if (!*given) o->force = false;
    /* live= is the agent's, from the first load (its SITES header says which). */
    if (s->h->opt->live == LIVE_SAMPLED && (o->heap & HEAP_SITES)) o->live = LIVE_SAMPLED;
    return o;
}

static void drop_options(struct options *o)
{
    if (!o) return;
    options_free(o);
    free(o);
}

/* Session lock held: o's sources set up and started, the window emptied, the file
 * opened. JNI_OK, or an error code (said) with nothing changed but sources started
 * (they gather nothing until the next start: they are turned off again). */
static int begin(struct session *s, JNIEnv *jni, struct options *o)
{
    struct host *h = s->h;
    char why[512];
    const char *no = switch_refused(h, o);
    if (no) {
        log_error("hprof cannot switch this JVM's agent to that profile: %s (JVMTI cannot undo or redo that part "
                  "of its set-up in a running JVM)",
                  no);
        return SESSION_CANNOT_SWITCH;
    }
    atomic_store(&h->interval_ms, o->interval_ms);
    atomic_store(&h->depth, o->depth);
    if ((o->heap & HEAP_SITES) && o->alloc_sample) atomic_store(&h->alloc_sample, o->alloc_sample);
    if (lifecycle_add(s->sources, h, jni, o, why, sizeof why) != 0) {
        log_error("%s", why);
        return JNI_ERR;
    }
    report_reset_window(s->r, jni);
    int64_t now = now_ns();
    char *path = session_file_name(o->file, now);
    if (!path || report_begin_session(s->r, o, path, why, sizeof why) != 0) {
        log_error("%s", path ? why : "out of memory");
        free(path);
        lifecycle_enable(s->sources, h, jni, o, false); /* a source just started gathers from its start */
        return JNI_ERR;
    }
    drop_options(s->owned);
    free(s->path);
    s->opt = s->owned = o;
    s->path = path;
    s->start_ns = s->window_ns = now;
    s->windows = 0;
    s->number++;
    kept_files_forget(&s->kept);
    lifecycle_enable(s->sources, h, jni, o, true);
    s->active = true;
    if (o->rotate_s) start_rotation(s, jni);
    return JNI_OK;
}

int session_start(struct session *s, JNIEnv *jni, const char *given)
{
    pthread_mutex_lock(&s->lock);
    if (s->active) {
        char mode[256];
        session_mode_text(s, mode, sizeof mode);
        log_error("hprof is already profiling this JVM (session %u: %s): `hprof stop` first, or `hprof set` to "
                  "change interval= or depth=",
                  s->number, mode);
        pthread_mutex_unlock(&s->lock);
        return JNI_ERR;
    }
    struct options *o = next_options(s, given);
    int rc = o ? begin(s, jni, o) : JNI_ERR;
    if (rc != JNI_OK) {
        drop_options(o);
    } else {
        char how[64];
        snprintf(how, sizeof how, "%s (session %u)", *given ? "a new session" : "profiling again", s->number);
        session_say_started(s, how);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int session_stop(struct session *s, JNIEnv *jni)
{
    pthread_mutex_lock(&s->lock);
    if (!s->active) { /* asked again, or after a `profile -d` that stopped: nothing to undo */
        char where[FD_PATH_MAX];
        session_where(s, where, sizeof where);
        log_plain("HPROF: stopped already (session %u; its profile is in %s); `hprof start <pid>` starts again",
                  s->number, where);
        pthread_mutex_unlock(&s->lock);
        return JNI_OK;
    }
    lifecycle_enable(s->sources, s->h, jni, s->opt, false);
    report_dump(s->r, jni, s->opt->rotate_s ? DUMP_WINDOW_END : DUMP_ON_REQUEST);
    char where[FD_PATH_MAX];
    session_where(s, where, sizeof where);
    kept_files_add(&s->kept, s->opt->keep, s->opt->viewonly ? s->path : s->r->out.name);
    report_end_session(s->r);
    s->active = false;
    s->idle_ns = now_ns();
    pthread_cond_signal(&s->wake);
    log_plain("HPROF: stopped; the profile is in %s (the agent stays loaded and idle)", where);
    pthread_mutex_unlock(&s->lock);
    return JNI_OK;
}

int session_dump(struct session *s, JNIEnv *jni)
{
    pthread_mutex_lock(&s->lock);
    int rc = JNI_OK;
    char where[FD_PATH_MAX];
    session_where(s, where, sizeof where);
    if (!s->active) {
        log_error("hprof is stopped in this JVM: nothing to dump (`hprof start <pid>` starts a session)");
        rc = JNI_ERR;
    } else {
        report_dump(s->r, jni, DUMP_ON_REQUEST);
        log_plain("HPROF: dump written to %s", where);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int session_status(struct session *s)
{
    char mode[256], where[FD_PATH_MAX], since[32], window[32];
    pthread_mutex_lock(&s->lock);
    session_mode_text(s, mode, sizeof mode);
    session_where(s, where, sizeof where);
    session_stamp(s->active ? s->start_ns : s->idle_ns, since, sizeof since);
    if (s->active)
        log_plain("HPROF: session %u since %s: %s; the profile goes to %s", s->number, since, mode, where);
    else
        log_plain("HPROF: idle since %s (session %u stopped; its profile is in %s); the agent stays loaded", since,
                  s->number, where);
    if (s->active && s->opt->rotate_s) {
        session_stamp(s->window_ns, window, sizeof window);
        log_plain("HPROF: rolling: a file every %d s%s; window %u since %s", s->opt->rotate_s,
                  s->opt->keep ? " (the last ones kept)" : "", s->windows + 1, window);
    }
    log_plain("HPROF: cpu sampler signals so far: %llu", (unsigned long long)cpu_signal_sampler_signals(s->h));
    pthread_mutex_unlock(&s->lock);
    return JNI_OK;
}

bool session_exit_begin(struct session *s)
{
    pthread_mutex_lock(&s->lock);
    bool due = s->active;
    s->active = false;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return due;
}

void session_exit_end(struct session *s)
{
    pthread_mutex_lock(&s->lock);
    kept_files_add(&s->kept, s->opt->keep, s->opt->viewonly ? s->path : s->r->out.name);
    pthread_mutex_unlock(&s->lock);
}
