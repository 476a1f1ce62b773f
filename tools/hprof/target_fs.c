/* SPDX-License-Identifier: Apache-2.0 */
#include "target_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "util/fd_io.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

enum op { OP_READ, OP_PERFDATA, OP_SOCKET, OP_MKDTEMP, OP_REMOVE, OP_CREATE, OP_UNLINK, OP_INSTALL };

struct request {
    enum op op;
    int in_cwd; /* OP_CREATE, OP_UNLINK: in the working directory, not dir */
    int src;    /* OP_INSTALL: the file to copy (inherited) */
    const char *dir, *name;
};

/* What the child sends back, with a descriptor when it opened one. */
struct answer {
    int rc, err;
    off_t size;
    char name[NAME_MAX + 1];
};

/* path under root, no symbolic link followed, never above root. Without openat2 (before
 * Linux 5.6, or HPROF_NO_OPENAT2=1 for the tests) a walk a name at a time, refusing "..". */
static int resolve(int root, const char *path, int flags)
{
    struct open_how how = {.flags = (unsigned)(flags | O_NOFOLLOW | O_CLOEXEC),
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    if (!env_switch("HPROF_NO_OPENAT2", false)) {
        long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
        if (fd >= 0 || errno != ENOSYS) return (int)fd;
    }
    char copy[PATH_MAX], *save = NULL;
    if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy) return errno = ENAMETOOLONG, -1;
    int dir = openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char *next, *name = strtok_r(copy, "/", &save);
    if (!name) return dir < 0 ? -1 : (close(dir), openat(root, ".", flags | O_CLOEXEC));
    for (; dir >= 0 && name; name = next) {
        next = strtok_r(NULL, "/", &save);
        if (strcmp(name, "..") == 0) {
            close(dir);
            return errno = EXDEV, -1;
        }
        int fd = openat(dir, name, (next ? O_PATH | O_DIRECTORY : flags) | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        close(dir);
        errno = err;
        if (!next) return fd;
        dir = fd;
    }
    return -1;
}

bool tfs_needs_child(const struct target *t) { return geteuid() == 0 && t->uid != 0; }

/* The child's part: drop to the JVM's user, for good. */
static int become(const struct target *t)
{
    if (!tfs_needs_child(t)) return 0;
    prctl(PR_SET_DUMPABLE, 0); /* the JVM's user may not trace or read this process */
    if (setgroups((size_t)t->ngroups, t->groups) != 0 || setgid(t->gid) != 0 || setuid(t->uid) != 0) return -1;
    return setuid(0) == 0 ? -1 : 0; /* root cannot come back */
}

/* fd (opened O_NONBLOCK: a FIFO never blocks) if it is a regular file of uid, made
 * blocking again; else closed, -1. */
static int regular_of(int fd, uid_t uid, struct answer *a)
{
    struct stat st;
    if (fd < 0) return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) {
        close(fd);
        return errno = EPERM, -1;
    }
    a->size = st.st_size;
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 ? fd : (close(fd), -1);
}

static int open_read(int root, const char *path, uid_t uid, struct answer *a)
{
    return regular_of(resolve(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY), uid, a);
}

/* HotSpot's jvmstat file, dir/hsperfdata_<user>/name: the user as the JVM's root names
 * it, so the first folder hsperfdata_* (a real one, not a link) that holds a regular
 * file `name` of the JVM's user. */
static int open_perfdata(int root, const char *dir, const char *name, uid_t uid, struct answer *a)
{
    int d = resolve(root, dir, O_RDONLY | O_DIRECTORY);
    DIR *list = d < 0 ? NULL : fdopendir(d);
    if (!list) return d < 0 ? -1 : (close(d), -1);
    int fd = -1;
    struct dirent *e;
    while (fd < 0 && (e = readdir(list))) {
        if (strncmp(e->d_name, "hsperfdata_", 11) != 0) continue;
        int sub = openat(dirfd(list), e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        fd = regular_of(openat(sub, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC), uid, a);
        close(sub);
    }
    closedir(list);
    return fd < 0 ? (errno = ENOENT, -1) : fd;
}

/* jcmd's rule: a socket of the JVM's user and group that no one else may open. */
static int open_socket(int root, const char *path, const struct target *t)
{
    int fd = resolve(root, path, O_PATH);
    struct stat st;
    if (fd < 0) return -1;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != t->uid || st.st_gid != t->gid ||
        (st.st_mode & (S_IRWXG | S_IRWXO))) {
        close(fd);
        return errno = EPERM, -1;
    }
    return fd;
}

