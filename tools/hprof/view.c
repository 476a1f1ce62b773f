/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof view: reads a profile (text or binary, ours or JDK 8 HPROF's, or a net= capture)
 * and writes one view of it, the kind named by OUT's extension. With --diff and two
 * profiles, a differential flame graph of the second against the first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof.h"
#include "profile_read.h"
#include "writers/views.h"

void usage_view(FILE *f)
{
    fprintf(f,
            "usage: hprof view [--section S] [--type T] [--last] IN -o OUT\n"
            "       hprof view --diff [--section S] [--type T] BEFORE AFTER -o OUT.html\n"
            "  IN: a profile, text (java.hprof.txt) or binary (java.hprof), of this agent or of\n"
            "      JDK 8's HPROF, or a capture of net= (hprof-listen's file).\n"
            "  OUT: its extension picks the view: .html (flame graph), .collapsed (collapsed\n"
            "      stacks, for flamegraph.pl and speedscope), .pb.gz (pprof, for go tool pprof,\n"
            "      Pyroscope, Parca).\n"
            "  --section S  the section to show when the file has several: samples (CPU SAMPLES),\n"
            "      times (CPU TIME), old (cpu=old), sites (SITES), monitor (MONITOR TIME), heap\n"
            "      (HEAP DUMP: bytes and objects by allocation trace), threads (MONITOR DUMP);\n"
            "      by default the first of these the file has. CPU and monitor sections of\n"
            "      several dumps add up; of SITES and heap dumps the last one counts.\n"
            "  --last       a text profile's last dump alone (CPU and monitor sections too).\n"
            "  --type T     the value a flame graph shows first and collapsed stacks carry, e.g.\n"
            "      inuse_space (sites: alloc_space, alloc_objects, inuse_space, inuse_objects).\n"
            "  --diff       BEFORE and AFTER: widths from AFTER, red where a stack's share grew,\n"
            "      blue where it shrank.\n");
}

struct view_args {
    const char *in[2], *out, *type;
    int nin;
    bool diff, last;
    enum pr_section section;
};

static int parse(int argc, char **argv, struct view_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(s, "--diff"))
            a->diff = true;
        else if (!strcmp(s, "--last"))
            a->last = true;
        else if (!strcmp(s, "-o") && has_value)
            a->out = argv[++i];
        else if (!strcmp(s, "--type") && has_value)
            a->type = argv[++i];
        else if (!strcmp(s, "--section") && has_value) {
            a->section = pr_section_named(argv[++i]);
            if (a->section == PR_N) return fprintf(stderr, "hprof view: no section called '%s'\n", argv[i]), -1;
        } else if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            usage_view(stdout);
            exit(0);
        } else if (s[0] == '-' && s[1])
            return fprintf(stderr, "hprof view: unknown option %s\n", s), -1;
        else if (a->nin < 2)
            a->in[a->nin++] = s;
        else
            return fprintf(stderr, "hprof view: too many files\n"), -1;
    }
    if (!a->out || !a->nin) return fprintf(stderr, "hprof view: give a profile and -o OUT\n"), -1;
    if (a->diff != (a->nin == 2))
        return fprintf(stderr, "hprof view: %s\n",
                       a->diff ? "--diff compares two profiles: BEFORE AFTER"
                               : "two profiles are compared with --diff"),
               -1;
    if (!view_kind_of_path(a->out))
        return fprintf(stderr, "hprof view: %s: the output's extension must be .html, .collapsed or .pb.gz\n", a->out),
               -1;
    if (a->diff && view_kind_of_path(a->out) != VIEW_HTML)
        return fprintf(stderr, "hprof view: --diff writes a flame graph: OUT must end in .html\n"), -1;
    return 0;
}

static int load(const struct view_args *a, int k, struct stack_profile *p)
{
    char err[512];
    sp_init(p);
    const char *base = strrchr(a->in[k], '/');
    sp_set(p, &p->program, "%s", base ? base + 1 : a->in[k]);
    enum pr_section want = (enum pr_section)(a->section | (a->last ? PR_LAST_DUMP : 0));
    if (pr_read_file(a->in[k], want, p, err, sizeof err) != 0) {
        fprintf(stderr, "hprof view: %s: %s\n", a->in[k], err);
        return -1;
    }
    if (a->type) {
        int t = sp_type_named(p, a->type);
        if (t < 0) {
            fprintf(stderr, "hprof view: %s: no sample type '%s' in its %s\n", a->in[k], a->type, p->mode);
            return -1;
        }
        p->main_type = t;
    }
    return 0;
}

/* The base's main type is the one called as the new profile's (they may differ in order). */
static int match_types(struct stack_profile *before, const struct stack_profile *after)
{
    int t = sp_type_named(before, after->types[after->main_type].type);
    if (t < 0 || strcmp(before->mode, after->mode) != 0) {
        fprintf(stderr, "hprof view: --diff: the two profiles show different things (%s, %s)\n", before->mode,
                after->mode);
        return -1;
    }
    before->main_type = t;
    return 0;
}

/* A flame graph of stacks cut short is a comb of slivers: say so, as the page does. */
static void say_cut(const struct stack_profile *p)
{
    struct buf note;
    buf_init(&note);
    const char *s = view_cut_note(p, &note);
    if (*s) fprintf(stderr, "hprof view: note: %s\n", s);
    buf_free(&note);
}

int cmd_view(int argc, char **argv)
{
    struct view_args a;
    if (parse(argc, argv, &a) != 0) {
        usage_view(stderr);
        return 2;
    }
    struct stack_profile p[2];
    int rc = 1, loaded = 0;
    for (; loaded < a.nin; loaded++)
        if (load(&a, loaded, &p[loaded]) != 0) break;
    if (loaded == a.nin && (!a.diff || match_types(&p[0], &p[1]) == 0)) {
        char err[512];
        const struct stack_profile *shown = a.diff ? &p[1] : &p[0], *base = a.diff ? &p[0] : NULL;
        if (view_write_file(shown, base, view_kind_of_path(a.out), a.out, err, sizeof err) == 0) {
            fprintf(stderr, "hprof view: %s: %s, %zu stacks, %lld %s (%s)\n", a.out, shown->mode, shown->nstacks,
                    (long long)sp_total(shown, shown->main_type), shown->types[shown->main_type].unit,
                    shown->types[shown->main_type].type);
            if (view_kind_of_path(a.out) == VIEW_HTML) say_cut(shown);
            if (shown->note) fprintf(stderr, "hprof view: note: %s\n", shown->note); /* what its file leaves out */
            rc = 0;
        } else {
            fprintf(stderr, "hprof view: %s\n", err);
        }
    }
    for (int k = 0; k <= loaded && k < a.nin; k++) sp_free(&p[k]);
    return rc;
}
