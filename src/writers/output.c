/* SPDX-License-Identifier: Apache-2.0 */
#include "writers/output.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fd_io.h"
#include "util/log.h"

#define FLUSH_THRESHOLD (256 * 1024)

static void init(struct output *o, int fd, bool is_socket, const char *name)
{
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    o->fd = fd;
    o->is_socket = is_socket;
    o->name = strdup(name);
    buf_init(&o->buf);
    o->start_micros = clock_wall_us();
    o->header_millis = o->start_micros / 1000u;
}

/*
 * With force=n an existing file is never touched; the new name carries the process id
 * as the original agent's did: text "a.txt" -> "a.<pid>.txt", "foo" -> "foo.<pid>.txt",
 * binary "foo" -> "foo.<pid>". Should even that exist, "-1", "-2" ... are added.
 */
static int open_new(const char *path, bool text, char **chosen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
    size_t plen = strlen(path), cut = plen;
    const char *suffix = "";
    if (text) {
        const char *dot = strrchr(path, '.');
        if (dot && strncasecmp(dot, ".txt", 4) == 0) {
            cut = (size_t)(dot - path);
            suffix = dot;
        } else {
            suffix = ".txt";
        }
    }
    size_t n = plen + 48;
    char *name = malloc(n);
    if (!name) return -1;
    for (int i = 0; i < 1000; i++) {
        if (i == 0)
            snprintf(name, n, "%.*s.%d%s", (int)cut, path, (int)getpid(), suffix);
        else
            snprintf(name, n, "%.*s.%d-%d%s", (int)cut, path, (int)getpid(), i, suffix);
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            *chosen = name;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    free(name);
    return -1;
}

/* The file a profile goes to, 0600; -1 with the reason in err. */
static int open_path(const char *path, bool text, bool force, char **chosen_name, char *err, size_t errlen)
{
    *chosen_name = NULL;
    int fd = force ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : open_new(path, text, chosen_name);
    if (fd < 0) {
        snprintf(err, errlen, "Cannot open file %s for writing: %s", path, strerror(errno));
        return -1;
    }
    fd_make_private(fd); /* a heap dump holds the program's secrets; force=y keeps an old file's mode */
    return fd;
}

int output_open_file(struct output *o, const char *path, bool text, bool force, char **chosen_name, char *err,
                     size_t errlen)
{
    int fd = open_path(path, text, force, chosen_name, err, errlen);
    if (fd < 0) return -1;
    init(o, fd, false, *chosen_name ? *chosen_name : path);
    return 0;
}

void output_open_none(struct output *o) { init(o, -1, false, "(no file)"); }

/* Whether the connected peer is this machine (127.0.0.0/8, ::1, ::ffff:127.x). */
static bool peer_is_loopback(int fd)
{
    struct sockaddr_storage ss;
    socklen_t n = sizeof ss;
    if (getpeername(fd, (struct sockaddr *)&ss, &n) != 0) return false;
    if (ss.ss_family == AF_INET) return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss.ss_family != AF_INET6) return false;
    const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

int output_open_socket(struct output *o, const char *host, int port, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "Cannot resolve host %s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, last_errno = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        last_errno = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "Cannot connect to %s:%d: %s", host, port, strerror(last_errno));
        return -1;
    }
    /* The peer may exit the VM and ask for heap dumps: said, not refused (the original
     * allowed any host). */
    if (!peer_is_loopback(fd))
        log_warning("net=%s:%d is not this machine: the socket is unauthenticated and unencrypted, and its peer "
                    "can ask for heap dumps and exit the program; use it on loopback or through a tunnel",
                    host, port);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char name[300];
    snprintf(name, sizeof name, "%s:%d", host, port);
    init(o, fd, true, name);
    return 0;
}

void output_lock(struct output *o) { pthread_mutex_lock(&o->lock); }
void output_unlock(struct output *o) { pthread_mutex_unlock(&o->lock); }

uint32_t output_micros(struct output *o) { return (uint32_t)(clock_wall_us() - o->header_millis * 1000u); }

