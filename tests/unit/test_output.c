/* SPDX-License-Identifier: Apache-2.0 */
/* The output sink: file naming with force=n, whole records, failures reported once. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "writers/output.h"

static char dir[] = "/tmp/hprof-unit-XXXXXX";

static void touch(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    close(open(p, O_WRONLY | O_CREAT, 0644));
}

static void expect_name(const char *given, int text, const char *want_fmt)
{
    char path[256], want[256], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, given);
    touch(given);
    char wname[128];
    snprintf(wname, sizeof wname, want_fmt, (int)getpid());
    snprintf(want, sizeof want, "%s/%s", dir, wname);
    struct output o;
    char *chosen = NULL;
    int rc = output_open_file(&o, path, text, 0, &chosen, err, sizeof err);
    CHECK_STR(rc == 0 ? chosen : err, want, "force=n: %s -> %s", given, wname);
    if (rc == 0) output_close(&o);
    free(chosen);
}

/* Record i: its number, then bytes (i + k) & 0xff up to record_len(i); about 3 MiB in all. */
#define PIPE_RECORDS 400
static size_t record_len(int i) { return 4 + (size_t)(i * 7919 % 15000); }

static void put_record(struct output *o, int i)
{
    struct buf *b = output_buf(o);
    buf_u4(b, (uint32_t)i);
    for (size_t k = 4; k < record_len(i); k++) buf_u1(b, (uint8_t)(i + k));
    output_record_end(o);
}

/* How many whole records the file holds, or -1 if it has anything else. */
static int whole_records(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int n = 0;
    for (;; n++) {
        uint8_t h[4];
        size_t got = fread(h, 1, 4, f);
        if (got == 0) break;
        if (got != 4 || be_load_u4(h) != (uint32_t)n) n = -1;
        for (size_t k = 4; n >= 0 && k < record_len(n); k++)
            if (fgetc(f) != (int)(uint8_t)(n + k)) n = -1;
        if (n < 0) break;
    }
    fclose(f);
    return n;
}

/* A file size limit stands for a disk that fills up in the middle: the file keeps every
 * record that fit whole, and the failure is reported once. */
static void full_disk(bool pipe, rlim_t limit)
{
    char path[256], err[256], errpath[256], *chosen = NULL;
    const char *how = pipe ? "pipe" : "no pipe";
    snprintf(path, sizeof path, "%s/full.hprof", dir);
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = limit;
    signal(SIGXFSZ, SIG_IGN);
    struct output o;
    int saved = dup(2), efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (output_open_file(&o, path, 0, 1, &chosen, err, sizeof err) != 0 || efd < 0 || saved < 0) {
        CHECK(0, "full disk: the output, its error file and stderr's copy open");
        return;
    }
    dup2(efd, 2);
    setrlimit(RLIMIT_FSIZE, &lim);
    output_lock(&o);
    if (pipe) output_pipe_begin(&o);
    for (int i = 0; i < PIPE_RECORDS; i++) put_record(&o, i);
    if (pipe)
        output_pipe_end(&o);
    else
        output_flush(&o);
    bool failed = o.failed;
    output_unlock(&o);
    output_close(&o);
    setrlimit(RLIMIT_FSIZE, &old);
    dup2(saved, 2);
    close(saved);
    close(efd);
    int fit = 0;
    for (size_t sum = record_len(0); fit < PIPE_RECORDS && sum <= limit; sum += record_len(++fit)) {}
    struct stat st;
    int n = whole_records(path);
    size_t want = 0;
    for (int i = 0; i < n; i++) want += record_len(i);
    CHECK(failed && n == fit && stat(path, &st) == 0 && (size_t)st.st_size == want,
          "%s: a full disk leaves every record that fit whole (%d of %d; %d fit)", how, n, PIPE_RECORDS, fit);
    FILE *f = fopen(errpath, "r");
    int lines = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f)) lines += strstr(line, "HPROF ERROR") != NULL;
    if (f) fclose(f);
    CHECK(lines == 1, "%s: the failure is reported once (%d)", how, lines);
}

/* The writing thread of heap dumps: every record arrives, in order; when the file cannot
 * grow any more, it ends at the last whole record that fit and the error is said once. */
static void test_pipe(void)
{
    char path[256], err[256], *chosen = NULL;
    snprintf(path, sizeof path, "%s/pipe.hprof", dir);
    struct output o;
    if (output_open_file(&o, path, 0, 1, &chosen, err, sizeof err) != 0) {
        CHECK(0, "writing thread: the output opens (%s)", err);
        return;
    }
    output_lock(&o);
    output_pipe_begin(&o);
    CHECK(o.pipe != NULL, "pipe: a writing thread starts");
    for (int i = 0; i < PIPE_RECORDS; i++) put_record(&o, i);
    output_pipe_end(&o);
    CHECK(o.pipe == NULL && o.buf.len == 0 && !o.failed, "pipe: ends with everything written");
    output_unlock(&o);
    output_close(&o);
    CHECK(whole_records(path) == PIPE_RECORDS, "pipe: all %d records in order (%d)", PIPE_RECORDS, whole_records(path));

    full_disk(true, 1000000);
    /* Smaller than the first write: the records before it stay (the header of a binary
     * file and the records before its first heap dump segment). */
    full_disk(false, 100000);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    expect_name("a.txt", 1, "a.%d.txt");
    expect_name("foo", 1, "foo.%d.txt");
    expect_name("x.log", 1, "x.log.%d.txt");
    expect_name("b.hprof", 0, "b.hprof.%d");

    /* force=n on a name that does not exist yet uses it as it is. */
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/fresh.txt", dir);
    struct output o;
    char *chosen = NULL;
    CHECK(output_open_file(&o, path, 1, 0, &chosen, err, sizeof err) == 0 && chosen == NULL,
          "force=n keeps a new name");
    output_lock(&o);
    buf_printf(output_buf(&o), "hello\n");
    output_record_end(&o);
    output_unlock(&o);
    output_close(&o);
    FILE *f = fopen(path, "r");
    char line[32] = "";
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "hello\n") == 0, "records reach the file");
    if (f) fclose(f);

    /* A full device: the record is dropped, the error said once, nothing crashes. */
    if (output_open_file(&o, "/dev/full", 1, 1, &chosen, err, sizeof err) == 0) {
        output_lock(&o);
        for (int i = 0; i < 3; i++) {
            buf_printf(output_buf(&o), "record %d\n", i);
            output_flush(&o);
        }
        CHECK(o.failed && o.buf.len == 0, "write failure marks the output failed and drops the bytes");
        output_unlock(&o);
        output_close(&o);
    }
    test_pipe();
    CHECK(output_open_file(&o, "/nonexistent-dir/x", 1, 1, &chosen, err, sizeof err) != 0 &&
              strstr(err, "/nonexistent-dir/x") != NULL,
          "unopenable file gives a reason naming it");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return UNIT_DONE();
}
