/* SPDX-License-Identifier: Apache-2.0 */
#include "target.h"

#include <ctype.h>
#include <dirent.h>
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
#include "util/jvmstat.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define PERFDATA_MAX (64u << 20) /* far above any JVM's (PerfDataMemorySize: 64 KiB) */

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
    /* The JVM's /tmp: through its root where we may (a container), else ours. */
    snprintf(t->tmp, sizeof t->tmp, "/proc/%d/root/tmp", (int)pid);
    if (!t->other_root || access(t->tmp, W_OK) != 0) snprintf(t->tmp, sizeof t->tmp, "/tmp");
    return 0;
}

int target_open(pid_t pid, struct target *t)
{
    int rc = target_read(pid, t);
    char who[64];
    if (rc == 0 && open_bases(t) != 0) {
        target_close(t);
        rc = EXIT_NO_PROCESS;
    }
    if (rc == EXIT_NO_PROCESS) return tool_fail(rc, "no such process: %d", (int)pid);
    if (rc == EXIT_PERMISSION)
        return tool_fail(rc,
                         "process %d (%s) belongs to %s: only that user (or root) may attach to it or read its "
                         "counters",
                         (int)pid, t->name, user_name(t->uid, who, sizeof who));
    return rc;
}

/* Reads a regular file to its end, at most PERFDATA_MAX bytes, never through a symbolic
 * link: /proc files say they are empty, so the size fstat gives is no bound here. */
static int read_whole(const char *path, uint8_t **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    size_t cap = 4096, got = 0;
    uint8_t *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= PERFDATA_MAX) {
        if ((size_t)st.st_size >= cap) cap = (size_t)st.st_size + 1;
        buf = malloc(cap);
    }
    while (buf) {
        if (got == cap) {
            uint8_t *more = cap < PERFDATA_MAX ? realloc(buf, cap * 2) : NULL;
            if (!more) break;
            buf = more;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got == 0) {
        free(buf);
        return -1;
    }
    *data = buf;
    *len = got;
    return 0;
}

int target_perfdata(const struct target *t, uint8_t **data, size_t *len)
{
    /* /tmp/hsperfdata_<user>/<pid>: the user is the JVM's, as named inside its container. */
    DIR *d = opendir(t->tmp);
    if (!d) return -1;
    int rc = -1;
    struct dirent *e;
    while (rc != 0 && (e = readdir(d))) {
        if (strncmp(e->d_name, "hsperfdata_", 11) != 0) continue;
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", t->tmp, e->d_name);
        /* HotSpot's own rule: the directory is a real one, not a link to elsewhere. */
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        snprintf(path, sizeof path, "%s/%s/%d", t->tmp, e->d_name, (int)t->nspid);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == t->uid) rc = read_whole(path, data, len);
    }
    closedir(d);
    return rc;
}

bool target_maps_libjvm(const struct target *t)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)t->pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libjvm.so") != NULL;
    fclose(f);
    return found;
}

/* /proc/<pid>/<what>, NUL-separated strings, read to its end (read_whole) into *buf. */
static int read_proc(const struct target *t, const char *what, uint8_t **buf, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)t->pid, what);
    return read_whole(path, buf, len);
}

/* Is arg one of the words of s (split at blanks, as HotSpot splits JAVA_TOOL_OPTIONS)? */
static bool has_word(const char *s, size_t n, const char *arg)
{
    size_t k = strlen(arg), start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !isspace((unsigned char)s[i])) continue;
        if (i - start == k && memcmp(s + start, arg, k) == 0) return true;
        start = i + 1;
    }
    return false;
}

/* Was the JVM started with this option: on its command line (readable by all), or in
 * the variables the launcher and HotSpot take options from (its environment, readable
 * by its user and root)? */
static bool has_arg(const struct target *t, const char *arg)
{
    static const char *const VARS[] = {"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "_JAVA_OPTIONS="};
    uint8_t *buf = NULL;
    size_t len = 0;
    bool found = false;
    if (read_proc(t, "cmdline", &buf, &len) == 0) {
        for (size_t i = 0; i < len && !found; i += strnlen((char *)buf + i, len - i) + 1)
            found = strncmp((char *)buf + i, arg, len - i) == 0;
        free(buf);
    }
    if (found || read_proc(t, "environ", &buf, &len) != 0) return found;
    for (size_t i = 0, n; i < len && !found; i += n + 1) {
        const char *v = (char *)buf + i;
        n = strnlen(v, len - i);
        for (size_t j = 0; j < sizeof VARS / sizeof VARS[0] && !found; j++) {
            size_t k = strlen(VARS[j]);
            found = n > k && memcmp(v, VARS[j], k) == 0 && has_word(v + k, n - k, arg);
        }
    }
    free(buf);
    return found;
}

int target_check_attachable(const struct target *t)
{
    uint8_t *perf = NULL;
    size_t len = 0;
    bool jvm = target_perfdata(t, &perf, &len) == 0 || target_maps_libjvm(t);
    if (!jvm) return tool_fail(EXIT_NOT_JVM, "process %d (%s) is not a HotSpot JVM", (int)t->pid, t->name);
    /* jvmstat says whether attach is on: sun.rt.jvmCapabilities, its first character. */
    bool off = false;
    struct jvmstat j;
    char err[160], caps[80];
    if (perf && jvmstat_open(&j, perf, len, err, sizeof err) == 0 &&
        jvmstat_string(&j, "sun.rt.jvmCapabilities", caps, sizeof caps))
        off = caps[0] == '0';
    free(perf);
    if (off || has_arg(t, "-XX:+DisableAttachMechanism"))
        return tool_fail(EXIT_ATTACH_OFF,
                         "process %d (%s) does not take attach requests: it runs with "
                         "-XX:+DisableAttachMechanism",
                         (int)t->pid, t->name);
    return 0;
}
