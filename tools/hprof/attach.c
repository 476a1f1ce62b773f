/* SPDX-License-Identifier: Apache-2.0 */
#include "attach.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "exits.h"
#include "target_fs.h"
#include "util/clock.h"
#include "util/fd_io.h"

#define ARG_MAX_V1  1024
#define REPLY_MAX   (64u << 20)
#define SIGQUIT_BIT (1ull << (SIGQUIT - 1))

static long now_ms(void) { return (long)(clock_ns() / 1000000u); }

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* The socket's name in the JVM's /tmp, as the JVM sees it. */
static void socket_path(const struct target *t, char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/.java_pid%d", (int)t->nspid);
}

/* The JVM's socket, as jcmd takes it (tfs_open_socket): an O_PATH descriptor, or -1. */
static int socket_file(const struct target *t)
{
    char path[64];
    int fd;
    socket_path(t, path, sizeof path);
    return tfs_open_socket(t, path, &fd) == 0 ? fd : -1;
}

static bool socket_ready(const struct target *t)
{
    int fd = socket_file(t);
    if (fd >= 0) close(fd);
    return fd >= 0;
}

/* Creates the trigger file, as the JVM's user (tfs_create: a new file, never through a
 * link); where it went in *where: 1 the working directory, 0 /tmp, -1 nowhere. */
static void make_trigger(const struct target *t, const char *name, int *where)
{
    *where = -1;
    if (tfs_create(t, 1, NULL, name) == 0)
        *where = 1;
    else if (errno != EEXIST && tfs_create(t, 0, "/tmp", name) == 0)
        *where = 0;
}

/* Waits ms or until the process ends (its pidfd turns readable); false when it ended. */
static bool pause_alive(const struct target *t, long ms)
{
    if (t->pidfd < 0) {
        sleep_ms(ms);
        return target_alive(t);
    }
    struct pollfd p = {t->pidfd, POLLIN, 0};
    int n;
    while ((n = poll(&p, 1, (int)ms)) < 0 && errno == EINTR && !target_cancelled(t)) {}
    return n == 0 || (n < 0 && target_cancelled(t)); /* cancelled: the caller's loop sees it */
}

/* Starts the JVM's attach listener if it is not running; 0 or an exit code (said). */
static int start_listener(const struct target *t, int timeout_s)
{
    char trigger[64];
    if (socket_ready(t)) return 0;
    if (!target_alive(t)) return tool_fail(EXIT_NO_PROCESS, "process %d has exited", (int)t->pid);
    /* A process that does not catch SIGQUIT would die of it. */
    if (!(t->sig_caught & SIGQUIT_BIT) || (t->sig_ignored & SIGQUIT_BIT))
        return tool_fail(EXIT_NOT_JVM,
                         "process %d (%s) does not handle SIGQUIT: a JVM still starting, one run with "
                         "-Xrs, or not a HotSpot JVM; nothing was sent to it",
                         (int)t->pid, t->name);
    int where;
    snprintf(trigger, sizeof trigger, ".attach_pid%d", (int)t->nspid);
    make_trigger(t, trigger, &where);
    long start = now_ms(), limit = timeout_s * 1000L, step = 20;
    bool again = false, alive = target_signal(t, SIGQUIT) == 0;
    while (alive && !socket_ready(t) && now_ms() - start < limit && !target_cancelled(t)) {
        alive = pause_alive(t, step);
        if (step < 200) step += 20;
        /* As the JDK's own client does: a second signal half way, in case the first
         * came while the JVM was busy. */
        if (alive && !again && now_ms() - start > limit / 2) {
            again = true;
            target_signal(t, SIGQUIT);
        }
    }
    if (where >= 0) tfs_unlink(t, where, "/tmp", trigger);
    if (alive && socket_ready(t)) return 0;
    if (target_cancelled(t)) return tool_fail(EXIT_TIMEOUT, "interrupted while the JVM's attach listener started");
    if (!target_alive(t)) return tool_fail(EXIT_NO_PROCESS, "process %d has exited", (int)t->pid);
    return tool_fail(EXIT_TIMEOUT,
                     "the JVM (process %d) did not answer within %d s: it may be hung or very busy, or "
                     "run with -XX:+DisableAttachMechanism",
                     (int)t->pid, timeout_s);
}

/* Connects through the checked socket file (its descriptor's /proc/self/fd name, so no
 * path is looked up again) and takes only the JVM itself as the peer: the listener's pid
 * and user, and that pid still the process first checked (its pidfd: a process of the
 * same user may have taken the pid since the JVM ended, and made the socket anew). */
