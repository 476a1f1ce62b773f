/* SPDX-License-Identifier: Apache-2.0 */
#include "options/options.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HELP_TEXT[] = "\n"
                                "     HPROF: Heap and CPU Profiling Agent for modern JDKs (hprof " HPROF_VERSION ")\n"
                                "\n"
                                "hprof usage: java -agentlib:hprof=[help]|[<option>=<value>, ...]\n"
                                "\n"
                                "Option Name and Value  Description                    Default\n"
                                "---------------------  -----------                    -------\n"
                                "heap=dump|sites|all    heap profiling                 all\n"
                                "cpu=samples|times|old  CPU usage                      off\n"
                                "monitor=y|n            monitor contention             n\n"
                                "format=a|b|short       text(txt) or binary output     a\n"
                                "file=<file>            write data to file             java.hprof[{.txt}]\n"
                                "net=<host>:<port>      send data over a socket        off\n"
                                "depth=<size>           stack trace depth              4\n"
                                "interval=<ms>          sample interval in ms          10\n"
                                "cutoff=<value>         output cutoff point            0.0001\n"
                                "lineno=y|n             line number in traces?         y\n"
                                "thread=y|n             thread in traces?              n\n"
                                "doe=y|n                dump on exit?                  y\n"
                                "msa=y|n                Solaris micro state accounting n\n"
                                "force=y|n              force output to <file>         y\n"
                                "verbose=y|n            print messages about dumps     y\n"
                                "\n"
                                "New Options (not in the original HPROF)\n"
                                "---------------------------------------\n"
                                "alloc_sample=<bytes>   heap=sites by sampling         0 (exact)\n"
                                "live=all|sampled       heap=sites: live counts from   all\n"
                                "                       every object, or estimated\n"
                                "clock=cpu|wall         cpu=samples: CPU or wall time  cpu\n"
                                "sampler=signal|jvmti   cpu=samples: how stacks are    signal\n"
                                "                       taken\n"
                                "threads=all|java       cpu=samples: the VM's threads  all\n"
                                "                       (JIT, GC ...) too, or not\n"
                                "timing=sampled|all|    cpu=times: cheap methods       sampled\n"
                                "  gprof                timed by sample, all timed,\n"
                                "                       or by CPU samples (below)\n"
                                "view=<views>           flame graph, pprof ... (below) off\n"
                                "viewonly=y|n           the views instead of the file  n\n"
                                "timeline=gc|<ms>       the run over time (below)      off\n"
                                "top=<n>                at most n rows per section     all\n"
                                "rotate=<seconds>       a file per window (below)      off\n"
                                "keep=<n>               rotate=: the last n files      all\n"
                                "service=<name>         pprof's service_name label     main class\n"
                                "\n"
                                "Options of the Original HPROF Outside Its Table\n"
                                "-----------------------------------------------\n"
                                "primfields=y|n         primitive fields in dumps?     y\n"
                                "primarrays=y|n         primitive arrays in dumps?     y\n"
                                "logflags=<n>           accepted, no effect\n"
                                "debugflags=<n>         accepted, no effect\n"
                                "coredump=y|n           accepted, no effect\n"
                                "errorexit=y|n          accepted, no effect\n"
                                "exitpause=y|n          accepted, no effect\n"
                                "pause=y|n              accepted, no effect\n"
                                "precrash=y|n           accepted, no effect\n"
                                "debug=y|n              accepted, no effect\n"
                                "X=<n>                  accepted, no effect\n"
                                "\n"
                                "Obsolete Options\n"
                                "----------------\n"
                                "gc_okay=y|n\n"
                                "\n"
                                "Examples\n"
                                "--------\n"
                                "  - Get sample cpu information every 20 millisec, with a stack depth of 3:\n"
                                "      java -agentlib:hprof=cpu=samples,interval=20,depth=3 classname\n"
                                "  - Get heap usage information based on the allocation sites:\n"
                                "      java -agentlib:hprof=heap=sites classname\n"
                                "\n"
                                "Notes\n"
                                "-----\n"
                                "  - The option format=b cannot be used with monitor=y.\n"
                                "  - The option format=b cannot be used with cpu=old|times.\n"
                                "  - -Xrunhprof:[help]|[<option>=<value>, ...] and\n"
                                "    -agentpath:/path/to/libhprof.so=[<option>=<value>, ...] behave exactly\n"
                                "    like -agentlib:hprof=[help]|[<option>=<value>, ...]\n"
                                "  - Send SIGQUIT (Ctrl-\\ or kill -QUIT <pid>) to write the profile so far.\n"
                                "\n"
                                "On modern JDKs\n"
                                "--------------\n"
                                "  - msa=y (Solaris micro state accounting) has no meaning on Linux: accepted\n"
                                "    and ignored, with a note.\n"
                                "  - gc_okay is obsolete: accepted and ignored, with a note.\n"
                                "  - primfields=n writes the primitive field values (instance and static) of\n"
                                "    format=b heap dumps as 0, and primarrays=n writes primitive arrays with\n"
                                "    no elements, as the original did: a smaller file that readers still\n"
                                "    read whole. Text heap dumps list neither, so these change only format=b.\n"
                                "  - logflags, debugflags, X, coredump, errorexit, exitpause, pause, precrash\n"
                                "    and debug were the original's own debugging aids: accepted and ignored,\n"
                                "    with a note (<n> is a number: 4, 0x4, 04). For logflags=4 (the original's\n"
                                "    check of its binary output) run build/hprof-dump --check on the file.\n"
                                "  - alloc_sample=<bytes> is new: heap=sites from the JVM's allocation sampling\n"
                                "    (one sample about every <bytes> allocated), with counts scaled to\n"
                                "    estimates; low overhead for large services. 0 (the default) counts\n"
                                "    every allocation exactly, through bytecode instrumentation; it turns\n"
                                "    off the JIT optimizations that would allocate without that bytecode\n"
                                "    (OptimizeStringConcat, EliminateAutoBox, allocating intrinsics).\n"
                                "  - live=sampled is new: exact heap=sites (every allocation counted) with\n"
                                "    live counts estimated. To count live objects the agent holds each\n"
                                "    object it counted through a JNI weak reference, and the JVM makes and\n"
                                "    frees those under one lock: on allocation-heavy code that costs more\n"
                                "    than the counting, most of all with several allocating threads.\n"
                                "    live=sampled holds a site's first 4096 objects, then one in 16 at\n"
                                "    random, each standing for 16: live counts past a site's first 4096\n"
                                "    objects are estimates (the SITES header says so); allocation counts\n"
                                "    stay exact. Not with heap=dump|all (a dump names each object's site),\n"
                                "    nor alloc_sample=. With ZGC or Shenandoah every object is still held.\n"
                                "  - cpu=samples takes each stack where the thread is, from a signal\n"
                                "    (sampler=signal, the default): a per-thread CPU timer fires every\n"
                                "    <interval> ms of the thread's CPU time, and the handler walks the Java\n"
                                "    stack with HotSpot's AsyncGetCallTrace. Threads that wait, sleep or\n"
                                "    block use no CPU and get no samples. A sample whose walk fails is\n"
                                "    counted under a frame that says why ([no_Java_frame].GC_active, ...).\n"
                                "    sampler=jvmti is the original's way (a thread asks the JVM for every\n"
                                "    running thread's stack at each interval), which sees threads only at\n"
                                "    safepoint polls: inlined and loop code is blamed on the wrong method.\n"
                                "    It is used, with a note, where AsyncGetCallTrace is missing.\n"
                                "  - cpu=samples with the signal sampler and clock=cpu also samples the\n"
                                "    threads that are not Java threads (threads=all, the default): the JIT\n"
                                "    compilers, the GC's workers, the VM's own threads and the agent's, each\n"
                                "    under a frame of its kind ([JIT compiler], [GC], [VM], [hprof],\n"
                                "    [other native]) named by the thread, with the native function it was\n"
                                "    in when that has a name ([native].<function or library>), so that the\n"
                                "    samples add up to the process's CPU time. threads=java samples the Java\n"
                                "    threads only.\n"
                                "  - clock=wall samples every Java thread every <interval> ms whatever it\n"
                                "    is doing, for programs that wait on I/O and locks; the thread's state\n"
                                "    (from JVMTI, just before the sample) is the trace's last frame,\n"
                                "    [thread_state].RUNNABLE, .BLOCKED, .WAITING, ...\n"
                                "  - cpu=times counts every call. timing=sampled (the default) times a\n"
                                "    method's calls by sample once its calls are seen to be cheap (1024 timed\n"
                                "    calls of less than 200 ns of their own on average): a call outside the\n"
                                "    sample is charged that mean, its callees measured as usual. timing=all\n"
                                "    reads the clock at every call, trivial methods' too (else counted, not\n"
                                "    timed: their time is their caller's). CPU TIME lists every row whose\n"
                                "    time or calls reach <cutoff> of the total, so with their counts the\n"
                                "    methods called most whatever their time. timing=gprof\n"
                                "    counts every call in the calling thread itself, reads no clock, and\n"
                                "    takes the times from CPU samples every <interval> ms (as gprof does):\n"
                                "    a few times cheaper on call-heavy code, counts as exact, times those of\n"
                                "    samples (a method that runs less than an interval may show 0 ms; one\n"
                                "    with no count, native or of a hidden class such as a lambda's, gives\n"
                                "    its samples to its caller; a line after CPU TIME counts the samples\n"
                                "    with no stack or no counted method).\n"
                                "  - thread=y on JDK 21+ names virtual threads (THREAD START with group\n"
                                "    VirtualThreads) in samples, sites and monitors, not their carriers;\n"
                                "    it costs each mount and unmount about 0.2 us (sampler=jvmti still\n"
                                "    names carriers).\n"
                                "  - view=<views> (html, collapsed, pprof or all; several joined by +, as in\n"
                                "    view=html+pprof) writes at each dump a flame graph (html), collapsed\n"
                                "    stacks (for flamegraph.pl, speedscope) or pprof (gzipped profile.proto\n"
                                "    for go tool pprof, Pyroscope, Parca) of each stack-based section\n"
                                "    (cpu=samples|times, heap=sites, monitor=y), beside the file:\n"
                                "    <file>.<cpu|sites|monitor>.<html|collapsed|pb.gz> (<file> without .txt;\n"
                                "    dumps before the one at exit add .1, .2 ...). Without depth=, stacks are\n"
                                "    64 frames deep (exact heap=sites then costs more on deeply nested code:\n"
                                "    an Ant build 6-7x, against 1.9x at depth=4). viewonly=y writes the\n"
                                "    views and no other file.\n"
                                "    build/hprof view makes the same views from any HPROF file.\n"
                                "  - timeline=gc writes a GC record at each collection (when, how long from\n"
                                "    the JVM's GC start to its end, heap used before and after and committed,\n"
                                "    read from the JVM's jvmstat counters) and HEAP SIZE when the committed\n"
                                "    heap changes; with heap=sites also, after each GC, an ALLOCS LIVE record:\n"
                                "    per site, objects and bytes allocated since the last record and still\n"
                                "    live; at exit the LEAK SUSPECTS (sites whose live bytes kept growing)\n"
                                "    and <file>.timeline.html, a page of the heap and those sites over time.\n"
                                "    timeline=<ms>: the ALLOCS LIVE records every <ms> instead (live as the\n"
                                "    last GC left them). The text file always starts with the run header\n"
                                "    (command, OS, heap sizes, JVM, collector, pid, host, start, options);\n"
                                "    format=b writes it as a RUN HEADER record with timeline= only. New\n"
                                "    binary tags 0x40-0x44 (README); the net= command ALLOCS (0x09) writes\n"
                                "    the allocations since the last record. format=short is format=b with\n"
                                "    timeline=gc and heap=sites, never a heap dump. top=<n> keeps the first\n"
                                "    n rows of SITES, CPU SAMPLES, CPU TIME, MONITOR TIME and the timeline's\n"
                                "    records.\n"
                                "  - %t in file= is the session's (or window's) start, UTC: 20261127T101500Z.\n"
                                "    A file= ending in .html, .collapsed or .pb.gz is that view alone\n"
                                "    (viewonly=y, named exactly so when one section has stacks).\n"
                                "    rotate=<seconds> ends a window every <seconds>: its file (file= needs %t)\n"
                                "    holds that window alone, written by an agent thread; keep=<n> deletes\n"
                                "    all but the last n files it wrote. pprof files carry the window's time\n"
                                "    and duration, and labels service_name (service=), host and pid.\n"
                                "  - monitor=y: MONITOR TIME is contention only, as in the original (time\n"
                                "    blocked entering a monitor). Time in Object.wait (Thread.join too) is\n"
                                "    in a section of its own, MONITOR WAIT TIME, which the original lacked.\n"
                                "    java.util.concurrent is seen too (four java.base classes rewritten):\n"
                                "    a park on a lock (ReentrantLock, ReadWriteLock, StampedLock, Semaphore)\n"
                                "    is contention, marked (j.u.c), timed from the first park to the\n"
                                "    acquisition; other parks (Condition.await, a queue's take, a latch,\n"
                                "    Future.get) are waits, a park with no blocker of class (none).\n"
                                "    MONITOR DUMP lists the j.u.c locks threads park on, with owner and\n"
                                "    waiters. Virtual threads pinned to a carrier are not reported.\n";