int output_socket_fd(struct output *o) { return o->is_socket ? o->fd : -1; }

static void fail(struct output *o, int err)
{
    if (o->failed) return;
    o->failed = true;
    if (!o->is_socket) {
        log_error("Writing to %s failed: %s; the profile is cut at the last whole record (the program goes on)",
                  o->name, strerror(err));
        return;
    }
    shutdown(o->fd, SHUT_RDWR); /* the peer sees the end; the command reader wakes up */
    if (err == ETIMEDOUT)
        log_error("Sending to %s failed: the peer accepted nothing for %d s; the connection is dropped and no "
                  "more profile output will be sent (the program goes on)",
                  o->name, NET_STALL_MS / 1000);
    else
        log_error("Sending to %s failed: %s; no more profile output will be sent (the program goes on)", o->name,
                  strerror(err));
}

/* Records held back (output_hold_begin): the spool, and the output they are for. */
struct output_hold {
    int fd;     /* the spool */
    int out_fd; /* the output's, while holding */
    bool out_socket;
    uint64_t out_flushed;
    bool holding;
    int err;                 /* the spool's write failed with this (0: it did not) */
    struct record_ends ends; /* where the spool's records end (at each write) */
};

/* A record ends at `at` in the buffer; should the list not grow, an earlier end serves. */
static void ends_add(struct record_ends *e, size_t at)
{
    if (e->n && e->at[e->n - 1] >= at) return;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 256;
        size_t *grown = realloc(e->at, cap * sizeof *grown);
        if (!grown) return;
        e->at = grown;
        e->cap = cap;
    }
    e->at[e->n++] = at;
}

/* The last record end within the first `done` bytes (0 if none). */
static size_t ends_within(const struct record_ends *e, size_t done)
{
    size_t lo = 0, hi = e->n; /* the first end beyond `done` is at index lo */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->at[mid] <= done)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? e->at[lo - 1] : 0;
}

/* Record ends of a buffer that reached the spool at `base`, its first `done` bytes, kept
 * about every SPOOL_END_STEP bytes: the release copies the spool to the output a piece at
 * a time, and should the output fail, it is cut at one of these (a few KiB lost at most,
 * where an end for every record would cost 8 bytes each). */
#define SPOOL_END_STEP 4096
static void spool_ends_add(struct record_ends *spool, const struct record_ends *e, uint64_t base, size_t done)
{
    for (size_t i = 0; i < e->n && e->at[i] <= done; i++) {
        bool last = i + 1 == e->n || e->at[i + 1] > done;
        size_t prev = spool->n ? spool->at[spool->n - 1] : 0;
        if (last || base + e->at[i] >= prev + SPOOL_END_STEP) ends_add(spool, (size_t)(base + e->at[i]));
    }
}

/* The spool of held records could not take more (the disk it shares with the output is
 * full): what it holds is whole and still goes out at the release, which then reports the
 * failure once, as the output's; meanwhile `failed` drops the rest without a message. */
static void spool_failed(struct output *o, int err)
{
    o->hold->err = err;
    o->failed = true;
}

/* Writes p[0..len) to a file; the bytes written, *err set when it stopped short. */
static size_t write_some(int fd, const uint8_t *p, size_t len, int *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n > 0)
            done += (size_t)n;
        else if (n == 0 || errno != EINTR) {
            *err = n < 0 ? errno : ENOSPC;
            break;
        }
    }
    return done;
}

/* Sends p[0..len) to the peer, as write_some; a peer that takes nothing for
 * NET_STALL_MS fails with ETIMEDOUT. */
static size_t send_some(int fd, const uint8_t *p, size_t len, int *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = send(fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {fd, POLLOUT, 0};
            int r = poll(&pf, 1, NET_STALL_MS);
            if (r > 0 || (r < 0 && errno == EINTR)) continue;
            *err = r == 0 ? ETIMEDOUT : errno;
        } else {
            *err = n < 0 ? errno : EPIPE;
        }
        break;
    }
    return done;
}

