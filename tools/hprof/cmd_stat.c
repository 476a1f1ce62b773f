/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof stat <pid> [interval [count]]: the JVM's heap, GC and class counters from its
 * jvmstat file, a line per interval, without attaching (nothing is sent to the JVM).
 *
 * Sizes in KiB; GC times in seconds; classes loaded (those of the shared archive too).
 * The young and old collectors are the first two (sun.gc.collector.0 and .1), as jstat
 * reads them. Uptime from the JVM's start time when it keeps no high-res ticks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd_attach.h"
#include "exits.h"
#include "util/clock.h"
#include "util/jvmstat.h"
#include "target.h"
#include "target_jvm.h"

long parse_duration_ms(const char *s)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : -1;
    if (!s || errno || end == s || v < 0) return -1;
    double scale = 1000;
    if (strcmp(end, "ms") == 0)
        scale = 1;
    else if (strcmp(end, "s") == 0 || *end == 0)
        scale = 1000;
    else if (strcmp(end, "m") == 0)
        scale = 60000;
    else if (strcmp(end, "h") == 0)
        scale = 3600000;
    else
        return -1;
    double ms = v * scale;
    return ms > 0 && ms < 1e12 ? (long)ms : -1;
}

static void header(void)
{
    printf("%10s %13s %13s %13s %13s %13s %6s %9s %6s %9s %8s\n", "UPTIME", "HEAP_USED_KiB", "HEAP_CAP_KiB",
           "EDEN_USED_KiB", "OLD_USED_KiB", "META_USED_KiB", "YGC", "YGCT_s", "FGC", "FGCT_s", "CLASSES");
}

/* The heap's capacity: each generation's (sun.gc.generation.<n>.capacity). */
static int64_t generations_capacity(const struct jvmstat *j)
{
    int64_t sum = 0;
    for (int g = 0; g < 4; g++) {
        char name[64];
        snprintf(name, sizeof name, "sun.gc.generation.%d.capacity", g);
        sum += jvmstat_long_or(j, name, 0);
    }
    return sum;
}

/* One line from one copy of the file; -1 when it cannot be read (the JVM is gone). */
static int line(const struct target *t)
{
    uint8_t *data = NULL;
    size_t len = 0;
    if (target_perfdata(t, &data, &len) != 0) return -1;
    struct jvmstat j;
    char err[160];
    if (jvmstat_open(&j, data, len, err, sizeof err) != 0) {
        free(data);
        tool_fail(EXIT_ERROR, "%s", err);
        return -1;
    }
    double hz = (double)jvmstat_long_or(&j, "sun.os.hrt.frequency", 1000000000);
    if (hz <= 0) hz = 1e9;
    long long up_ms = jvmstat_uptime_ms(&j, (long long)(clock_wall_us() / 1000));
    double up = up_ms < 0 ? 0 : (double)up_ms / 1000.0;
    long long kib = 1024;
    printf("%9.1fs %13lld %13lld %13lld %13lld %13lld %6lld %9.3f %6lld %9.3f %8lld\n", up,
           (long long)jvmstat_sum(&j, "sun.gc.generation.", ".used") / kib, (long long)generations_capacity(&j) / kib,
           (long long)jvmstat_long_or(&j, "sun.gc.generation.0.space.0.used", 0) / kib,
           (long long)jvmstat_long_or(&j, "sun.gc.generation.1.space.0.used", 0) / kib,
           (long long)jvmstat_long_or(&j, "sun.gc.metaspace.used", 0) / kib,
           (long long)jvmstat_long_or(&j, "sun.gc.collector.0.invocations", 0),
           (double)jvmstat_long_or(&j, "sun.gc.collector.0.time", 0) / hz,
           (long long)jvmstat_long_or(&j, "sun.gc.collector.1.invocations", 0),
           (double)jvmstat_long_or(&j, "sun.gc.collector.1.time", 0) / hz,
           (long long)(jvmstat_long_or(&j, "java.cls.loadedClasses", 0) +
                       jvmstat_long_or(&j, "java.cls.sharedLoadedClasses", 0)));
    fflush(stdout);
    free(data);
    return 0;
}

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) { interrupted = 1; } /* async-signal-safe: a flag only */

int cmd_stat(int argc, char **argv)
{
    if (argc < 2 || argc > 4) return tool_fail(EXIT_USAGE, "usage: hprof stat <pid> [interval [count]]");
    pid_t pid = target_parse_pid(argv[1]);
    long every = argc > 2 ? parse_duration_ms(argv[2]) : 0;
    long count = argc > 3 ? strtol(argv[3], NULL, 10) : (argc > 2 ? -1 : 1);
    if (pid < 0 || every < 0 || count == 0) return tool_fail(EXIT_USAGE, "usage: hprof stat <pid> [interval [count]]");
    struct target t;
    int rc = target_open(pid, &t);
    if (rc) return rc;
    uint8_t *probe = NULL;
    size_t len = 0;
    if (target_perfdata(&t, &probe, &len) != 0) {
        if (!target_maps_libjvm(&t))
            return tool_fail(EXIT_NOT_JVM, "process %d (%s) is not a HotSpot JVM", (int)pid, t.name);
        return tool_fail(EXIT_NO_PERFDATA,
                         "process %d (%s) has no jvmstat counters to read: it runs with "
                         "-XX:-UsePerfData (or its /tmp is out of reach)",
                         (int)pid, t.name);
    }
    free(probe);
    signal(SIGINT, on_interrupt);
    header();
    for (long i = 0; (count < 0 || i < count) && !interrupted; i++) {
        if (i > 0) {
            struct timespec ts = {every / 1000, (every % 1000) * 1000000L};
            if (nanosleep(&ts, NULL) != 0 && interrupted) break;
        }
        if (line(&t) != 0) {
            fprintf(stderr, "hprof: process %d has exited\n", (int)pid);
            return EXIT_DONE;
        }
    }
    return EXIT_DONE;
}