const char *options_help_text(void) { return HELP_TEXT; }

const char *options_cpu_name(enum cpu_mode m)
{
    switch (m) {
    case CPU_SAMPLES: return "samples";
    case CPU_TIMES: return "times";
    case CPU_OLD: return "old";
    default: return "off";
    }
}

void options_free(struct options *o)
{
    free(o->file);
    free(o->net_host);
    free(o->text);
    free(o->service);
    o->file = o->net_host = o->text = o->service = NULL;
}

static void set_defaults(struct options *o)
{
    memset(o, 0, sizeof *o);
    o->format = 'a';
    o->depth = 4;
    o->interval_ms = 10;
    o->cutoff = 0.0001;
    o->lineno = true;
    o->doe = true;
    o->force = true;
    o->verbose = true;
    o->primfields = true;
    o->primarrays = true;
}

/* The parser reads one "name=value" pair at a time from the option string. */
struct parser {
    const char *all; /* the whole string, quoted in error messages */
    char *err;
    size_t errlen;
    bool file_or_net; /* file= or net= seen: each may appear once, not both */
};

static enum options_result fail(struct parser *p, const char *fmt, const char *a)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a);
    snprintf(p->err, p->errlen, "hprof option error: %s (%s)", msg, p->all);
    return OPTIONS_ERROR;
}

