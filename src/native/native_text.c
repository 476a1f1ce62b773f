/* SPDX-License-Identifier: Apache-2.0 */
/* A kernel's text file read whole (native_text.h). */
#include "native/native_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

char *ntx_read(const char *path, size_t max, size_t *len)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ssize_t got = 0;
    while (buf && ((got = read(fd, buf + n, cap - n)) > 0 || (got < 0 && errno == EINTR))) {
        if (got < 0) continue;
        n += (size_t)got;
        if (n < cap) continue;
        char *more = cap < max ? realloc(buf, cap *= 2) : NULL;
        if (!more) free(buf);
        buf = more;
    }
    close(fd);
    if (!buf || got < 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
