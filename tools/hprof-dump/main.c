/* SPDX-License-Identifier: Apache-2.0 */
/* hprof-dump: prints, summarises or validates an HPROF binary file (format=b).
 *
 *   hprof-dump [--offsets] FILE            one line per record / sub-record
 *   hprof-dump --summary FILE              counts per record kind, totals
 *   hprof-dump --check [--lenient] FILE    validation; exit 0 good, 1 problems, 2 usage/IO
 *
 * The top of the tool: calls records.c (hd_run) and the layers below it. */
#include "hd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hprof-dump [--offsets] FILE          print every record\n"
            "       hprof-dump --summary FILE            counts per record kind and totals\n"
            "       hprof-dump --check [--lenient] FILE  validate (exit 0 good, 1 problems, 2 usage/IO error)\n"
            "  --check and --summary may be combined; --lenient (implies --check) reports\n"
            "  references to IDs not defined before as warnings instead of errors.\n");
}

static void print_counts(hd_state *st, const char *label, const uint64_t *counts, const char *(*name)(int))
{
    fprintf(st->out, "%s", label);
    int any = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < 256; t++) {
            const char *n = name(t);
            if (!counts[t] || (pass == 0) != (n != NULL)) continue;
            if (n)
                fprintf(st->out, " %s=%llu", n, (unsigned long long)counts[t]);
            else
                fprintf(st->out, " UNKNOWN_0x%02x=%llu", t, (unsigned long long)counts[t]);
            any = 1;
        }
    }
    if (!any) fprintf(st->out, " -");
    fputc('\n', st->out);
}

/* Record kinds in tag order, heap sub-records with roots last as the format lists them. */
static void summary(hd_state *st)
{
    FILE *o = st->out;
    struct buf v = {0};
    hd_put_quoted(&v, (const unsigned char *)st->version, strlen(st->version));
    fprintf(o, "version=%s\nidsize=%d\n", hd_buf_text(&v), st->idsize);
    buf_free(&v);
    print_counts(st, "records", st->rec_count, hd_tag_name);
    print_counts(st, "subrecords", st->sub_count, hd_sub_name);
    fprintf(o, "records_total=%llu\n", (unsigned long long)st->records);
    fprintf(o, "subrecords_total=%llu\n", (unsigned long long)st->subrecords);
    fprintf(o, "strings=%zu\nclasses=%zu\nframes=%zu\ntraces=%zu\nthreads=%zu\n", st->nstr, st->ncls, st->nfr, st->ntr,
            st->nth);
    fprintf(o, "cpu_samples_total=%llu\n", (unsigned long long)st->cpu_total);
    fprintf(o, "cpu_sample_traces=%llu\n", (unsigned long long)st->cpu_traces);
    fprintf(o, "alloc_sites=%llu\n", (unsigned long long)st->alloc_sites);
    fprintf(o, "heap_dumps=%llu\n", (unsigned long long)st->heap_dumps);
    fprintf(o, "duplicate_definitions=%llu\n", (unsigned long long)st->dup_defs);
    fprintf(o, "bytes=%llu\n", (unsigned long long)st->r.off);
}

static int open_spool(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/hprof-dump-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

/* Reads the options into st; returns -1 to go on, else the exit status. */
static int parse_args(hd_state *st, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--check"))
            st->check = 1;
        else if (!strcmp(a, "--lenient"))
            st->check = st->lenient = 1;
        else if (!strcmp(a, "--summary"))
            st->summary = 1;
        else if (!strcmp(a, "--offsets"))
            st->offsets = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--") && i + 1 < argc && !st->path)
            st->path = argv[++i];
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "hprof-dump: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else if (!st->path)
            st->path = a;
        else {
            fprintf(stderr, "hprof-dump: more than one file given\n");
            usage(stderr);
            return 2;
        }
    }
    if (!st->path) {
        usage(stderr);
        return 2;
    }
    st->print = !st->check && !st->summary;
    return -1;
}

/* Opens st->path (and the spool file --check needs when it cannot seek); 0 when done. */
static int open_input(hd_state *st)
{
    const char *path = st->path;
    st->fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
    if (st->fd < 0) {
        fprintf(stderr, "hprof-dump: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(st->fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        st->fsize = (uint64_t)sb.st_size;
        st->seekable = 1;
    }
    if (st->check && !st->seekable) {
        st->spool_fd = open_spool();
        if (st->spool_fd < 0) {
            fprintf(stderr, "hprof-dump: %s cannot seek and no temporary file could be made: %s\n", path,
                    strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The last words (hidden problems, the --check verdict); returns the exit status. */
static int finish(hd_state *st)
{
    const char *path = st->path;
    int rc = 0;
    if (st->io_error) {
        fprintf(stderr, "hprof-dump: error reading %s: %s\n", path, strerror(st->io_error));
        rc = 2;
    } else if (st->errors) {
        rc = 1;
    }
    uint64_t hidden = (st->errors - st->printed_errors) + (st->warnings - st->printed_warnings);
    if (hidden) fprintf(stderr, "hprof-dump: %llu more problems not shown\n", (unsigned long long)hidden);
    if (st->check && !st->io_error) {
        unsigned long long e = st->errors, w = st->warnings, n = st->records;
        if (e)
            printf("%s: %llu error%s, %llu warning%s\n", path, e, e == 1 ? "" : "s", w, w == 1 ? "" : "s");
        else if (w)
            printf("%s: ok, %llu records, %llu warning%s\n", path, n, w, w == 1 ? "" : "s");
        else
            printf("%s: ok, %llu records\n", path, n);
    }
    fflush(stdout);
    return rc;
}

int main(int argc, char **argv)
{
    hd_state st;
    hd_state_init(&st, stdout);
    int rc = parse_args(&st, argc, argv);
    if (rc >= 0) return rc;
    if (open_input(&st) != 0) return 2;
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    hd_reader_init(&st.r, st.fd, 0, 0);

    hd_run(&st);
    if (st.check) hd_report_undefined(&st);
    if (st.summary) summary(&st);
    fflush(stdout);
    rc = finish(&st);
    if (st.spool_fd >= 0) close(st.spool_fd);
    if (st.fd > 0) close(st.fd);
    hd_state_free(&st);
    return rc;
}
