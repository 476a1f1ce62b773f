/* SPDX-License-Identifier: Apache-2.0 */
#include "agent_load.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach.h"
#include "exits.h"
#include "target_fs.h"
#include "util/fd_io.h"

/* The agent's path: $HPROF_AGENT, else libhprof.so beside this program, else in
 * ../lib (where `make install` puts both). 0, or -1 (said). */
static int agent_find(char *buf, size_t len)
{
    const char *env = getenv("HPROF_AGENT");
    char exe[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
    if (env && *env) {
        if (realpath(env, buf) && len >= PATH_MAX) return 0;
        return tool_fail(-1, "HPROF_AGENT=%s: %s", env, strerror(errno));
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return tool_fail(-1, "cannot tell where this program is (/proc/self/exe)");
    exe[n] = 0;
    snprintf(dir, sizeof dir, "%s", dirname(exe));
    const char *where[] = {"%s/libhprof.so", "%s/../lib/libhprof.so"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, where[i], dir);
        if (access(path, R_OK) == 0 && len >= PATH_MAX && realpath(path, buf)) return 0;
    }
    return tool_fail(-1,
                     "libhprof.so is neither beside %s nor in %s/../lib (build it with make, or set "
                     "HPROF_AGENT)",
                     dir, dir);
}

/*
 * The library as the JVM can open it: its own path, or, for a JVM in another mount
 * namespace (a container), a copy in that JVM's /tmp/.hprof-<uid>/ made as the JVM's
 * user (kept: the JVM keeps it mapped, and a later request must name the same file to
 * reach the same agent).
 */
static int agent_for_target(const struct target *t, const char *lib, char *out, size_t len)
{
    if (!t->other_root) {
        snprintf(out, len, "%s", lib);
        return 0;
    }
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/.hprof-%u", (unsigned)t->uid);
    int in = open(lib, O_RDONLY | O_CLOEXEC), rc = in < 0 ? -1 : tfs_install(t, dir, "libhprof.so", in);
    int err = errno;
    if (in >= 0) close(in);
    if (rc != 0) return tool_fail(-1, "cannot copy the agent into the container's %s: %s", dir, strerror(err));
    snprintf(out, len, "%s/libhprof.so", dir);
    return 0;
}

/* A folder of ours for the reply in the JVM's /tmp, made as the JVM's user (the agent
 * writes there as that user): its path, as the JVM sees it, in dir. */
static int reply_dir(const struct target *t, char *dir, size_t len)
{
    char name[NAME_MAX + 1];
    if (tfs_mkdtemp(t, "/tmp", "hprof-reply-", name, sizeof name) != 0)
        return tool_fail(-1, "cannot make a folder in the JVM's /tmp: %s", strerror(errno));
    snprintf(dir, len, "/tmp/%s", name);
    return 0;
}

/* Reads (at most 64 KiB) and removes the reply file and its folder. */
static char *take_reply(const struct target *t, const char *dir)
{
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/reply", dir);
    char *text = NULL;
    int fd;
    off_t size;
    if (tfs_open_read(t, path, &fd, &size) == 0) {
        size_t cap = 65536, len = 0;
        text = malloc(cap + 1);
        ssize_t n;
        while (text && len < cap && (n = read(fd, text + len, cap - len)) > 0) len += (size_t)n;
        if (text) text[len] = 0;
        if (text) target_printable(text, true);
        close(fd);
    }
    tfs_remove(t, dir, "reply");
    return text;
}

/* The agent's return code in the JVM's answer to load: "return code: N" (JDK 21 and
 * later) or a bare "N" (JDK 17); -1000 when neither (the library did not load). */
static int return_code(const char *text)
{
    const char *p = strstr(text, "return code:");
    if (p) return atoi(p + 12);
    char *end;
    long v = strtol(text, &end, 10);
    return end != text && (*end == '\n' || *end == 0) ? (int)v : -1000;
}

/* A request leaves its reply folder in the JVM's /tmp until it has read the answer: a
 * Ctrl-C, SIGTERM (timeout(1)) or SIGHUP that would end the tool on the way ends the
 * wait instead, and once the folder is gone the signal ends the tool (raised again
 * under the default action). The JVM still carries out what reached it; the agent,
 * finding the folder gone, drops its answer. */
static const int STOP_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof STOP_SIGNALS / sizeof STOP_SIGNALS[0])
static volatile sig_atomic_t stop_signal;
static void on_stop_signal(int sig) { stop_signal = sig; } /* async-signal-safe: a flag only */

