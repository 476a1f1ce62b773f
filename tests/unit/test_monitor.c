/* SPDX-License-Identifier: Apache-2.0 */
/* monitor=y without a JVM: the table's ranking and cutoff, the status column, the text
 * (contention and waits in sections of their own). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tables/classes.h"
#include "tables/monitors.h"
#include "tables/traces.h"
#include "unit.h"
#include "writers/monitor_text.h"
#include "writers/output.h"
#include "writers/writer.h"

static struct trace *fake_trace(uint32_t serial)
{
    struct trace *t = calloc(1, sizeof *t);
    t->serial = serial;
    return t;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

static int occurrences(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* A snapshot with contention and waits: MONITOR TIME lists only the contention, the
 * waits get MONITOR WAIT TIME, and a cut from "MONITOR TIME BEGIN" to "MONITOR TIME END"
 * (the way scripts take a section) finds no wait in it. */
static void contention_apart_from_waits(struct trace *t1, struct trace *t2, struct class_info *lock,
                                        struct class_info *sig)
{
    struct monitor_table contended, waits;
    monitors_init(&contended);
    monitors_init(&waits);
    monitors_add(monitors_of(&contended, t1, lock, false), 5000000); /* 5 ms blocked */
    monitors_add(monitors_of(&waits, t2, sig, false), 2000000000);   /* a 2 s join */
    monitors_add(monitors_of(&waits, t2, sig, true), 1000000);       /* a j.u.c lock of that class */
    monitors_add(monitors_of(&waits, t1, NULL, true), 1000000);      /* a park with no blocker */
    struct monitor_snapshot s;
    memset(&s, 0, sizeof s);
    monitors_rank(&contended, true, 0.0001, &s.contended);
    monitors_rank(&waits, true, 0.0001, &s.waits);
    char dir[] = "/tmp/hprof-unit-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "monitor sections: a temporary directory");
        return;
    }
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/w.txt", dir);
    struct output o;
    char *chosen = NULL;
    if (output_open_file(&o, path, 1, 1, &chosen, err, sizeof err) != 0) {
        CHECK(0, "monitor sections: the output opens (%s)", err);
        return;
    }
    struct writer_ctx w = {.out = &o};
    output_lock(&o);
    monitor_text_sections(&w, &s);
    output_unlock(&o);
    output_close(&o);
    monitor_snapshot_free(&s);
    const char *text = slurp(path);
    const char *time = text ? strstr(text, "MONITOR TIME BEGIN (total = 5 ms) ") : NULL;
    const char *time_end = time ? strstr(time, "MONITOR TIME END\n") : NULL;
    const char *lock_row = "   1 100.00% 100.00%       1 300001 Lock (Java)\n";
    CHECK(time && time_end && !memmem(time, (size_t)(time_end - time), "Signal", 6) &&
              memmem(time, (size_t)(time_end - time), lock_row, strlen(lock_row)),
          "MONITOR TIME: the 5 ms of contention only");
    CHECK(text && strstr(text, "\nMONITOR WAIT TIME BEGIN (total = 2002 ms) ") &&
              strstr(text,
                     "\nrank   self  accum   count trace monitor\n"
                     "   1 99.90% 99.90%       1 300002 Signal (Java)\n"
                     "   2  0.05% 99.95%       1 300001 (none) (j.u.c)\n"
                     "   3  0.05% 100.00%       1 300002 Signal (j.u.c)\n"
                     "MONITOR WAIT TIME END\n"),
          "MONITOR WAIT TIME: the wait, in the same layout; j.u.c rows marked, a park without blocker (none)");
    CHECK(time && strstr(text, "MONITOR WAIT TIME BEGIN") > time, "contention first, then waits");
    CHECK(text && occurrences(text, "MONITOR TIME BEGIN") == 1 && occurrences(text, "MONITOR TIME END") == 1,
          "a cut by MONITOR TIME BEGIN/END meets only the contention section's own markers");
    unlink(path);
    rmdir(dir);
    monitors_destroy(&contended);
    monitors_destroy(&waits);
}