static int make_temp(int root, const char *dir, const char *prefix, struct answer *a)
{
    int d = resolve(root, dir, O_PATH | O_DIRECTORY);
    if (d < 0) return -1;
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned long long seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    for (int tries = 0; tries < 100; tries++) {
        if (getentropy(&seed, sizeof seed) != 0) seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int n = snprintf(a->name, sizeof a->name, "%s", prefix);
        for (int i = 0; i < 10 && n < (int)sizeof a->name - 1; i++, seed /= 62) a->name[n++] = letters[seed % 62];
        a->name[n] = 0;
        if (mkdirat(d, a->name, 0700) == 0) return close(d), 0;
        if (errno != EEXIST) break;
    }
    int err = errno;
    close(d);
    return errno = err, -1;
}

static int remove_in(int root, const char *dir, const char *file)
{
    const char *slash = strrchr(dir, '/');
    char parent[PATH_MAX];
    if (!slash || !slash[1] || strcmp(slash + 1, "..") == 0) return errno = EINVAL, -1;
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
    int p = resolve(root, parent[0] ? parent : "/", O_PATH | O_DIRECTORY), rc = -1;
    int d = p < 0 ? -1 : openat(p, slash + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* Twice: a file made between the unlink and the rmdir (a reply the agent wrote just
     * as the tool gave up waiting) would keep the folder for good. */
    for (int tries = 0; d >= 0 && tries < 2; tries++) {
        if (file && unlinkat(d, file, 0) != 0 && errno != ENOENT) break;
        if ((rc = unlinkat(p, slash + 1, AT_REMOVEDIR)) == 0 || errno != ENOTEMPTY || !file) break;
    }
    int err = errno;
    if (d >= 0) close(d);
    if (p >= 0) close(p);
    return errno = err, rc;
}

static int create_in(int base, const char *name)
{
    int fd = openat(base, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    return fd < 0 ? -1 : (close(fd), 0);
}

static int install(int root, const struct request *q, uid_t uid)
{
    const char *slash = strrchr(q->dir, '/');
    char parent[PATH_MAX];
    if (!slash || !slash[1]) return errno = EINVAL, -1;
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - q->dir), q->dir);
    int p = resolve(root, parent[0] ? parent : "/", O_PATH | O_DIRECTORY);
    if (p < 0) return -1;
    if (mkdirat(p, slash + 1, 0700) != 0 && errno != EEXIST) return close(p), -1;
    int d = openat(p, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(p);
    struct stat st;
    if (d < 0) return -1;
    if (fstat(d, &st) != 0 || st.st_uid != uid || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return close(d), errno = EPERM, -1;
    int rc = 0, out = openat(d, q->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
    if (out >= 0) {
        rc = fd_copy(q->src, out);
        close(out);
        if (rc != 0) unlinkat(d, q->name, 0);
    } else if (errno != EEXIST) {
        rc = -1;
    }
    int err = errno;
    close(d);
    return errno = err, rc;
}

/* Runs the request; a descriptor it opened, 0 when it opens none, or -1. */
static int carry_out(const struct target *t, int root, int cwd, const struct request *q, struct answer *a)
{
    switch (q->op) {
    case OP_READ: return open_read(root, q->dir, t->uid, a);
    case OP_PERFDATA: return open_perfdata(root, q->dir, q->name, t->uid, a);
    case OP_SOCKET: return open_socket(root, q->dir, t);
    case OP_MKDTEMP: return make_temp(root, q->dir, q->name, a);
    case OP_REMOVE: return remove_in(root, q->dir, q->name);
    case OP_CREATE:
    case OP_UNLINK: {
        int base = q->in_cwd ? cwd : resolve(root, q->dir, O_PATH | O_DIRECTORY);
        int rc = base < 0 ? -1 : q->op == OP_CREATE ? create_in(base, q->name) : unlinkat(base, q->name, 0);
        if (!q->in_cwd && base >= 0) close(base);
        return rc;
    }
    case OP_INSTALL: return install(root, q, t->uid);
    }
    return errno = EINVAL, -1;
}

/* Does the request open a descriptor to hand back? */
static bool hands_fd(enum op op) { return op == OP_READ || op == OP_PERFDATA || op == OP_SOCKET; }

static void child(const struct target *t, int root, int cwd, const struct request *q, int sock)
{
    struct answer a = {0};
    int fd = become(t) == 0 ? carry_out(t, root, cwd, q, &a) : -1;
    a.rc = fd < 0 ? -1 : 0;
    a.err = fd < 0 ? errno : 0;
    struct iovec iov = {&a, sizeof a};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } c;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0 && hands_fd(q->op)) {
        m.msg_control = c.buf;
        m.msg_controllen = sizeof c.buf;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof fd);
    }
    _exit(sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof a ? 0 : 1);
}

