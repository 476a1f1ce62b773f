#include "util/fd_io.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

static int put_all(int fd, const void *p, size_t n, bool sock)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = sock ? send(fd, c, n, MSG_NOSIGNAL) : write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return -1;
        }
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

int fd_write_all(int fd, const void *p, size_t n) { return put_all(fd, p, n, false); }

int fd_send_all(int fd, const void *p, size_t n) { return put_all(fd, p, n, true); }

int fd_copy(int in, int out)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? -1 : 0;
        if (fd_write_all(out, buf, (size_t)n) != 0) return -1;
    }
}
