#include "writers/output.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

#define FLUSH_THRESHOLD (256 * 1024)

static uint64_t now_micros(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void init(struct output *o, int fd, bool is_socket, const char *name)
{
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    o->fd = fd;
    o->is_socket = is_socket;
    o->name = strdup(name);
    buf_init(&o->buf);
    o->start_micros = now_micros();
    o->header_millis = o->start_micros / 1000u;
}

/*
 * With force=n an existing file is never touched; the new name carries the process id
 * as the original agent's did: text "a.txt" -> "a.<pid>.txt", "foo" -> "foo.<pid>.txt",
 * binary "foo" -> "foo.<pid>". Should even that exist, "-1", "-2" ... are added.
 */
static int open_new(const char *path, bool text, char **chosen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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
        if (i == 0) snprintf(name, n, "%.*s.%d%s", (int)cut, path, (int)getpid(), suffix);
        else snprintf(name, n, "%.*s.%d-%d%s", (int)cut, path, (int)getpid(), i, suffix);
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            *chosen = name;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    free(name);
    return -1;
}

int output_open_file(struct output *o, const char *path, bool text, bool force, char **chosen_name,
                     char *err, size_t errlen)
{
    *chosen_name = NULL;
    int fd = force ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
                   : open_new(path, text, chosen_name);
    if (fd < 0) {
        snprintf(err, errlen, "Cannot open file %s for writing: %s", path, strerror(errno));
        return -1;
    }
    init(o, fd, false, *chosen_name ? *chosen_name : path);
    return 0;
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
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char name[300];
    snprintf(name, sizeof name, "%s:%d", host, port);
    init(o, fd, true, name);
    return 0;
}

void output_lock(struct output *o) { pthread_mutex_lock(&o->lock); }
void output_unlock(struct output *o) { pthread_mutex_unlock(&o->lock); }

uint32_t output_micros(struct output *o) { return (uint32_t)(now_micros() - o->header_millis * 1000u); }

int output_socket_fd(struct output *o) { return o->is_socket ? o->fd : -1; }

static void fail(struct output *o, const char *what, int err)
{
    if (o->failed) return;
    o->failed = true;
    if (o->is_socket)
        log_error("%s to %s failed: %s; no more profile output will be sent (the program goes on)",
                  what, o->name, strerror(err));
    else
        log_error("%s to %s failed: %s; the profile is cut at the last whole record (the program goes on)",
                  what, o->name, strerror(err));
}

static void write_out(struct output *o)
{
    size_t done = 0;
    if (o->fd < 0 || o->failed || o->buf.oom) {   /* closed, broken, or lost bytes */
        if (o->buf.oom && o->fd >= 0) fail(o, "Buffering output", ENOMEM);
        buf_reset(&o->buf);
        o->buf.oom = 0;
        return;
    }
    while (done < o->buf.len) {
        ssize_t n = o->is_socket ? send(o->fd, o->buf.data + done, o->buf.len - done, MSG_NOSIGNAL)
                                 : write(o->fd, o->buf.data + done, o->buf.len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            /* Cut a file back to the last whole record so readers see a clean end. */
            if (!o->is_socket && ftruncate(o->fd, (off_t)o->flushed) == 0) lseek(o->fd, (off_t)o->flushed, SEEK_SET);
            fail(o, "Writing", e);
            break;
        }
        done += (size_t)n;
    }
    if (!o->failed) o->flushed += done;
    buf_reset(&o->buf);
}

void output_record_end(struct output *o)
{
    if (o->buf.len >= FLUSH_THRESHOLD || o->buf.oom) write_out(o);
}

void output_flush(struct output *o) { write_out(o); }

void output_close(struct output *o)
{
    output_lock(o);
    write_out(o);
    if (o->fd >= 0) {
        if (o->is_socket) shutdown(o->fd, SHUT_WR);
        close(o->fd);
        o->fd = -1;
    }
    output_unlock(o);
}
