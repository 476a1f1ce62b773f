/* SPDX-License-Identifier: Apache-2.0 */
/* Replays inputs through a fuzz target without libFuzzer, so that `make test` (gcc, no
 * sanitizer) and `make check` (gcc, ASan + UBSan) run every committed corpus input and
 * every regression on each run: `replay NAME DIR...` calls LLVMFuzzerTestOneInput on each
 * file of each DIR (missing DIRs are skipped) and prints one ok line. The parsers' own
 * messages about bad input (most inputs are bad) go to /dev/null; a sanitizer's report
 * and the name of an input that crashes still reach stderr. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_target.h"
/* Present when a sanitizer's runtime is linked in: where its reports go. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* Read by ASan when it is linked in (make check): an allocation above libFuzzer's limit
 * (-rss_limit_mb, 2 GiB) is a finding there, so it is one here. */
const char *__asan_default_options(void) __attribute__((visibility("default"))); /* the build hides */
const char *__asan_default_options(void) { return "max_allocation_size_mb=2048"; }

static int real_stderr = 2;
static char current[4096]; /* the input being run, for the crash message */

/* Async-signal-safe: write(2) only, then the default action (the crash stays a crash). */
static void crashed(int sig)
{
    static const char msg[] = "replay: this input crashed: ";
    (void)!write(real_stderr, msg, sizeof msg - 1);
    (void)!write(real_stderr, current, strlen(current));
    (void)!write(real_stderr, "\n", 1);
    raise(sig);
}

static void quiet_stderr(void)
{
    int null = open("/dev/null", O_WRONLY);
    real_stderr = dup(2);
    if (null < 0 || real_stderr < 0) {
        real_stderr = 2;
        return;
    }
    if (__sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)real_stderr);
    dup2(null, 2);
    close(null);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = crashed;
    sa.sa_flags = (int)SA_RESETHAND;
    int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
}

/* Runs the target on one file; -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n < cap) continue;
        uint8_t *more = realloc(data, cap *= 2);
        if (!more) free(data);
        data = more;
    }
    fclose(f);
    if (!data) return -1;
    snprintf(current, sizeof current, "%s", path);
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: replay NAME DIR...\n");
        return 2;
    }
    quiet_stderr();
    unsigned runs = 0, unreadable = 0;
    for (int i = 2; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) == 0)
                runs++;
            else
                unreadable++;
        }
        closedir(d);
    }
    printf("%s - fuzz target %s: %u inputs replayed%s\n", runs && !unreadable ? "ok" : "not ok", argv[1], runs,
           unreadable ? ", some unreadable" : "");
    return runs && !unreadable ? 0 : 1;
}
