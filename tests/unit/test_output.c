/* The output sink: file naming with force=n, whole records, failures reported once. */
#include <fcntl.h>
#include <stdlib.h>
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
    CHECK(output_open_file(&o, "/nonexistent-dir/x", 1, 1, &chosen, err, sizeof err) != 0 &&
              strstr(err, "/nonexistent-dir/x") != NULL,
          "unopenable file gives a reason naming it");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return UNIT_DONE();
}
