/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Agent_OnAttach: hprof loaded into a JVM that is already running (`hprof start <pid>`,
 * or jcmd's JVMTI.agent_load), and every later request to it.
 *
 * The first attach does what Agent_OnLoad and VM init do, at once; a failure leaves
 * nothing behind and the JVM goes on. A JVMTI agent cannot be unloaded, so a later
 * attach (the JVM calls Agent_OnAttach of the same library again) is a request to the
 * agent that is there (options/attach_request.h):
 *   start   after a stop: gather again, into the same profile (same options, or none)
 *   dump    write what was gathered so far, as SIGQUIT does (without the JVM's thread
 *           dump on the program's stdout)
 *   stop    stop gathering (CPU sampling, allocation counting, the Tracker's timing and
 *           the monitor events off; the agent's threads stay, idle) and write the
 *           profile; the file stays whole and nothing is added at exit
 *   set     interval= and depth= from now on
 * Messages go back to the tool that attached through the request's reply file: the
 * JVM's answer to `load` carries only our return code. Without one (jcmd), to stderr.
 */
#include "agent/agent.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options/attach_request.h"
#include "sources/monitor/monitor_events.h"
#include "sources/net/socket_protocol.h"
#include "sources/bci/tracker.h"
#include "util/fd_io.h"
#include "util/log.h"

/* "cpu=samples (every 10 ms), heap=sites" */
static void mode_text(struct host *h, char *buf, size_t len)
{
    const struct options *o = h->opt;
    const char *heap[] = {"", "heap=sites", "heap=dump", "heap=all"};
    size_t n = 0;
    buf[0] = 0;
    if (o->cpu == CPU_SAMPLES)
        n += (size_t)snprintf(buf + n, len - n, "cpu=samples (every %d ms, depth %d)", host_interval(h), host_depth(h));
    else if (o->cpu != CPU_OFF)
        n += (size_t)snprintf(buf + n, len - n, "cpu=%s (depth %d)", options_cpu_name(o->cpu), host_depth(h));
    if (o->heap && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", heap[o->heap & 3]);
    if (o->heap & HEAP_SITES && o->alloc_sample && n < len)
        n += (size_t)snprintf(buf + n, len - n, " (sampled every %ld bytes)", o->alloc_sample);
    if (o->monitor && n < len) snprintf(buf + n, len - n, "%smonitor=y", n ? ", " : "");
}

/* Where the profile goes, as a path the user can find (file= is relative to the JVM's
 * working directory). */
static void where_text(const struct options *o, char *buf, size_t len)
{
    char cwd[4096];
    if (o->net_host)
        snprintf(buf, len, "net=%s:%d", o->net_host, o->net_port);
    else if (o->file[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(buf, len, "%s", o->file);
    else
        snprintf(buf, len, "%s/%s", cwd, o->file);
}

/* What cannot be known when attached late, said rather than faked. */
static void late_notes(const struct options *o)
{
    if ((o->heap & HEAP_SITES) && o->alloc_sample == 0)
        log_plain("HPROF: attached late: heap=sites counts the allocations from now on; objects allocated before "
                  "the attach belong to no site, and the live counts cover only the objects it saw allocated");
    if (o->cpu == CPU_TIMES || o->cpu == CPU_OLD)
        log_plain("HPROF: attached late: the classes loaded before the attach were retransformed to time their "
                  "methods; calls under way at the attach are timed from their next call on");
    if (o->monitor) log_plain("HPROF: attached late: monitor=y sees contention and waits from now on");
}

/* Gathering on or off, through the net= commands' own switches where they exist. */
static void gather(struct agent *a, JNIEnv *jni, bool on)
{
    struct host *h = &a->host;
    char why[160];
    struct command c = {.tag = CMD_CONTROL};
    if (h->opt->cpu == CPU_SAMPLES) {
        c.control = on ? CTL_CPU_ON : CTL_CPU_OFF;
        agent_command(h, jni, &c, why, sizeof why);
    }
    if (h->opt->heap & HEAP_SITES) {
        c.control = on ? CTL_ALLOC_ON : CTL_ALLOC_OFF;
        agent_command(h, jni, &c, why, sizeof why);
    }
    tracker_engage(h, jni, on);
    monitor_events_enable(h, on);
}

static void say_started(struct agent *a, const char *how)
{
    char mode[256], where[FD_PATH_MAX];
    mode_text(&a->host, mode, sizeof mode);
    where_text(&a->opt, where, sizeof where);
    log_plain("HPROF: %s: %s; the profile goes to %s", how, mode, where);
}

static jint first_start(JavaVM *vm, JNIEnv *jni, const struct attach_request *req)
{
    if (req->verb != ATTACH_START) {
        log_error("hprof is not running in this JVM: nothing to %s (start it first)", attach_verb_name(req->verb));
        return JNI_ERR;
    }
    enum options_result parsed;
    struct agent *a = agent_create(vm, req->rest, true, &parsed);
    if (parsed == OPTIONS_HELP) {
        const char *t = options_help_text(), *nl;
        for (; *t; t = nl + 1) {
            nl = strchr(t, '\n');
            if (!nl) break;
            log_plain("%.*s", (int)(nl - t), t);
        }
        return JNI_OK;
    }
    if (!a) return JNI_ERR;
    agent_start(a, jni);
    say_started(a, "profiling this JVM from now on");
    late_notes(&a->opt);
    return JNI_OK;
}

/* The options that fix what is gathered and where it goes: they cannot change once the
 * agent is in (its capabilities, its instrumentation, the records already written). */
static const char *differs(const struct options *x, const struct options *y)
{
    if (x->heap != y->heap || x->alloc_sample != y->alloc_sample) return "heap=/alloc_sample=";
    if (x->cpu != y->cpu) return "cpu=";
    if (x->monitor != y->monitor) return "monitor=";
    if (x->format != y->format) return "format=";
    if (x->thread != y->thread || x->lineno != y->lineno) return "thread=/lineno=";
    if (!x->net_host != !y->net_host ||
        (x->net_host && (strcmp(x->net_host, y->net_host) || x->net_port != y->net_port)))
        return "net=";
    if (!x->net_host && strcmp(x->file, y->file) != 0) return "file=";
    return NULL;
}

static jint resume(struct agent *a, JNIEnv *jni, const char *given)
{
    struct host *h = &a->host;
    char mode[256];
    mode_text(h, mode, sizeof mode);
    if (!atomic_load(&a->paused)) {
        log_error("hprof is already profiling this JVM (%s): `hprof stop` first, or `hprof set` to change "
                  "interval= or depth=",
                  mode);
        return JNI_ERR;
    }
    if (*given) {
        struct options o;
        char err[1024];
        if (options_parse(given, &o, err, sizeof err) != OPTIONS_OK) {
            log_error("%s", err);
            return JNI_ERR;
        }
        const char *what = differs(&a->opt, &o);
        if (what) {
            log_error("hprof was started in this JVM with %s; a JVMTI agent cannot be unloaded, so what it gathers "
                      "and where it writes stay as they were (%s differs): start it again with the same options, "
                      "or none",
                      mode, what);
            options_free(&o);
            return JNI_ERR;
        }
        atomic_store(&h->interval_ms, o.interval_ms);
        atomic_store(&h->depth, o.depth);
        options_free(&o);
    }
    gather(a, jni, true);
    atomic_store(&a->paused, false);
    say_started(a, "profiling again");
    return JNI_OK;
}

static jint stop(struct agent *a, JNIEnv *jni)
{
    if (atomic_exchange(&a->paused, true)) {
        log_error("hprof is stopped in this JVM already (`hprof start <pid>` starts it again)");
        return JNI_ERR;
    }
    gather(a, jni, false);
    report_dump(&a->report, jni, DUMP_ON_REQUEST);
    char where[FD_PATH_MAX];
    where_text(&a->opt, where, sizeof where);
    log_plain("HPROF: stopped; the profile is in %s (the agent stays loaded and idle)", where);
    return JNI_OK;
}

static jint to_running(struct agent *a, JNIEnv *jni, const struct attach_request *req)
{
    struct host *h = &a->host;
    char where[FD_PATH_MAX];
    if (!host_live(h)) {
        log_error("hprof is not gathering in this JVM (it is starting or shutting down)");
        return JNI_ERR;
    }
    switch (req->verb) {
    case ATTACH_START: return resume(a, jni, req->rest);
    case ATTACH_STOP: return stop(a, jni);
    case ATTACH_DUMP:
        report_dump(&a->report, jni, DUMP_ON_REQUEST);
        where_text(&a->opt, where, sizeof where);
        log_plain("HPROF: dump written to %s", where);
        return JNI_OK;
    case ATTACH_SET:
        if (req->interval_ms > 0) atomic_store(&h->interval_ms, req->interval_ms);
        if (req->depth > 0) atomic_store(&h->depth, req->depth);
        mode_text(h, where, sizeof where);
        log_plain("HPROF: from now on: %s", where);
        return JNI_OK;
    }
    return JNI_ERR;
}

/* The answer, in the file the tool named (a new file: never one that is there). With no
 * file named (a plain `load`, from jcmd say) it goes to stderr; when the file cannot be
 * made, the tool has given up waiting (its directory is gone), and the answer is dropped
 * rather than put on the program's stderr. */
static void answer(const char *path, const char *text)
{
    if (!*path) {
        fputs(text, stderr);
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    fd_write_all(fd, text, strlen(text));
    close(fd);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    static _Thread_local char said[16384]; /* the Attach Listener's, one request at a time */
    struct attach_request req;
    char err[512];
    jint rc = JNI_ERR;
    log_capture_begin(said, sizeof said);
    if (attach_request_parse(options, &req, err, sizeof err) != 0) {
        log_error("%s", err);
    } else {
        JNIEnv *jni = NULL;
        /* A frame of our own: the Attach Listener never returns to Java code, so local
         * references made here would stay for good (and -Xcheck:jni would say so on the
         * program's stdout); the frame's capacity covers every loaded class. */
        if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK || (*jni)->PushLocalFrame(jni, 16384) != 0) {
            if (jni) (*jni)->ExceptionClear(jni);
            log_error("no JNI environment on the attaching thread");
        } else {
            rc = host_get() ? to_running((struct agent *)host_get(), jni, &req) : first_start(vm, jni, &req);
            (*jni)->PopLocalFrame(jni, NULL);
        }
    }
    log_capture_end();
    answer(req.reply, said);
    return rc;
}
