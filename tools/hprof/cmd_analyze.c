/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof analyze DUMP [OPTIONS]: what holds the memory in a binary HPROF heap dump; with
 * --diff, what grew between two dumps. Reads the dump mapped read-only, says the memory it
 * will need before taking it, and refuses when that is more than may be used.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "exits.h"
#include "hprof.h"

void usage_analyze(FILE *f)
{
    fprintf(f,
            "usage: hprof analyze DUMP [top=N] [--json] [-o REPORT.html] [--path ID|CLASS]\n"
            "                     [--suspect PERCENT] [--objects] [--max-memory MB] [--threads N]\n"
            "                     [--progress]\n"
            "       hprof analyze --diff BEFORE AFTER [top=N] [--json]\n"
            "  DUMP: a binary HPROF heap dump (hprof heap, jcmd GC.heap_dump,\n"
            "      -XX:+HeapDumpOnOutOfMemoryError, this agent's heap=dump or heap=all, JDK 8's\n"
            "      HPROF), gzipped or not; the last heap dump in the file is read.\n"
            "  Prints: the classes by retained bytes (instances, shallow, retained), the biggest\n"
            "      objects by retained size with their dominators up to a GC root, waste\n"
            "      (duplicate strings and primitive arrays, empty collections), leak suspects\n"
            "      and, when the dump has a stack trace per object (heap=all), the retained bytes\n"
            "      per allocation site.\n"
            "  Retained sizes are VisualVM's: dominators from the GC roots over strong\n"
            "      references; java.lang.ref.Reference.referent (weak, soft, phantom, final)\n"
            "      is not one; a class's static fields are references of the class.\n"
            "  top=N        rows of each table (default 20).\n"
            "  --json       the same as one JSON object.\n"
            "  -o FILE.html a self-contained page (sortable histogram, dominator tree).\n"
            "  --path X     the shortest path from a GC root to object X (0x id) or to the\n"
            "      biggest instance of class X (strong references only).\n"
            "  --suspect P  a leak suspect retains more than P%% of the heap (default 10).\n"
            "  --objects    every reachable object: id, class, shallow, retained, immediate\n"
            "      dominator (0x0: a GC root's or the roots' together), for scripts.\n"
            "  --max-memory MB  refuse a dump whose indexes need more (default: what the\n"
            "      machine has available); the need is printed with --progress.\n"
            "  --threads N  threads that index references (default 2).\n"
            "  --diff       growth per class and per dominator subtree from BEFORE to AFTER.\n");
}

struct args {
    const char *in[2], *html;
    int nin;
    bool diff, objects, progress;
    uint64_t max_mem;
    int threads;
    struct an_opts o;
};

static int parse(int argc, char **argv, struct args *a)
{
    memset(a, 0, sizeof *a);
    a->o.top = 20;
    a->o.suspect_share = 0.10;
    a->threads = 2;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool val = i + 1 < argc;
        char *end;
        if (!strncmp(s, "top=", 4)) {
            long n = strtol(s + 4, &end, 10);
            if (*end || n < 1 || n > 1000000) return fprintf(stderr, "hprof analyze: top=N: N from 1 to 1000000\n"), -1;
            a->o.top = (int)n;
        } else if (!strcmp(s, "--json"))
            a->o.json = true;
        else if (!strcmp(s, "--diff"))
            a->diff = true;
        else if (!strcmp(s, "--objects"))
            a->objects = true;
        else if (!strcmp(s, "--progress"))
            a->progress = true;
        else if (!strcmp(s, "-o") && val)
            a->html = argv[++i];
        else if (!strcmp(s, "--path") && val)
            a->o.path_of = argv[++i];
        else if (!strcmp(s, "--suspect") && val) {
            double p = strtod(argv[++i], &end);
            if (*end || !(p > 0 && p <= 100))
                return fprintf(stderr, "hprof analyze: --suspect PERCENT: from 0 to 100\n"), -1;
            a->o.suspect_share = p / 100;
        } else if (!strcmp(s, "--max-memory") && val) {
            unsigned long long mb = strtoull(argv[++i], &end, 10);
            if (*end || !mb) return fprintf(stderr, "hprof analyze: --max-memory MB: a number of megabytes\n"), -1;
            a->max_mem = (uint64_t)mb << 20;
        } else if (!strcmp(s, "--threads") && val) {
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 16) return fprintf(stderr, "hprof analyze: --threads N: 1 to 16\n"), -1;
            a->threads = (int)n;
        } else if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            usage_analyze(stdout);
            exit(0);
        } else if (s[0] == '-' && s[1])
            return fprintf(stderr, "hprof analyze: unknown option %s\n", s), -1;
        else if (a->nin < 2)
            a->in[a->nin++] = s;
        else
            return fprintf(stderr, "hprof analyze: too many files\n"), -1;
    }
    if (!a->nin) return fprintf(stderr, "hprof analyze: give a heap dump\n"), -1;
    if (a->diff != (a->nin == 2))
        return fprintf(stderr, "hprof analyze: %s\n",
                       a->diff ? "--diff compares two dumps: BEFORE AFTER" : "two dumps are compared with --diff"),
               -1;
    if (a->html && (a->diff || a->o.json)) return fprintf(stderr, "hprof analyze: -o is for one dump, as text\n"), -1;
    if (!a->max_mem) a->max_mem = an_memory_available();
    return 0;
}

