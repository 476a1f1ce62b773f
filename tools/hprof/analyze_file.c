/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dump, mapped read-only: the analysis never writes to it. A gzipped dump is inflated
 * by gzip(1) into a temp file (0600, unlinked at once, in $TMPDIR) that is mapped instead:
 * the dump needs its bytes addressable, and the page cache holds them better than our heap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze.h"

/* A temp file holding path inflated; its fd, or -1. */
static int inflate(const char *path, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/hprof-analyze-XXXXXX", dir && *dir ? dir : "/tmp");
    int out = mkstemp(tmp); /* mkstemp makes it 0600 */
    if (out < 0) return snprintf(err, errlen, "%s: %s", tmp, strerror(errno)), -1;
    unlink(tmp);
    pid_t pid = fork();
    if (pid < 0) return close(out), snprintf(err, errlen, "fork: %s", strerror(errno)), -1;
    if (pid == 0) {
        dup2(out, 1);
        execlp("gzip", "gzip", "-dc", "--", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        close(out);
        return snprintf(err, errlen, "%s: gzip -dc failed (status %d)", path, WIFEXITED(st) ? WEXITSTATUS(st) : -1), -1;
    }
    return out;
}

int an_file_open(struct an_file *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    unsigned char magic[2] = {0, 0};
    if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        close(fd);
        fd = inflate(path, err, errlen);
        if (fd < 0) return -1;
    }
    struct stat s;
    if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode)) {
        close(fd);
        return snprintf(err, errlen, "%s: not a regular file", path), -1;
    }
    if (s.st_size == 0) {
        close(fd);
        return snprintf(err, errlen, "%s: empty file", path), -1;
    }
    void *p = mmap(NULL, (size_t)s.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno)), -1;
    }
    madvise(p, (size_t)s.st_size, MADV_SEQUENTIAL);
    f->p = p;
    f->size = (uint64_t)s.st_size;
    f->fd = fd;
    return 0;
}

void an_file_close(struct an_file *f)
{
    if (f->p) munmap((void *)f->p, (size_t)f->size);
    if (f->fd > 0) close(f->fd);
    memset(f, 0, sizeof *f);
}

uint64_t an_memory_available(void)
{
    FILE *m = fopen("/proc/meminfo", "r");
    if (!m) return UINT64_MAX;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, m))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(m);
    return kb ? (uint64_t)kb * 1024 : UINT64_MAX;
}
