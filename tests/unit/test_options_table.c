/* SPDX-License-Identifier: Apache-2.0 */
/* The option table (src/options/options.c): every name it holds is known here, taken
 * whole, and told apart from its near misses; every value word lands in its field; every
 * bound's edges; every "must be" sentence word for word (users' scripts grep them). */
#include <stdlib.h>

#include "options/options.h"
#include "unit.h"

/* Parses text; true when it is accepted (then o is to be freed). */
static bool parse(const char *text, struct options *o, char *err, size_t errlen)
{
    return options_parse(text, o, err, errlen) == OPTIONS_OK;
}

/* text is refused with exactly "hprof option error: <message> (<text>)". */
static void expect_message(const char *text, const char *message)
{
    struct options o;
    char err[600], want[600];
    snprintf(want, sizeof want, "hprof option error: %s (%s)", message, text);
    if (parse(text, &o, err, sizeof err)) {
        options_free(&o);
        snprintf(err, sizeof err, "(accepted)");
    }
    CHECK_STR(err, want, "'%s' is refused word for word", text);
}

/* Every option the parser should take. */
static const char *const NAMES[] = {
    "heap",       "cpu",        "monitor",  "format",     "file",     "net",       "depth",     "interval",
    "cutoff",     "lineno",     "thread",   "doe",        "msa",      "force",     "verbose",   "alloc_sample",
    "live",       "callers",    "clock",    "sampler",    "threads",  "native",    "kernel",    "precise",
    "timing",     "view",       "viewonly", "timeline",   "top",      "rotate",    "keep",      "service",
    "primfields", "primarrays", "logflags", "debugflags", "coredump", "errorexit", "exitpause", "pause",
    "precrash",   "debug",      "X",        "gc_okay"};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])

static bool known(const char *name)
{
    for (size_t i = 0; i < N_NAMES; i++)
        if (strcmp(NAMES[i], name) == 0) return true;
    return false;
}

/* name is taken whole: name=? is read as that option's value (taken, or refused for its
 * value); with a letter more or less it is another option, or none. */
static void one_name(const char *name)
{
    struct options o;
    char err[600], text[128];
    snprintf(text, sizeof text, "%s=?", name);
    if (parse(text, &o, err, sizeof err)) options_free(&o);
    CHECK(!strstr(err, "Unknown option"), "%s is an option (%s)", text, err);
    snprintf(text, sizeof text, "%sx=1", name);
    snprintf(err, sizeof err, "Unknown option: %sx", name);
    expect_message(text, err);
    size_t len = strlen(name);
    snprintf(text, sizeof text, "%.*s", (int)len - 1, name);
    if (len < 2 || known(text)) return;
    snprintf(err, sizeof err, "Unknown option: %s", text);
    strcat(text, "=1");
    expect_message(text, err);
}

/* name=bad is refused with "<name> option value must be <must>". */
static void must(const char *name, const char *bad, const char *what)
{
    char text[128], message[256];
    snprintf(text, sizeof text, "%s=%s", name, bad);
    snprintf(message, sizeof message, "%s option value must be %s", name, what);
    expect_message(text, message);
}

