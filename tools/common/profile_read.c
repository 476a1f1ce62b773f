/* SPDX-License-Identifier: Apache-2.0 */
/* A profile file of either format, told apart by its first bytes.
 * Calls text_profile.c and binary_profile.c. */
#include "profile_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_text(const char *path, int fd, size_t size, enum pr_section want, struct stack_profile *p, char *err,
                     size_t errlen)
{
    if (size == 0) {
        snprintf(err, errlen, "the file is empty");
        return -1;
    }
    void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        snprintf(err, errlen, "cannot map it: %s", strerror(errno));
        return -1;
    }
    int rc = pr_read_text(data, size, want, p, err, errlen);
    munmap(data, size);
    return rc;
}

int pr_read_file(const char *path, enum pr_section want, struct stack_profile *p, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "cannot open it: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "not a regular file (a capture of net= is read from the file hprof-listen wrote)");
        close(fd);
        return -1;
    }
    char head[20] = {0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    int rc;
    if (n >= 19 && memcmp(head, "JAVA PROFILE 1.0.", 17) == 0 && head[18] == 0)
        rc = pr_read_binary(path, fd, want, p, err, errlen);
    else if (n > 0 && memchr(head, 0, (size_t)n))
        rc = (snprintf(err, errlen, "not an HPROF profile: a binary file without the \"JAVA PROFILE 1.0.x\" header"),
              -1);
    else
        rc = read_text(path, fd, (size_t)sb.st_size, want, p, err, errlen);
    close(fd);
    return rc;
}
