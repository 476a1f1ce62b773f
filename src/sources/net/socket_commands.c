/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/net/socket_commands.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/source.h"
#include "sources/net/socket_protocol.h"
#include "util/clock.h"
#include "util/log.h"

struct listener {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int fd; /* our own duplicate of the output socket */
    _Atomic bool stop;
    bool running; /* inside its loop (guarded by lock) */
    pthread_t self;
    int bad; /* bad commands dropped */
};

static struct listener *of(struct host *h) { return host_state(h, SOURCE_LISTENER); }

#define POLL_MS 100

static void bad_input(struct listener *l, const char *why, const char *then)
{
    if (l->bad++ == 0)
        log_warning("bad command on the net= socket: %s; %s (later bad commands are dropped without a word)", why,
                    then);
}

/* Reads and runs commands until told to stop, EOF, or the stream goes bad. */
static void serve(struct host *h, JNIEnv *jni, struct listener *l)
{
    struct cmd_stream s = {.have = 0};
    while (!atomic_load(&l->stop)) {
        struct pollfd p = {l->fd, POLLIN, 0};
        int r = poll(&p, 1, POLL_MS);
        if (r < 0 && errno != EINTR) return;
        if (r <= 0) continue;
        ssize_t n = recv(l->fd, s.buf + s.have, sizeof s.buf - s.have, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            if (s.have > 0 && n == 0)
                bad_input(l, "the peer closed the connection in the middle of a command", "it is dropped");
            return; /* closed or broken: the output reports its own errors */
        }
        s.have += (size_t)n;
        for (;;) {
            struct command c;
            char why[160];
            enum cmd_status st = cmd_stream_take(&s, &c, why, sizeof why);
            if (st == CMD_NEED_MORE) break;
            if (st == CMD_DESYNC) {
                bad_input(l, why, "no more commands are read from this connection; the profile is still sent");
                return;
            }
            if (atomic_load(&l->stop)) return;
            if (st == CMD_READY && c.tag == CMD_EOF) return;
            /* A command that cannot be carried out says why, as a malformed one does. */
            if (st != CMD_READY || !h->services->command(h, jni, &c, why, sizeof why)) bad_input(l, why, "dropped");
        }
    }
}

static void JNICALL listener_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct listener *l = of(h);
    l->self = pthread_self();
    serve(h, jni, l);
    pthread_mutex_lock(&l->lock);
    close(l->fd);
    l->fd = -1;
    l->running = false;
    pthread_cond_broadcast(&l->done);
    pthread_mutex_unlock(&l->lock);
}

static int listen_start(struct host *h, JNIEnv *jni)
{
    int out_fd = h->net_fd;
    if (out_fd < 0) return -1;
    struct listener *l = calloc(1, sizeof *l);
    if (!l) return -1;
    pthread_mutex_init(&l->lock, NULL);
    clock_cond_init(&l->done);
    /* A descriptor of our own: closing the output at VM death cannot pull it from
     * under a read, nor hand its number to another file meanwhile. */
    l->fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 0);
    if (l->fd < 0) {
        free(l);
        return -1;
    }
    l->running = true;
    host_set_state(h, SOURCE_LISTENER, l);
    if (!host_start_thread(h, jni, "HPROF listener thread", listener_main, h)) {
        l->running = false;
        close(l->fd);
        log_error("cannot start the listener thread; commands on the net= socket will not be read");
        return -1;
    }
    return 0;
}

static void stop(struct host *h, JNIEnv *jni)
{
    struct listener *l = of(h);
    if (!l) return;
    atomic_store(&l->stop, true);
    pthread_mutex_lock(&l->lock);
    /* EXIT THE VM runs VM death on the listener itself: nothing to wait for then. */
    if (l->running && !pthread_equal(l->self, pthread_self())) {
        struct timespec until;
        clock_deadline_after(&until, 3000);
        while (l->running && pthread_cond_timedwait(&l->done, &l->lock, &until) != ETIMEDOUT) {}
    }
    pthread_mutex_unlock(&l->lock);
}

static bool wanted(const struct options *o) { return o->net_host && o->format == 'b'; }

static void start(struct host *h, JNIEnv *jni) { listen_start(h, jni); }

const struct source socket_commands_source = {
    .name = "net= commands",
    .wanted = wanted,
    .start = start,
    .stop = stop,
};