static void every_name(void)
{
    size_t n = 0;
    for (const char *name; (name = options_name(n)) != NULL; n++)
        CHECK(known(name), "the table's option %s is known here", name);
    CHECK(n == N_NAMES, "the table holds the %zu options known here (it holds %zu)", N_NAMES, n);
    for (size_t i = 0; i < N_NAMES; i++) one_name(NAMES[i]);
    expect_message("to=5", "Unknown option: to");
    expect_message("ne=h:1", "Unknown option: ne");
    expect_message("n=h:1", "Unknown option: n");
    expect_message("t=gc", "Unknown option: t");

    /* the sentences of bad values, word for word (the bounds' are in every_bound) */
    static const char *const WORDS[][2] = {
        {"heap", "dump|sites|all"},  {"cpu", "y|samples|times|old"}, {"format", "a|b|short"},
        {"live", "all|sampled"},     {"callers", "all|sampled"},     {"clock", "cpu|wall"},
        {"sampler", "signal|jvmti"}, {"threads", "all|java"},        {"timing", "sampled|all|gprof"},
    };
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) {
        must(WORDS[i][0], "?", WORDS[i][1]);
        must(WORDS[i][0], "", WORDS[i][1]);
    }
    must("view", "html++pprof", "html|collapsed|pprof|all, joined by +");
    must("view", "", "html|collapsed|pprof|all, joined by +");
    static const char *const YES_NO[] = {"monitor",   "native",     "kernel",     "precise",  "lineno",
                                         "thread",    "doe",        "msa",        "force",    "verbose",
                                         "viewonly",  "primfields", "primarrays", "coredump", "errorexit",
                                         "exitpause", "pause",      "precrash",   "debug",    "gc_okay"};
    for (size_t i = 0; i < sizeof YES_NO / sizeof YES_NO[0]; i++) must(YES_NO[i], "yes", "y|n");
    for (const char *const *name = (const char *const[]){"logflags", "debugflags", "X", NULL}; *name; name++)
        must(*name, "4x", "numeric");
    must("service", "a b", "1-128 printable characters without spaces, quotes, braces or =");
    expect_message("file=", "syntax error parsing file=filename");
    expect_message("net=h", "net option missing port");
}