static int parse_yes_no(const char *v, bool *out)
{
    if (strcmp(v, "y") == 0)
        *out = true;
    else if (strcmp(v, "n") == 0)
        *out = false;
    else
        return -1;
    return 0;
}

static int parse_int(const char *v, long lo, long hi, int *out)
{
    if (!*v) return -1;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) return -1;
    *out = (int)x;
    return 0;
}

/* view=html+collapsed+pprof (the option list is comma separated, so the kinds are joined by +). */
static int parse_views(const char *v, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bits;
    } KINDS[] = {
        {"html", 1},
        {"collapsed", 2},
        {"pprof", 4},
        {"all", 7},
    };
    *out = 0;
    while (*v) {
        size_t n = strcspn(v, "+"), i;
        for (i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
            if (strlen(KINDS[i].name) == n && strncmp(v, KINDS[i].name, n) == 0) break;
        if (i == sizeof KINDS / sizeof KINDS[0]) return -1;
        *out |= KINDS[i].bits;
        v += n + (v[n] == '+');
    }
    return *out ? 0 : -1;
}

/* timeline=gc|<ms> and top=<n>: the 1997 requests (README, "The run and its heap over time"). */
static enum options_result parse_timeline_top(struct parser *p, struct options *o, const char *name, const char *v)
{
    if (name[0] == 't' && name[1] == 'o') {
        if (parse_int(v, 1, 1000000, &o->top))
            return fail(p, "top option value must be a number from 1 to 1000000%s", "");
        return OPTIONS_OK;
    }
    if (strcmp(v, "gc") == 0) {
        o->timeline = TIMELINE_GC;
        return OPTIONS_OK;
    }
    if (parse_int(v, 1, OPT_MAX_MS, &o->timeline_ms))
        return fail(p, "timeline option value must be gc or a number of ms from 1 to " OPT_MAX_MS_TEXT "%s", "");
    o->timeline = TIMELINE_MS;
    return OPTIONS_OK;
}

