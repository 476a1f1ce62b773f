/* SPDX-License-Identifier: Apache-2.0 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exits.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int tool_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprof: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

/* The length of the valid UTF-8 sequence at s (1 to 4; 0 when there is none): no
 * overlong form, no surrogate, nothing above U+10FFFF. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
    if (s[0] < 0xc2 || s[0] > 0xf4) return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

void target_printable(char *s, bool keep_lines)
{
    for (unsigned char *p = (unsigned char *)s; *p;) {
        int n = *p < 0x80 ? 1 : utf8_length(p);
        if (n == 0) { /* a byte of no character: C1 controls (0x80-0x9f) to a terminal in 8 bits */
            if (*p <= 0x9f) *p = '?';
            p++;
        } else if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) { /* U+0080-U+009F, C1 controls in UTF-8 */
            p[0] = p[1] = '?';
            p += 2;
        } else {
            if (n == 1 && ((*p < 0x20 && !(keep_lines && (*p == '\n' || *p == '\t'))) || *p == 0x7f)) *p = '?';
            p += n;
        }
    }
}

pid_t target_parse_pid(const char *s)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : -1;
    if (!s || errno || end == s || *end || v <= 0 || v > 0x3fffffff) return -1;
    return (pid_t)v;
}

/* The last number of a /proc status line's value ("NSpid:\t123\t7" gives 7), or the nth. */
static long field(const char *value, int nth)
{
    long v = -1;
    const char *p = value;
    for (int i = 0; *p; i++) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p) break;
        v = x;
        if (i == nth) break;
        p = end;
    }
    return v;
}

static void read_groups(const char *v, struct target *t)
{
    char *end;
    for (long g; t->ngroups < (int)(sizeof t->groups / sizeof t->groups[0]); v = end) {
        g = strtol(v, &end, 10);
        if (end == v) break;
        t->groups[t->ngroups++] = (gid_t)g;
    }
}

static int read_status(pid_t pid, struct target *t)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    t->nspid = pid;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v) continue;
        *v++ = 0;
        if (strcmp(line, "Name") == 0)
            snprintf(t->name, sizeof t->name, "%.*s", (int)strcspn(v + 1, "\n"), v + 1);
        else if (strcmp(line, "Uid") == 0)
            t->uid = (uid_t)field(v, 1);
        else if (strcmp(line, "Gid") == 0)
            t->gid = (gid_t)field(v, 1);
        else if (strcmp(line, "Groups") == 0)
            read_groups(v, t);
        else if (strcmp(line, "NSpid") == 0)
            t->nspid = (pid_t)field(v, 99);
        else if (strcmp(line, "SigCgt") == 0)
            t->sig_caught = strtoull(v, NULL, 16);
        else if (strcmp(line, "SigIgn") == 0)
            t->sig_ignored = strtoull(v, NULL, 16);
    }
    fclose(f);
    target_printable(t->name, false);
    return 0;
}

/* Is the process's root another than ours (a container's)? Unknown counts as ours. */
static bool root_differs(pid_t pid)
{
    char path[64];
    struct stat mine, its;
    snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
    if (stat("/", &mine) != 0 || stat(path, &its) != 0) return false;
    return mine.st_dev != its.st_dev || mine.st_ino != its.st_ino;
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, len, "%s", pw->pw_name);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
    return buf;
}

bool target_alive(const struct target *t)
{
    if (t->pidfd < 0) return kill(t->pid, 0) == 0 || errno == EPERM;
    /* Another user's process: there, but not ours to signal. */
    return syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0) == 0 || errno == EPERM;
}

int target_signal(const struct target *t, int sig)
{
    if (t->pidfd < 0) return kill(t->pid, sig);
    return (int)syscall(SYS_pidfd_send_signal, t->pidfd, sig, NULL, 0);
}

void target_close(struct target *t)
{
    int *fds[] = {&t->pidfd, &t->root_fd, &t->cwd_fd};
    for (int i = 0; i < 3; i++) {
        if (*fds[i] >= 0) close(*fds[i]);
        *fds[i] = -1;
    }
}

/* The process's root and working directory, opened while its pidfd says it is the
 * same process. */
static int open_bases(struct target *t)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/root", (int)t->pid);
    t->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)t->pid);
    t->cwd_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return t->root_fd >= 0 && target_alive(t) ? 0 : -1;
}

int target_read(pid_t pid, struct target *t)
{
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->root_fd = t->cwd_fd = -1;
    /* The pidfd first: what /proc says next is of that process if it is still alive
     * after (else the pid may be another's by now). */
    t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (t->pidfd < 0 && errno == ESRCH) return EXIT_NO_PROCESS;
    if (read_status(pid, t) != 0 || !target_alive(t)) {
        target_close(t);
        return EXIT_NO_PROCESS;
    }
    /* HotSpot takes requests only from its own effective user, or root. */
    if (geteuid() != 0 && t->uid != geteuid()) {
        target_close(t);
        return EXIT_PERMISSION;
    }
    t->other_root = root_differs(pid);
    if (open_bases(t) != 0) {
        target_close(t);
        return EXIT_NO_PROCESS;
    }
    return 0;
}

int target_open(pid_t pid, struct target *t)
{
    int rc = target_read(pid, t);
    char who[64];
    if (rc == EXIT_NO_PROCESS) return tool_fail(rc, "no such process: %d", (int)pid);
    if (rc == EXIT_PERMISSION)
        return tool_fail(rc,
                         "process %d (%s) belongs to %s: only that user (or root) may attach to it or read its "
                         "counters",
                         (int)pid, t->name, user_name(t->uid, who, sizeof who));
    return rc;
}