/* text is taken and cond (on o) holds. */
#define EXPECT(text, cond)                                     \
    do {                                                       \
        struct options o;                                      \
        char err[600];                                         \
        bool ok = parse(text, &o, err, sizeof err);            \
        CHECK(ok && (cond), "%s: %s", text, ok ? #cond : err); \
        if (ok) options_free(&o);                              \
    } while (0)

static void every_word(void)
{
    EXPECT("heap=dump", o.heap == HEAP_DUMP && o.heap_given);
    EXPECT("heap=sites", o.heap == HEAP_SITES && o.heap_given);
    EXPECT("heap=all", o.heap == HEAP_ALL && o.heap_given);
    EXPECT("heap=sites,heap=dump", o.heap == HEAP_ALL);
    EXPECT("cpu=y", o.cpu == CPU_SAMPLES && strcmp(options_cpu_name(o.cpu), "samples") == 0);
    EXPECT("cpu=samples", o.native);
    EXPECT("cpu=samples,native=n", !o.native);
    EXPECT("cpu=samples", o.precise);
    EXPECT("cpu=samples,precise=n", !o.precise);
    EXPECT("cpu=samples", !o.kernel);
    EXPECT("cpu=samples,kernel=y", o.kernel);
    EXPECT("cpu=samples", o.cpu == CPU_SAMPLES && o.heap == HEAP_NONE);
    EXPECT("cpu=times", o.cpu == CPU_TIMES && strcmp(options_cpu_name(o.cpu), "times") == 0);
    EXPECT("cpu=old", o.cpu == CPU_OLD && strcmp(options_cpu_name(o.cpu), "old") == 0);
    EXPECT("format=a", o.format == 'a' && !o.format_short && strcmp(o.file, "java.hprof.txt") == 0);
    EXPECT("format=b", o.format == 'b' && !o.format_short && strcmp(o.file, "java.hprof") == 0);
    EXPECT("format=short", o.format == 'b' && o.format_short);
    EXPECT("format=short,format=a", o.format == 'a' && !o.format_short);
    EXPECT("heap=sites,live=all", o.live == LIVE_ALL);
    EXPECT("heap=sites,live=sampled", o.live == LIVE_SAMPLED);
    EXPECT("heap=sites,callers=sampled", o.callers == CALLERS_SAMPLED);
    EXPECT("heap=all,callers=sampled", o.callers == CALLERS_SAMPLED);
    EXPECT("heap=sites", o.callers == CALLERS_ALL);
    EXPECT("clock=cpu", o.clock == CLOCK_CPU);
    EXPECT("clock=wall", o.clock == CLOCK_WALL);
    EXPECT("sampler=signal", o.sampler == ENGINE_SIGNAL);
    EXPECT("sampler=jvmti", o.sampler == ENGINE_JVMTI);
    EXPECT("threads=all", o.threads == THREADS_ALL);
    EXPECT("threads=java", o.threads == THREADS_JAVA);
    EXPECT("timing=sampled", o.timing == TIMING_SAMPLED);
    EXPECT("timing=all", o.timing == TIMING_ALL);
    EXPECT("timing=gprof", o.timing == TIMING_GPROF);
    EXPECT("view=html", o.view == VIEW_HTML && o.depth == VIEW_DEPTH);
    EXPECT("view=collapsed", o.view == VIEW_COLLAPSED);
    EXPECT("view=pprof", o.view == VIEW_PPROF);
    EXPECT("view=all", o.view == VIEW_ALL);
    EXPECT("view=pprof+html", o.view == (VIEW_PPROF | VIEW_HTML));
    EXPECT("view=html+", o.view == VIEW_HTML);
    EXPECT("view=collapsed,depth=8", o.view == VIEW_COLLAPSED && o.depth == 8 && o.depth_given);
    EXPECT("file=a.collapsed", o.view == VIEW_COLLAPSED && o.viewonly && o.view_file);
    EXPECT("timeline=gc", o.timeline == TIMELINE_GC);
    EXPECT("timeline=100,timeline=gc", o.timeline == TIMELINE_GC && o.timeline_ms == 100);
    EXPECT("gc_okay=n", o.gc_okay_given);

    /* each y|n option's field, both ways */
    static const struct {
        const char *name;
        size_t field;
    } FIELDS[] = {
        {"monitor", offsetof(struct options, monitor)},
        {"lineno", offsetof(struct options, lineno)},
        {"thread", offsetof(struct options, thread)},
        {"doe", offsetof(struct options, doe)},
        {"msa", offsetof(struct options, msa)},
        {"force", offsetof(struct options, force)},
        {"verbose", offsetof(struct options, verbose)},
        {"primfields", offsetof(struct options, primfields)},
        {"primarrays", offsetof(struct options, primarrays)},
        {"viewonly", offsetof(struct options, viewonly)},
    };
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        for (int yes = 0; yes < 2; yes++) {
            struct options o;
            char text[64], err[600];
            snprintf(text, sizeof text, "view=html,%s=%c", FIELDS[i].name, yes ? 'y' : 'n');
            bool ok = parse(text, &o, err, sizeof err);
            CHECK(ok && *(bool *)((char *)&o + FIELDS[i].field) == yes, "%s sets its field (%s)", text, err);
            if (ok) options_free(&o);
        }

    /* each option without effect: its name, alone, in the note */
    static const char *const NONE[] = {"logflags=1", "debugflags=1", "coredump=y", "errorexit=y", "exitpause=y",
                                       "pause=y",    "precrash=y",   "debug=y",    "X=1"};
    for (size_t i = 0; i < sizeof NONE / sizeof NONE[0]; i++) {
        struct options o;
        char err[600], names[128];
        bool ok = parse(NONE[i], &o, err, sizeof err);
        CHECK(ok && options_no_effect(&o, names, sizeof names) && strncmp(names, NONE[i], strlen(names)) == 0 &&
                  NONE[i][strlen(names)] == '=',
              "%s is noted as without effect, alone", NONE[i]);
        if (ok) options_free(&o);
    }
}

/* name=lo and name=hi are taken into the field (an int, or a long); lo - 1 and hi + 1
 * are refused with message. */
static void edges(const char *before, const char *name, long lo, long hi, size_t field, size_t size,
                  const char *message)
{
    long at[] = {lo, hi, lo - 1, hi + 1};
    for (int i = 0; i < 4; i++) {
        struct options o;
        char text[128], err[600];
        snprintf(text, sizeof text, "%s%s=%ld", before, name, at[i]);
        if (i >= 2) {
            expect_message(text, message);
            continue;
        }
        bool ok = parse(text, &o, err, sizeof err);
        long got = 0;
        if (ok && size == sizeof(int)) got = *(int *)((char *)&o + field);
        if (ok && size == sizeof(long)) got = *(long *)((char *)&o + field);
        CHECK(ok && got == at[i], "%s is taken (%s)", text, err);
        if (ok) options_free(&o);
    }
}
#define EDGES(before, name, lo, hi, f, message) \
    edges(before, name, lo, hi, offsetof(struct options, f), sizeof(((struct options *)0)->f), message)

static void every_bound(void)
{
    EDGES("", "depth", 0, 65535, depth, "depth option value must be decimal and >= 0 (at most 65535)");
    EDGES("", "interval", 1, OPT_MAX_MS, interval_ms, "interval option value must be decimal and > 0 (a number of ms)");
    EDGES("", "alloc_sample", 0, 1L << 30, alloc_sample,
          "alloc_sample option value must be a number of bytes from 0 to 1073741824");
    EDGES("", "timeline", 1, OPT_MAX_MS, timeline_ms,
          "timeline option value must be gc or a number of ms from 1 to 3600000");
    EDGES("", "top", 1, 1000000, top, "top option value must be a number from 1 to 1000000");
    EDGES("file=a-%t.txt,", "rotate", 1, 86400, rotate_s,
          "rotate option value must be a number of seconds from 1 to 86400");
    EDGES("rotate=1,file=a-%t.txt,", "keep", 1, 100000, keep,
          "keep option value must be a number of files from 1 to 100000");
    EXPECT("net=h:1", o.net_port == 1 && strcmp(o.net_host, "h") == 0);
    EXPECT("net=h:65535", o.net_port == 65535);
    expect_message("net=h:0", "net option port must be a number from 1 to 65535: 0");
    expect_message("net=h:65536", "net option port must be a number from 1 to 65535: 65536");
    expect_message("net=:1", "net option missing ':'");
    EXPECT("cutoff=0", o.cutoff == 0.0);
    EXPECT("cutoff=1", o.cutoff == 1.0);
    expect_message("cutoff=-0.0001", "cutoff option value must be floating point from 0.0 to 1.0");
    expect_message("cutoff=1.0001", "cutoff option value must be floating point from 0.0 to 1.0");
    char text[160];
    snprintf(text, sizeof text, "service=%0128d", 0);
    EXPECT(text, strlen(o.service) == 128);
    snprintf(text, sizeof text, "service=%0129d", 0);
    expect_message(text, "service option value must be 1-128 printable characters without spaces, quotes, braces or =");
}

/* The sentences of the parser and of the checks across options, word for word. */
static void every_sentence(void)
{
    expect_message("file=a,net=h:1", "file or net options should only appear once");
    expect_message("net=h:1,file=a", "file or net options should only appear once");
    expect_message("cpu=samples,help", "help must be the only option");
    expect_message("bogus", "Unknown option: bogus");
    expect_message("=y", "general syntax error parsing options");
    expect_message("cpu=samples,rotate=60",
                   "rotate= needs %t in file= (each window's file is named by its start time)");
    expect_message("keep=2", "keep= needs rotate=");
    expect_message("format=b,cpu=old", "cpu=times|old is not supported with format=b");
    expect_message("viewonly=y", "viewonly=y needs view=");
    expect_message("view=html,file=a.pb.gz", "file= names a view (.pb.gz): drop view= or give file= another name");
}

int main(void)
{
    every_name();
    every_word();
    every_bound();
    every_sentence();
    return UNIT_DONE();
}