/* service=<name>: a label value fleet tools show and filter by; printable, no quotes or
 * braces (Pyroscope's application names put labels in braces). */
static enum options_result parse_service(struct parser *p, struct options *o, const char *v)
{
    size_t n = strlen(v);
    bool good = n > 0 && n <= 128;
    for (size_t i = 0; good && i < n; i++) good = v[i] > ' ' && v[i] < 0x7f && !strchr("\"'{}=\\", v[i]);
    if (!good)
        return fail(p, "service option value must be 1-128 printable characters without spaces, quotes, braces or =%s",
                    "");
    free(o->service);
    o->service = strdup(v);
    return o->service ? OPTIONS_OK : fail(p, "out of memory%s", "");
}

static enum options_result parse_net(struct parser *p, const char *v, struct options *o)
{
    const char *colon = strrchr(v, ':');
    if (!colon) return fail(p, "net option missing port%s", "");
    if (colon == v) return fail(p, "net option missing ':'%s", "");
    int port;
    if (parse_int(colon + 1, 1, 65535, &port))
        return fail(p, "net option port must be a number from 1 to 65535: %s", colon + 1);
    char *host = strndup(v, (size_t)(colon - v));
    if (!host) return fail(p, "out of memory%s", "");
    free(o->net_host);
    o->net_host = host;
    o->net_port = port;
    return OPTIONS_OK;
}

