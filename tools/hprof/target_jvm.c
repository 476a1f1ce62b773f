/* SPDX-License-Identifier: Apache-2.0 */
#include "target_jvm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exits.h"
#include "target_fs.h"
#include "util/jvmstat.h"

#define PERFDATA_MAX (64u << 20) /* far above any JVM's (PerfDataMemorySize: 64 KiB) */

/* Reads fd, a regular file, to its end, at most PERFDATA_MAX bytes, and closes it: /proc
 * files say they are empty, so the size fstat gives is no bound here. */
static int read_fd(int fd, uint8_t **data, size_t *len)
{
    if (fd < 0) return -1;
    struct stat st;
    size_t cap = 4096, got = 0;
    uint8_t *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= PERFDATA_MAX) {
        if ((size_t)st.st_size >= cap) cap = (size_t)st.st_size < PERFDATA_MAX ? (size_t)st.st_size + 1 : PERFDATA_MAX;
        buf = malloc(cap);
    }
    while (buf) {
        if (got == cap) { /* a file that grows as it is read: no further than PERFDATA_MAX */
            size_t more_cap = cap < PERFDATA_MAX / 2 ? cap * 2 : PERFDATA_MAX;
            uint8_t *more = cap < PERFDATA_MAX ? realloc(buf, more_cap) : NULL;
            if (!more) break;
            buf = more;
            cap = more_cap;
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

/* Does /proc/<pid>/maps name a file whose path holds one of these (NULL-ended)? */
static bool maps_any(const struct target *t, const char *const *names)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)t->pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        for (const char *const *n = names; *n && !found; n++) found = strstr(line, *n) != NULL;
    fclose(f);
    return found;
}

bool target_maps_libjvm(const struct target *t)
{
    static const char *const LIBJVM[] = {"/libjvm.so", NULL};
    return maps_any(t, LIBJVM);
}

int target_perfdata(const struct target *t, uint8_t **data, size_t *len)
{
    /* A JVM keeps its jvmstat file mapped: a process that maps neither it nor libjvm.so
     * gets no child of its user's (hprof list, as root, visits every process). */
    static const char *const JVM[] = {"/libjvm.so", "/hsperfdata_", NULL};
    int fd;
    off_t size;
    if (tfs_needs_child(t) && !maps_any(t, JVM)) return -1;
    return tfs_open_perfdata(t, &fd, &size) == 0 ? read_fd(fd, data, len) : -1;
}

/* /proc/<pid>/<what>, NUL-separated strings, read to its end (read_fd) into *buf. */
static int read_proc(const struct target *t, const char *what, uint8_t **buf, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)t->pid, what);
    return read_fd(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), buf, len);
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