/* Writes b out whole, or cuts a file back to the last whole record that reached it and
 * says so once. */
static void write_buffer(struct output *o, struct buf *b, struct record_ends *e)
{
    if (o->fd < 0 || o->failed || b->oom) { /* closed, broken, or lost bytes */
        if (b->oom && o->fd >= 0) fail(o, ENOMEM);
    } else {
        int err = 0;
        size_t done = o->is_socket ? send_some(o->fd, b->data, b->len, &err) : write_some(o->fd, b->data, b->len, &err);
        if (err && !o->is_socket) {
            size_t keep = ends_within(e, done);
            if (keep < done && ftruncate(o->fd, (off_t)(o->flushed + keep)) == 0)
                lseek(o->fd, (off_t)(o->flushed + keep), SEEK_SET);
            done = keep;
        }
        struct output_hold *h = o->hold && o->hold->holding ? o->hold : NULL;
        if (h) spool_ends_add(&h->ends, e, o->flushed, done);
        o->flushed += done;
        if (err && h)
            spool_failed(o, err);
        else if (err)
            fail(o, err);
    }
    buf_reset(b);
    b->oom = 0;
    e->n = 0;
}

/*
 * The pipe: while a heap dump is written, a thread of its own does the write calls, so
 * that building the next records and the kernel's copy of the last ones overlap. The
 * buffers change hands whole, at record ends; while `busy` the writing thread alone
 * touches the descriptor, `flushed` and `failed`, and the builder waits for it before
 * the next hand-over, so the two never write at once.
 */
struct output_pipe {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct output *o;
    struct buf out; /* records handed over, being written while busy */
    struct record_ends out_ends;
    bool busy, stop;
};

static void *pipe_run(void *arg)
{
    struct output_pipe *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->busy && !p->stop) pthread_cond_wait(&p->cond, &p->lock);
        if (!p->busy) break;
        pthread_mutex_unlock(&p->lock);
        write_buffer(p->o, &p->out, &p->out_ends);
        pthread_mutex_lock(&p->lock);
        p->busy = false;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void pipe_wait_idle(struct output_pipe *p)
{
    while (p->busy) pthread_cond_wait(&p->cond, &p->lock);
}