/* The y|n option called name, or NULL. */
static bool *flag_of(struct options *o, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } FLAGS[] = {
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
    for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++)
        if (strcmp(name, FLAGS[i].name) == 0) return (bool *)((char *)o + FLAGS[i].off);
    return NULL;
}

/* The original's options that mean nothing here (its own debugging aids: log and debug
 * bits, core dumps, pauses, experiments), accepted with the values it took: a number in
 * C notation, or y|n. It refused exitpause and precrash (removed then); they are accepted
 * here too, so no command line that ran it fails. */
static const struct {
    const char *name;
    bool numeric;
} NO_EFFECT[] = {
    {"logflags", true}, {"debugflags", true}, {"coredump", false}, {"errorexit", false}, {"exitpause", false},
    {"pause", false},   {"precrash", false},  {"debug", false},    {"X", true},
};
#define N_NO_EFFECT (sizeof NO_EFFECT / sizeof NO_EFFECT[0])

bool options_no_effect(const struct options *o, char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; i < N_NO_EFFECT; i++) {
        if (!(o->no_effect & (1u << i))) continue;
        int n = snprintf(buf + at, len > at ? len - at : 0, "%s%s", at ? ", " : "", NO_EFFECT[i].name);
        if (n > 0) at += (size_t)n;
    }
    return o->no_effect != 0;
}

/* One of NO_EFFECT: checks its value and notes it; returns -1 when name is not one. */
static int apply_no_effect(struct parser *p, struct options *o, const char *name, const char *value,
                           enum options_result *r)
{
    for (size_t i = 0; i < N_NO_EFFECT; i++) {
        if (strcmp(name, NO_EFFECT[i].name) != 0) continue;
        char *end;
        bool ignored;
        errno = 0;
        if (NO_EFFECT[i].numeric) (void)strtol(value, &end, 0);
        if (NO_EFFECT[i].numeric ? (!*value || *end || errno) : parse_yes_no(value, &ignored) != 0) {
            *r =
                fail(p, NO_EFFECT[i].numeric ? "%s option value must be numeric" : "%s option value must be y|n", name);
            return 0;
        }
        o->no_effect |= 1u << i;
        *r = OPTIONS_OK;
        return 0;
    }
    return -1;
}

