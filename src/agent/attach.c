/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Agent_OnAttach: hprof loaded into a JVM that is already running (`hprof start <pid>`,
 * or jcmd's JVMTI.agent_load), and every later request to it.
 *
 * The first attach does what Agent_OnLoad and VM init do, at once; a failure leaves
 * nothing behind and the JVM goes on. A JVMTI agent cannot be unloaded, so a later
 * attach (the JVM calls Agent_OnAttach of the same library again) is a request to the
 * agent that is there (options/attach_request.h), carried out by agent/session.c:
 *   start   after a stop: a new session, with the options given (its own file and
 *           window), or with the last session's again when none are given
 *   dump    write what was gathered so far, as SIGQUIT does (without the JVM's thread
 *           dump on the program's stdout)
 *   stop    stop gathering (each source's enable hook: CPU sampling and its timers,
 *           allocation counting, the Tracker's timing and the monitor events off; the
 *           agent's threads stay, idle), write the profile and close its file
 *   set     interval= and depth= from now on
 *   status  what the agent does now: session, mode, file, since when
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
#include "util/fd_io.h"
#include "util/log.h"

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
    session_say_started(&a->session, "profiling this JVM from now on");
    late_notes(&a->opt);
    return JNI_OK;
}

static jint to_running(struct agent *a, JNIEnv *jni, const struct attach_request *req)
{
    struct host *h = &a->host;
    char mode[256];
    if (!host_live(h)) {
        log_error("hprof is not gathering in this JVM (it is starting or shutting down)");
        return JNI_ERR;
    }
    switch (req->verb) {
    case ATTACH_START: return session_start(&a->session, jni, req->rest);
    case ATTACH_STOP: return session_stop(&a->session, jni);
    case ATTACH_DUMP: return session_dump(&a->session, jni);
    case ATTACH_STATUS: return session_status(&a->session);
    case ATTACH_SET:
        if (req->interval_ms > 0) atomic_store(&h->interval_ms, req->interval_ms);
        if (req->depth > 0) atomic_store(&h->depth, req->depth);
        session_mode_text(&a->session, mode, sizeof mode);
        log_plain("HPROF: from now on: %s", mode);
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