static void catch_stops(struct target *t, struct sigaction old[NSTOP])
{
    struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART: a wait sees EINTR */
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    for (size_t i = 0; i < NSTOP; i++) {
        sigaction(STOP_SIGNALS[i], NULL, &old[i]);
        /* Only a signal that would end the tool: an ignored one (nohup) stays ignored,
         * and one the command catches (profile's Ctrl-C: stop early, write the profile)
         * keeps doing that. */
        if (!(old[i].sa_flags & SA_SIGINFO) && old[i].sa_handler == SIG_DFL) sigaction(STOP_SIGNALS[i], &sa, NULL);
    }
    t->cancel = &stop_signal;
}

static void release_stops(struct target *t, const struct sigaction old[NSTOP])
{
    t->cancel = NULL;
    for (size_t i = 0; i < NSTOP; i++) sigaction(STOP_SIGNALS[i], &old[i], NULL);
    if (stop_signal) raise(stop_signal);
}

/* The request; `say`: the agent's answer goes to stdout (stderr when refused). */
static int request(struct target *t, const char *verb, const char *options, int timeout_s, char *answer,
                   size_t answer_len, bool say)
{
    char lib[PATH_MAX], theirs_lib[PATH_MAX + 64], dir[NAME_MAX + 8], reply[NAME_MAX + 16];
    if (agent_find(lib, sizeof lib) != 0 || agent_for_target(t, lib, theirs_lib, sizeof theirs_lib) != 0)
        return EXIT_ERROR;
    struct sigaction old[NSTOP];
    catch_stops(t, old); /* before the folder is made: from then on it is taken back */
    if (reply_dir(t, dir, sizeof dir) != 0) {
        release_stops(t, old);
        return EXIT_ERROR;
    }
    snprintf(reply, sizeof reply, "%s/reply", dir);
    size_t n = strlen(verb) + strlen(reply) + strlen(options) + 32;
    char *opts = malloc(n);
    struct attach_reply r = {0};
    int rc;
    if (opts) {
        snprintf(opts, n, "cmd=%s,reply=%s%s%s", verb, reply, *options ? "," : "", options);
        const char *args[3] = {theirs_lib, "true", opts};
        rc = attach_command(t, "load", args, timeout_s, &r);
    } else {
        rc = tool_fail(EXIT_ERROR, "out of memory");
    }
    free(opts);
    char *said = take_reply(t, dir);
    release_stops(t, old);
    if (answer && answer_len) snprintf(answer, answer_len, "%s", said ? said : "");
    if (rc == 0) {
        int code = return_code(r.text);
        if (r.code != 0 || code == -1000) {
            rc = tool_fail(EXIT_ERROR, "the JVM could not load %s: %s", theirs_lib, r.text);
        } else if (code != 0) {
            if (say) fputs(said && *said ? said : "", stderr);
            /* The agent's SESSION_CANNOT_SWITCH (src/agent/session.h) is an exit code of its own. */
            int refused = code == 10 ? EXIT_NO_SWITCH : EXIT_REFUSED;
            rc = said && *said ? refused : tool_fail(refused, "the agent refused the request (return code %d)", code);
        } else if (say) {
            fputs(said ? said : "", stdout);
        }
        attach_reply_free(&r);
    }
    free(said);
    return rc;
}

int agent_request(struct target *t, const char *verb, const char *options, int timeout_s, char *answer,
                  size_t answer_len)
{
    return request(t, verb, options, timeout_s, answer, answer_len, true);
}

int agent_request_quiet(struct target *t, const char *verb, const char *options, int timeout_s, char *answer,
                        size_t answer_len)
{
    return request(t, verb, options, timeout_s, answer, answer_len, false);
}