/* Options with a value of their own syntax; returns -1 when name is not one. */
static int apply_valued(struct parser *p, struct options *o, const char *name, const char *value,
                        enum options_result *r)
{
    *r = OPTIONS_OK;
    if (strcmp(name, "heap") == 0) {
        o->heap_given = true;
        /* heap=dump and heap=sites add up, as they always did */
        if (strcmp(value, "dump") == 0)
            o->heap |= HEAP_DUMP;
        else if (strcmp(value, "sites") == 0)
            o->heap |= HEAP_SITES;
        else if (strcmp(value, "all") == 0)
            o->heap = HEAP_ALL;
        else
            *r = fail(p, "heap option value must be dump|sites|all%s", "");
    } else if (strcmp(name, "cpu") == 0) {
        if (strcmp(value, "samples") == 0 || strcmp(value, "y") == 0)
            o->cpu = CPU_SAMPLES;
        else if (strcmp(value, "times") == 0)
            o->cpu = CPU_TIMES;
        else if (strcmp(value, "old") == 0)
            o->cpu = CPU_OLD;
        else
            *r = fail(p, "cpu option value must be y|samples|times|old%s", "");
    } else if (strcmp(name, "clock") == 0) {
        if (strcmp(value, "cpu") == 0)
            o->clock = CLOCK_CPU;
        else if (strcmp(value, "wall") == 0)
            o->clock = CLOCK_WALL;
        else
            *r = fail(p, "clock option value must be cpu|wall%s", "");
    } else if (strcmp(name, "sampler") == 0) {
        if (strcmp(value, "signal") == 0)
            o->sampler = ENGINE_SIGNAL;
        else if (strcmp(value, "jvmti") == 0)
            o->sampler = ENGINE_JVMTI;
        else
            *r = fail(p, "sampler option value must be signal|jvmti%s", "");
    } else if (strcmp(name, "threads") == 0) {
        if (strcmp(value, "all") == 0)
            o->threads = THREADS_ALL;
        else if (strcmp(value, "java") == 0)
            o->threads = THREADS_JAVA;
        else
            *r = fail(p, "threads option value must be all|java%s", "");
    } else if (strcmp(name, "timing") == 0) {
        if (strcmp(value, "sampled") == 0)
            o->timing = TIMING_SAMPLED;
        else if (strcmp(value, "all") == 0)
            o->timing = TIMING_ALL;
        else if (strcmp(value, "gprof") == 0)
            o->timing = TIMING_GPROF;
        else
            *r = fail(p, "timing option value must be sampled|all|gprof%s", "");
    } else if (strcmp(name, "live") == 0) {
        if (strcmp(value, "all") == 0)
            o->live = LIVE_ALL;
        else if (strcmp(value, "sampled") == 0)
            o->live = LIVE_SAMPLED;
        else
            *r = fail(p, "live option value must be all|sampled%s", "");
    } else if (strcmp(name, "format") == 0) {
        o->format_short = strcmp(value, "short") == 0;
        if (strcmp(value, "a") != 0 && strcmp(value, "b") != 0 && !o->format_short)
            *r = fail(p, "format option value must be a|b|short%s", "");
        else
            o->format = o->format_short ? 'b' : value[0];
    } else if (strcmp(name, "timeline") == 0 || strcmp(name, "top") == 0) {
        *r = parse_timeline_top(p, o, name, value);
    } else if (strcmp(name, "file") == 0 || strcmp(name, "net") == 0) {
        if (p->file_or_net) {
            *r = fail(p, "file or net options should only appear once%s", "");
        } else if (name[0] == 'n') {
            p->file_or_net = true;
            *r = parse_net(p, value, o);
        } else if (!*value) {
            *r = fail(p, "syntax error parsing file=filename%s", "");
        } else {
            p->file_or_net = true;
            free(o->file);
            o->file = strdup(value);
            o->file_given = true;
        }
    } else if (strcmp(name, "rotate") == 0) {
        if (parse_int(value, 1, 86400, &o->rotate_s))
            *r = fail(p, "rotate option value must be a number of seconds from 1 to 86400%s", "");
    } else if (strcmp(name, "keep") == 0) {
        if (parse_int(value, 1, 100000, &o->keep))
            *r = fail(p, "keep option value must be a number of files from 1 to 100000%s", "");
    } else if (strcmp(name, "service") == 0) {
        *r = parse_service(p, o, value);
    } else if (strcmp(name, "view") == 0) {
        if (parse_views(value, &o->view))
            *r = fail(p, "view option value must be html|collapsed|pprof|all, joined by +%s", "");
    } else if (strcmp(name, "depth") == 0) {
        o->depth_given = true;
        if (parse_int(value, 0, 65535, &o->depth))
            *r = fail(p, "depth option value must be decimal and >= 0 (at most 65535)%s", "");
    } else if (strcmp(name, "interval") == 0) {
        if (parse_int(value, 1, OPT_MAX_MS, &o->interval_ms))
            *r = fail(p, "interval option value must be decimal and > 0 (a number of ms)%s", "");
    } else if (strcmp(name, "cutoff") == 0) {
        char *end;
        errno = 0;
        double c = strtod(value, &end);
        if (!*value || *end || errno || !(c >= 0.0 && c <= 1.0))
            *r = fail(p, "cutoff option value must be floating point from 0.0 to 1.0%s", "");
        o->cutoff = c;
    } else if (strcmp(name, "alloc_sample") == 0) {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (!*value || *end || errno || v < 0 || v > (1L << 30))
            *r = fail(p, "alloc_sample option value must be a number of bytes from 0 to 1073741824%s", "");
        o->alloc_sample = v;
    } else {
        return -1;
    }
    return 0;
}

