/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof list: the JVMs this user may attach to, as jps finds them, from their jvmstat
 * files: /tmp/hsperfdata_<user>/<pid>, and the same inside each container (a process
 * whose root is another) that this user may look into.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_attach.h"
#include "exits.h"
#include "util/clock.h"
#include "util/jvmstat.h"
#include "target.h"
#include "target_jvm.h"

static void format_uptime(long long ms, char *buf, size_t len)
{
    long long s = ms / 1000;
    if (ms < 0)
        snprintf(buf, len, "-");
    else if (s < 3600)
        snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
    else if (s < 86400)
        snprintf(buf, len, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else
        snprintf(buf, len, "%lldd%02lldh", s / 86400, s / 3600 % 24);
}

/* One line for the JVM, if it is one this user may attach to; true when printed. */
static bool show(pid_t pid)
{
    struct target t;
    uint8_t *data = NULL;
    size_t len = 0;
    /* Processes of other users, and those that are not JVMs, are skipped quietly. */
    if (target_read(pid, &t) != 0) return false;
    int rc = target_perfdata(&t, &data, &len);
    target_close(&t);
    struct jvmstat j;
    char err[160], cmd[512] = "", version[64] = "?", up[32];
    if (rc != 0 || jvmstat_open(&j, data, len, err, sizeof err) != 0) {
        free(data);
        return false;
    }
    jvmstat_string(&j, "sun.rt.javaCommand", cmd, sizeof cmd);
    jvmstat_string(&j, "java.property.java.version", version, sizeof version);
    format_uptime(jvmstat_uptime_ms(&j, (long long)(clock_wall_us() / 1000)), up, sizeof up);
    cmd[strcspn(cmd, " ")] = 0; /* the main class or the jar, as jps shows it */
    target_printable(cmd, false);
    target_printable(version, false);
    printf("%-8d %-40s %-10s %s%s\n", (int)pid, cmd[0] ? cmd : "-", version, up, t.other_root ? "  (container)" : "");
    free(data);
    return true;
}

int cmd_list(int argc, char **argv)
{
    if (argc > 1) return tool_fail(EXIT_USAGE, "usage: hprof list");
    DIR *d = opendir("/proc");
    if (!d) return tool_fail(EXIT_ERROR, "cannot read /proc");
    printf("%-8s %-40s %-10s %s\n", "PID", "MAIN", "JDK", "UPTIME");
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = target_parse_pid(e->d_name);
        if (pid > 0 && pid != getpid()) show(pid);
    }
    closedir(d);
    return EXIT_DONE;
}