/* One dump loaded and its dominators computed; exit code on failure. */
static int load(const struct args *a, const char *path, struct an_file *f, struct an_heap *h, struct an_dom *d,
                uint64_t max_mem)
{
    char err[512];
    if (an_file_open(f, path, err, sizeof err)) return tool_fail(EXIT_ERROR, "analyze: %s", err);
    int rc =
        an_heap_load(h, f, max_mem, a->threads, a->progress || (f->size > (256u << 20) && isatty(2)), err, sizeof err);
    if (rc) {
        an_heap_free(h);
        an_file_close(f);
        return tool_fail(EXIT_ERROR, "analyze: %s: %s", path, err);
    }
    if (an_dominators(h, d)) {
        an_heap_free(h);
        an_file_close(f);
        return tool_fail(EXIT_ERROR, "analyze: %s: out of memory computing dominators", path);
    }
    an_progress(&h->progress, "dominators computed");
    return 0;
}

static void objects(const struct an_heap *h, const struct an_dom *d, FILE *out)
{
    struct buf b;
    buf_init(&b);
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i];
        buf_reset(&b);
        an_class_name(h, h->cls[o], &b);
        fprintf(out, "0x%llx %.*s %llu %llu 0x%llx\n", (unsigned long long)an_id(h, o), (int)b.len,
                (const char *)b.data, (unsigned long long)an_shallow(h, o), (unsigned long long)d->retained[o],
                d->idom[o] == AN_NONE ? 0ull : (unsigned long long)an_id(h, d->idom[o]));
    }
    buf_free(&b);
}

int cmd_analyze(int argc, char **argv)
{
    struct args a;
    if (parse(argc, argv, &a)) return EXIT_USAGE;
    struct an_file f[2];
    struct an_heap h[2];
    struct an_dom d[2];
    int rc = load(&a, a.in[0], &f[0], &h[0], &d[0], a.max_mem);
    if (rc) return rc;
    if (a.diff) {
        rc = load(&a, a.in[1], &f[1], &h[1], &d[1], a.max_mem);
        if (!rc) {
            an_report_diff(&h[0], &d[0], &h[1], &d[1], &a.o, stdout);
            an_dom_free(&d[1]);
            an_heap_free(&h[1]);
            an_file_close(&f[1]);
        }
    } else if (a.objects) {
        objects(&h[0], &d[0], stdout);
    } else if (a.html) {
        /* 0600, created only for us: the report names every class of the program */
        int fd = open(a.html, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!out) {
            if (fd >= 0) close(fd);
            rc = tool_fail(EXIT_ERROR, "analyze: cannot write %s", a.html);
        } else {
            an_html(&h[0], &d[0], &a.o, out);
            if (fclose(out)) rc = tool_fail(EXIT_ERROR, "analyze: error writing %s", a.html);
        }
    } else {
        an_report(&h[0], &d[0], &a.o, stdout);
    }
    an_progress(&h[0].progress, "done");
    an_dom_free(&d[0]);
    an_heap_free(&h[0]);
    an_file_close(&f[0]);
    if (fflush(stdout)) rc = EXIT_ERROR;
    return rc;
}