static enum options_result apply(struct parser *p, struct options *o, const char *name, const char *value)
{
    enum options_result r;
    if (apply_valued(p, o, name, value, &r) == 0 || apply_no_effect(p, o, name, value, &r) == 0) return r;
    bool *flag = flag_of(o, name);
    if (flag) {
        if (parse_yes_no(value, flag)) return fail(p, "%s option value must be y|n", name);
        return OPTIONS_OK;
    }
    if (strcmp(name, "gc_okay") == 0) {
        bool ignored;
        if (parse_yes_no(value, &ignored)) return fail(p, "gc_okay option value must be y|n%s", "");
        o->gc_okay_given = true;
        return OPTIONS_OK;
    }
    return fail(p, "Unknown option: %s", name);
}

/* A file= ending in a view's extension is that view alone (viewonly). */
static enum options_result file_names_view(struct parser *p, struct options *o)
{
    static const struct {
        const char *ext;
        unsigned bits;
    } EXTS[] = {{".html", 1}, {".collapsed", 2}, {".pb.gz", 4}};
    size_t n = o->file ? strlen(o->file) : 0;
    for (size_t i = 0; i < sizeof EXTS / sizeof EXTS[0]; i++) {
        size_t e = strlen(EXTS[i].ext);
        if (n <= e || strcmp(o->file + n - e, EXTS[i].ext) != 0) continue;
        if (o->view && o->view != EXTS[i].bits)
            return fail(p, "file= names a view (%s): drop view= or give file= another name", EXTS[i].ext);
        o->view = EXTS[i].bits;
        o->viewonly = o->view_file = true;
    }
    return OPTIONS_OK;
}

int options_stack_sections(const struct options *o)
{
    return (o->cpu == CPU_SAMPLES || o->cpu == CPU_TIMES) + ((o->heap & HEAP_SITES) != 0) + o->monitor;
}

static enum options_result check_rotate(struct parser *p, struct options *o)
{
    if (o->keep && !o->rotate_s) return fail(p, "keep= needs rotate=%s", "");
    if (!o->rotate_s) return OPTIONS_OK;
    if (o->net_host) return fail(p, "rotate= writes files: drop net=%s", "");
    if (o->timeline != TIMELINE_OFF) return fail(p, "rotate= cannot be used with timeline=%s", "");
    if (!o->file || !strstr(o->file, "%t"))
        return fail(p, "rotate= needs %%t in file= (each window's file is named by its start time)%s", "");
    if (o->view_file && options_stack_sections(o) > 1)
        return fail(
            p, "rotate= with a view file (.html, .collapsed, .pb.gz) takes one of cpu=, heap=sites, monitor=y%s", "");
    return OPTIONS_OK;
}