static int connect_to(const struct target *t)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int file = socket_file(t);
    if (file < 0) return -1;
    snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d", file);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;
    struct ucred peer;
    socklen_t len = sizeof peer;
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0)
        err = errno;
    else if (peer.uid != t->uid || peer.pid != t->pid)
        err = EPERM; /* the socket's listener is not the JVM we checked */
    else if (!target_alive(t))
        err = ESRCH; /* that pid is another process's now */
    close(file);
    if (err && fd >= 0) close(fd);
    errno = err;
    return err ? -1 : fd;
}

/* The request's bytes for protocol 1 or 2, in a malloc'd buffer. */
static char *build_request(int version, const char *cmd, const char *const args[3], size_t *len)
{
    size_t body = strlen(cmd) + 1;
    for (int i = 0; i < 3; i++) body += strlen(args[i] ? args[i] : "") + 1;
    char *buf = malloc(body + 32), *p = buf;
    if (!buf) return NULL;
    p += sprintf(p, "%d", version) + 1;
    if (version >= 2) p += sprintf(p, "%zu", body) + 1;
    p = stpcpy(p, cmd) + 1;
    for (int i = 0; i < 3; i++) p = stpcpy(p, args[i] ? args[i] : "") + 1;
    *len = (size_t)(p - buf);
    return buf;
}

/* Reads until the JVM closes the connection, waiting at most until the deadline. */
static int read_reply(const struct target *t, int fd, long deadline, struct attach_reply *r)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf && !target_cancelled(t)) {
        long left = deadline - now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        int n = left > 0 ? poll(&p, 1, (int)(left > 1000 ? 1000 : left)) : 0;
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 && left > 0) continue;
        if (n <= 0) break;
        if (len + 1 == cap) {
            char *more = cap < REPLY_MAX ? realloc(buf, cap *= 2) : NULL;
            if (!more) break;
            buf = more;
        }
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            buf[len] = 0;
            char *nl = strchr(buf, '\n');
            if (!nl && len == 0) break;
            r->code = atoi(buf);
            r->len = nl ? len - (size_t)(nl + 1 - buf) : 0;
            memmove(buf, nl ? nl + 1 : buf + len, r->len + 1);
            target_printable(buf, true);
            r->text = buf;
            return 0;
        }
        len += (size_t)got;
    }
    free(buf);
    return -1;
}

static int exchange(struct target *t, int version, const char *cmd, const char *const args[3], int timeout_s,
                    struct attach_reply *r)
{
    size_t len;
    char *req = build_request(version, cmd, args, &len);
    int fd = req ? connect_to(t) : -1;
    if (fd < 0) {
        free(req);
        return tool_fail(EXIT_ERROR, "cannot connect to the JVM's attach socket (process %d): %s", (int)t->pid,
                         strerror(errno));
    }
    int rc = fd_send_all(fd, req, len);
    free(req);
    if (rc == 0) rc = read_reply(t, fd, now_ms() + timeout_s * 1000L, r);
    close(fd);
    if (rc != 0 && target_cancelled(t))
        return tool_fail(EXIT_TIMEOUT, "interrupted while waiting for the JVM's answer to `%s`", cmd);
    if (rc != 0)
        return tool_fail(EXIT_TIMEOUT, "the JVM (process %d) did not answer `%s` within %d s", (int)t->pid, cmd,
                         timeout_s);
    return 0;
}

/* Protocol 2 where the JVM offers it: an older JVM answers `getversion` with an error. */
static int protocol_of(struct target *t)
{
    if (t->protocol) return t->protocol;
    const char *none[3] = {"", "", ""};
    struct attach_reply r = {0};
    t->protocol = 1;
    if (exchange(t, 1, "getversion", none, 10, &r) == 0 && r.code == 0 && atoi(r.text) >= 2) t->protocol = 2;
    attach_reply_free(&r);
    return t->protocol;
}

int attach_command(struct target *t, const char *cmd, const char *const args[3], int timeout_s, struct attach_reply *r)
{
    memset(r, 0, sizeof *r);
    int rc = start_listener(t, timeout_s);
    if (rc != 0) return rc;
    int version = protocol_of(t);
    for (int i = 0; i < 3 && version < 2; i++)
        if (args[i] && strlen(args[i]) > ARG_MAX_V1)
            return tool_fail(EXIT_USAGE,
                             "this JVM speaks attach protocol 1, which takes arguments of at most %d "
                             "bytes; the options are longer",
                             ARG_MAX_V1);
    return exchange(t, version, cmd, args, timeout_s, r);
}

void attach_reply_free(struct attach_reply *r)
{
    free(r->text);
    r->text = NULL;
}