/* Hands the buffered records to the writing thread, once it is done with the last. */
static void pipe_hand_over(struct output *o)
{
    struct output_pipe *p = o->pipe;
    pthread_mutex_lock(&p->lock);
    pipe_wait_idle(p);
    struct buf full = o->buf;
    struct record_ends full_ends = o->ends;
    o->buf = p->out; /* empty: the thread has written it */
    o->ends = p->out_ends;
    p->out = full;
    p->out_ends = full_ends;
    p->busy = true;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

void output_pipe_begin(struct output *o)
{
    if (o->pipe) return;
    struct output_pipe *p = calloc(1, sizeof *p);
    if (!p) return; /* writes stay on the caller's thread */
    p->o = o;
    buf_init(&p->out);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    /* The JVM's signals are for its own threads: this one blocks them all. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&p->thread, NULL, pipe_run, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return;
    }
    o->pipe = p;
}

void output_pipe_end(struct output *o)
{
    struct output_pipe *p = o->pipe;
    if (!p) return;
    if (o->buf.len || o->buf.oom) pipe_hand_over(o);
    pthread_mutex_lock(&p->lock);
    pipe_wait_idle(p);
    p->stop = true;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    o->pipe = NULL;
    buf_free(&p->out);
    free(p->out_ends.at);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void write_out(struct output *o);

/* ---- holding records back ---- */

/* An unnamed file for the spool: in the output's folder (a file), else TMPDIR. */
static int spool_open(const struct output *o)
{
    char dir[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s", tmp && *tmp ? tmp : "/tmp");
    if (!o->is_socket && o->name) {
        snprintf(dir, sizeof dir, "%s", o->name);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir] = 0;
        else
            snprintf(dir, sizeof dir, ".");
    }
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[FD_PATH_MAX];
    snprintf(path, sizeof path, "%s/.hprof-spool-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}

bool output_hold_begin(struct output *o)
{
    if (o->hold || o->fd < 0 || o->failed) return false;
    struct output_hold *h = calloc(1, sizeof *h);
    if (!h) return false;
    h->fd = spool_open(o);
    if (h->fd < 0) {
        free(h);
        return false;
    }
    output_flush(o); /* what came before goes out first; the pipe is idle */
    h->out_fd = o->fd;
    h->out_socket = o->is_socket;
    h->out_flushed = o->flushed;
    o->fd = h->fd;
    o->is_socket = false;
    o->flushed = 0;
    h->holding = true;
    o->hold = h;
    return true;
}

void output_hold_stop(struct output *o)
{
    struct output_hold *h = o->hold;
    if (!h || !h->holding) return;
    output_flush(o);
    h->holding = false;
    if (h->err) o->failed = false; /* it was not failed at output_hold_begin */
    o->fd = h->out_fd;
    o->is_socket = h->out_socket;
    o->flushed = h->out_flushed;
}

void output_hold_release(struct output *o)
{
    struct output_hold *h = o->hold;
    if (!h) return;
    output_hold_stop(o);
    uint64_t at = 0;
    for (size_t i = 0; i < h->ends.n && !o->failed; i++) {
        size_t len = (size_t)(h->ends.at[i] - at);
        if (buf_reserve(&o->buf, len) != 0) {
            fail(o, ENOMEM);
            break;
        }
        if (pread(h->fd, o->buf.data + o->buf.len, len, (off_t)at) != (ssize_t)len) {
            fail(o, EIO);
            break;
        }
        o->buf.len += len;
        at += len;
        ends_add(&o->ends, o->buf.len);
        write_out(o);
    }
    output_flush(o);
    if (h->err) fail(o, h->err); /* records after the spool's last whole one are lost */
    close(h->fd);
    free(h->ends.at);
    free(h);
    o->hold = NULL;
}

static void write_out(struct output *o)
{
    if (o->pipe)
        pipe_hand_over(o);
    else
        write_buffer(o, &o->buf, &o->ends);
}

void output_record_end(struct output *o)
{
    ends_add(&o->ends, o->buf.len);
    if (o->buf.len >= FLUSH_THRESHOLD || o->buf.oom) write_out(o);
}

void output_flush(struct output *o)
{
    write_out(o);
    if (o->pipe) {
        pthread_mutex_lock(&o->pipe->lock);
        pipe_wait_idle(o->pipe);
        pthread_mutex_unlock(&o->pipe->lock);
    }
}

/* The output's next file (fd, or -1 for none) in place of the one it had: the lock and
 * the buffers stay, so writers waiting on the lock find the new file. */
static void switch_to(struct output *o, int fd, const char *name)
{
    output_end_file(o);
    char *copy = strdup(name);
    if (copy) {
        free(o->name);
        o->name = copy;
    }
    o->fd = fd;
    o->failed = false;
    o->flushed = 0;
    o->start_micros = clock_wall_us();
    o->header_millis = o->start_micros / 1000u;
}

int output_reopen_file(struct output *o, const char *path, bool text, bool force, char **chosen_name, char *err,
                       size_t errlen)
{
    int fd = open_path(path, text, force, chosen_name, err, errlen);
    if (fd < 0) return -1;
    switch_to(o, fd, *chosen_name ? *chosen_name : path);
    return 0;
}

void output_reopen_none(struct output *o) { switch_to(o, -1, "(no file)"); }

void output_end_file(struct output *o)
{
    output_flush(o);
    if (o->fd >= 0 && !o->is_socket) close(o->fd);
    if (!o->is_socket) o->fd = -1;
}

void output_close(struct output *o)
{
    output_lock(o);
    output_pipe_end(o);
    write_out(o);
    free(o->ends.at);
    memset(&o->ends, 0, sizeof o->ends);
    if (o->fd >= 0) {
        if (o->is_socket) shutdown(o->fd, SHUT_WR);
        close(o->fd);
        o->fd = -1;
    }
    output_unlock(o);
}