static enum options_result check_combinations(struct parser *p, struct options *o)
{
    if (o->format == 'b' && (o->cpu == CPU_TIMES || o->cpu == CPU_OLD))
        return fail(p, "cpu=times|old is not supported with format=b%s", "");
    if (o->format == 'b' && o->monitor) return fail(p, "monitor=y is not supported with format=b%s", "");
    if (o->format_short) {
        /* the 1997 short format: the timeline, in binary, and never a heap dump */
        if (o->heap & HEAP_DUMP && o->heap_given)
            return fail(p, "format=short writes no heap dumps: drop heap=dump|all%s", "");
        o->heap &= ~HEAP_DUMP;
        if (o->heap == HEAP_NONE && o->cpu == CPU_OFF) o->heap = HEAP_SITES;
        if (o->timeline == TIMELINE_OFF) o->timeline = TIMELINE_GC;
    }
    if (o->live == LIVE_SAMPLED && !(o->heap & HEAP_SITES)) return fail(p, "live=sampled needs heap=sites%s", "");
    if (o->live == LIVE_SAMPLED && (o->heap & HEAP_DUMP))
        return fail(p, "live=sampled is for heap=sites alone: a heap dump (heap=dump|all) names every object's site%s",
                    "");
    if (o->live == LIVE_SAMPLED && o->alloc_sample)
        return fail(p, "live=sampled is for exact heap=sites: alloc_sample= estimates the live counts already%s", "");
    if (o->viewonly && !o->view) return fail(p, "viewonly=y needs view=%s", "");
    if (o->viewonly && o->net_host)
        return fail(p, "viewonly=y writes no profile to send: drop net= or viewonly=%s", "");
    if (file_names_view(p, o) != OPTIONS_OK || check_rotate(p, o) != OPTIONS_OK) return OPTIONS_ERROR;
    if (o->view && !o->depth_given) o->depth = VIEW_DEPTH;
    return OPTIONS_OK;
}

/* Reads the next "name=value" of s into name and value; returns the rest, or NULL on a syntax error. */
static const char *next_pair(const char *s, char *name, size_t namelen, char *value, size_t valuelen)
{
    const char *eq = strchr(s, '=');
    const char *comma = strchr(s, ',');
    if (!eq || (comma && comma < eq)) return NULL;
    size_t n = (size_t)(eq - s);
    if (n == 0 || n >= namelen) return NULL;
    memcpy(name, s, n);
    name[n] = 0;
    const char *v = eq + 1;
    size_t m = comma ? (size_t)(comma - v) : strlen(v);
    if (m >= valuelen) return NULL;
    memcpy(value, v, m);
    value[m] = 0;
    return comma ? comma + 1 : v + m;
}

enum options_result options_parse(const char *text, struct options *o, char *err, size_t errlen)
{
    struct parser p = {text ? text : "", err, errlen, false};
    set_defaults(o);
    if (errlen) err[0] = 0;
    if (text && strcmp(text, "help") == 0) return OPTIONS_HELP;
    const char *s = p.all;
    while (*s) {
        char name[64], value[4096];
        const char *rest = next_pair(s, name, sizeof name, value, sizeof value);
        if (!rest) {
            /* a bare word: name it if it is one, so "bogus" reads as an unknown option */
            size_t n = strcspn(s, ",=");
            if (n > 0 && n < sizeof name && s[n] != '=') {
                memcpy(name, s, n);
                name[n] = 0;
                fail(&p, strcmp(name, "help") == 0 ? "help must be the only option%s" : "Unknown option: %s",
                     strcmp(name, "help") == 0 ? "" : name);
            } else {
                fail(&p, "general syntax error parsing options%s", "");
            }
            options_free(o);
            return OPTIONS_ERROR;
        }
        if (apply(&p, o, name, value) != OPTIONS_OK) {
            options_free(o);
            return OPTIONS_ERROR;
        }
        s = rest;
    }
    /* With nothing asked for, HPROF profiles the heap (sites and dump), as it always did. */
    if (o->heap == HEAP_NONE && o->cpu == CPU_OFF && !o->monitor) o->heap = HEAP_ALL;
    if (check_combinations(&p, o) != OPTIONS_OK) {
        options_free(o);
        return OPTIONS_ERROR;
    }
    if (!o->file) o->file = strdup(o->format == 'b' ? "java.hprof" : "java.hprof.txt");
    o->text = strdup(p.all);
    if (!o->file || !o->text) return fail(&p, "out of memory%s", "");
    return OPTIONS_OK;
}
