/* SPDX-License-Identifier: Apache-2.0 */
#include "util/fd_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

void fd_make_private(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077)) fchmod(fd, st.st_mode & 0700);
}

int fd_temp_beside(const char *path, char **tmp)
{
    *tmp = NULL;
    char *name = NULL;
    if (asprintf(&name, "%s.tmp-XXXXXX", path) < 0) return -1;
    int fd = mkostemp(name, O_CLOEXEC); /* O_CREAT|O_EXCL, 0600 */
    if (fd < 0) {
        int saved = errno;
        free(name);
        errno = saved;
        return -1;
    }
    *tmp = name;
    return fd;
}

int fd_write_file(const char *path, const void *p, size_t n)
{
    char *tmp;
    int fd = fd_temp_beside(path, &tmp);
    if (fd < 0) return -1;
    int rc = fd_write_all(fd, p, n);
    if (close(fd) != 0) rc = -1;
    if (rc == 0) rc = rename(tmp, path);
    int saved = errno;
    if (rc != 0) unlink(tmp);
    free(tmp);
    errno = saved;
    return rc;
}