int main(void)
{
    struct monitor_table t;
    monitors_init(&t);
    struct class_info lock = {.signature = "LLock;", .name = "Lock"};
    struct class_info sig = {.signature = "LSignal;", .name = "Signal"};
    struct trace *t1 = fake_trace(300001), *t2 = fake_trace(300002), *t3 = fake_trace(300003);

    struct monitor_entry *a = monitors_of(&t, t1, &lock, false);
    CHECK(a && monitors_of(&t, t1, &lock, false) == a, "same trace and class: one entry");
    CHECK(monitors_of(&t, t1, &sig, false) != a && monitors_of(&t, t2, &lock, false) != a,
          "other trace or class: other entry");
    CHECK(monitors_of(&t, t1, &lock, true) != a && monitors_of(&t, t1, &lock, true)->juc,
          "a j.u.c lock of the same class: another entry");
    struct monitor_times r;
    monitors_rank(&t, false, 0.0, &r);
    CHECK(r.rows == NULL && r.nrows == 0, "nothing to report: no rows");

    for (int i = 0; i < 10; i++) monitors_add(a, 30000000);    /* 10 x 30 ms */
    monitors_add(monitors_of(&t, t2, &sig, false), 900000000); /* 1 x 900 ms */
    monitors_add(monitors_of(&t, t3, &lock, false), 1000);     /* 1 x 1 us */
    monitors_rank(&t, false, 0.0, &r);
    CHECK(r.nrows == 3 && r.total_ns == 1200001000u && r.total_count == 12, "three rows, totals of time and events");
    CHECK(r.rows && r.rows[0].entry->trace == t2 && r.rows[0].count == 1, "most time first");
    CHECK(r.rows && r.rows[1].entry->trace == t1 && r.rows[1].count == 10 && r.rows[1].ns == 300000000u,
          "second: ten enters adding up");
    free(r.rows);
    monitors_rank(&t, false, 0.0001, &r);
    CHECK(r.nrows == 2 && r.total_ns == 1200001000u, "cutoff drops rows under it, total keeps them");
    free(r.rows);
    monitors_rank(&t, false, 0.26, &r);
    CHECK(r.nrows == 1, "cutoff 0.26 keeps only the row with 75%%");
    free(r.rows);

    /* The text of the section. */
    char dir[] = "/tmp/hprof-unit-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/m.txt", dir);
    struct output o;
    char *chosen = NULL;
    if (output_open_file(&o, path, 1, 1, &chosen, err, sizeof err) != 0) return 1;
    struct writer_ctx w = {.out = &o};
    monitors_rank(&t, true, 0.0001, &r);
    output_lock(&o);
    monitor_text_time(&w, MONITOR_TIME_TITLE, &r);
    uint32_t enter[] = {200004}, notify[] = {200005, 200006};
    struct monitor_dump_monitor mons[] = {
        {"LLock;", 200001, 1, enter, 1, NULL, 0},
        {"LSignal;", 0, 0, NULL, 0, notify, 2},
    };
    struct monitor_dump_thread threads[] = {
        {200001, 300001, JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_SLEEPING | JVMTI_THREAD_STATE_WAITING},
        {200002, 300000, JVMTI_THREAD_STATE_TERMINATED},
    };
    monitor_text_dump(&w, mons, 2, threads, 2);
    monitor_text_wait(&w, "LSignal;", 0, 200005);
    monitor_text_waited(&w, "LSignal;", 42, 0);
    output_unlock(&o);
    output_close(&o);
    free(r.rows);
    const char *text = slurp(path);
    CHECK(text && strstr(text, "MONITOR TIME BEGIN (total = 1200 ms) ") == text, "header: total in ms, then the date");
    CHECK(text &&
              strstr(text,
                     "\nrank   self  accum   count trace monitor\n"
                     "   1 75.00% 75.00%       1 300002 Signal (Java)\n"
                     "   2 25.00% 100.00%      10 300001 Lock (Java)\n"
                     "MONITOR TIME END\n"),
          "rows as %%4u %%5.2f%%%% %%5.2f%%%% %%7u %%5u class (Java)");
    CHECK(text &&
              strstr(text,
                     "MONITOR DUMP BEGIN\n"
                     "    MONITOR LLock;\n"
                     "\towner: thread 200001, entry count: 1\n"
                     "\twaiting to enter: thread 200004\n"
                     "\twaiting to be notified:\n"
                     "    MONITOR LSignal; unowned\n"
                     "\twaiting to enter:\n"
                     "\twaiting to be notified: thread 200005, thread 200006\n"
                     "    THREAD 200001, trace 300001, status: SL\n"
                     "    THREAD 200002, trace 300000, status: ZO\n"
                     "MONITOR DUMP END\n"),
          "MONITOR DUMP: monitors with owner and waiters, then threads");
    CHECK(text &&
              strstr(text,
                     "WAIT: MONITOR LSignal;, timeout=0, thread 200005\n"
                     "WAITED: MONITOR LSignal;, time_waited=42, <unknown thread>\n"),
          "WAIT and WAITED lines");
    monitors_rank(&t, false, 0.0, &r);
    CHECK(r.rows == NULL && r.nrows == 0 && r.total_ns == 0, "a dump takes the times: the next starts from zero");
    unlink(path);
    rmdir(dir);
    contention_apart_from_waits(t1, t2, &lock, &sig);

    char s[40];
    CHECK_STR(monitor_status(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE, s, sizeof s), "R", "running: R");
    CHECK_STR(monitor_status(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER, s, sizeof s), "MW",
              "blocked on a monitor: MW");
    CHECK_STR(monitor_status(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_IN_OBJECT_WAIT |
                                 JVMTI_THREAD_STATE_WAITING_INDEFINITELY,
                             s, sizeof s),
              "CW", "in Object.wait: CW");
    CHECK_STR(monitor_status(0, s, sizeof s), "NS", "not started: NS");
    CHECK_STR(monitor_status(JVMTI_THREAD_STATE_ALIVE, s, sizeof s), "UN", "alive, no state known: UN");
    CHECK_STR(monitor_status(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_SUSPENDED |
                                 JVMTI_THREAD_STATE_INTERRUPTED | JVMTI_THREAD_STATE_IN_NATIVE,
                             s, sizeof s),
              "S|intr|native|R", "suspended, interrupted, in native: prefixes");
    monitors_destroy(&t);
    free(t1);
    free(t2);
    free(t3);
    return UNIT_DONE();
}