/* The answer and the descriptor it carries (-1 when none). */
static int receive(int sock, struct answer *a, int *fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } c;
    struct iovec iov = {a, sizeof *a};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf};
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    *fd = -1;
    struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(h), sizeof *fd);
    return n == (ssize_t)sizeof *a ? 0 : -1;
}

static int run(const struct target *t, const struct request *q, struct answer *a, int *fd)
{
    int sv[2];
    *fd = -1;
    memset(a, 0, sizeof *a);
    if (t->root_fd < 0) return errno = ESRCH, -1;
    if (!tfs_needs_child(t)) { /* this tool is the JVM's user already (become() would do nothing): no fork */
        int got = carry_out(t, t->root_fd, t->cwd_fd, q, a);
        if (got < 0) return -1;
        if (hands_fd(q->op)) *fd = got;
        return 0;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        child(t, t->root_fd, t->cwd_fd, q, sv[1]);
    }
    close(sv[1]);
    int rc = pid > 0 ? receive(sv[0], a, fd) : -1, status;
    close(sv[0]);
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (rc != 0) return errno = EIO, -1;
    if (a->rc != 0) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        return errno = a->err, -1;
    }
    return 0;
}

int tfs_open_read(const struct target *t, const char *path, int *fd, off_t *size)
{
    struct request q = {.op = OP_READ, .dir = path};
    struct answer a;
    int rc = run(t, &q, &a, fd);
    if (rc == 0 && *fd < 0) return errno = EIO, -1;
    *size = a.size;
    return rc;
}

int tfs_open_perfdata(const struct target *t, int *fd, off_t *size)
{
    char name[16];
    snprintf(name, sizeof name, "%d", (int)t->nspid);
    struct request q = {.op = OP_PERFDATA, .dir = "/tmp", .name = name};
    struct answer a;
    int rc = run(t, &q, &a, fd);
    if (rc == 0 && *fd < 0) return errno = EIO, -1;
    *size = a.size;
    return rc;
}

int tfs_open_socket(const struct target *t, const char *path, int *fd)
{
    struct request q = {.op = OP_SOCKET, .dir = path};
    struct answer a;
    int rc = run(t, &q, &a, fd);
    return rc == 0 && *fd < 0 ? (errno = EIO, -1) : rc;
}

int tfs_mkdtemp(const struct target *t, const char *dir, const char *prefix, char *name, size_t len)
{
    struct request q = {.op = OP_MKDTEMP, .dir = dir, .name = prefix};
    struct answer a;
    int fd;
    if (run(t, &q, &a, &fd) != 0) return -1;
    snprintf(name, len, "%s", a.name);
    return 0;
}

int tfs_remove(const struct target *t, const char *dir, const char *file)
{
    struct request q = {.op = OP_REMOVE, .dir = dir, .name = file};
    struct answer a;
    int fd;
    return run(t, &q, &a, &fd);
}

int tfs_create(const struct target *t, int in_cwd, const char *dir, const char *name)
{
    struct request q = {.op = OP_CREATE, .in_cwd = in_cwd, .dir = dir, .name = name};
    struct answer a;
    int fd;
    return run(t, &q, &a, &fd);
}

int tfs_unlink(const struct target *t, int in_cwd, const char *dir, const char *name)
{
    struct request q = {.op = OP_UNLINK, .in_cwd = in_cwd, .dir = dir, .name = name};
    struct answer a;
    int fd;
    return run(t, &q, &a, &fd);
}

int tfs_install(const struct target *t, const char *dir, const char *name, int src)
{
    struct request q = {.op = OP_INSTALL, .dir = dir, .name = name, .src = src};
    struct answer a;
    int fd;
    return run(t, &q, &a, &fd);
}

int tfs_copy_bounded(int in, int out, off_t max)
{
    char buf[65536];
    off_t done = 0;
    while (done < max) {
        size_t want = max - done < (off_t)sizeof buf ? (size_t)(max - done) : sizeof buf;
        ssize_t n = read(in, buf, want);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? -1 : 0;
        if (fd_write_all(out, buf, (size_t)n) != 0) return -1;
        done += n;
    }
    return 0;
}
