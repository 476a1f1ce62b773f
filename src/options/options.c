/* SPDX-License-Identifier: Apache-2.0 */
#include "options/options.h"

#include <errno.h>
#include <stdarg.h>
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
                                "callers=all|sampled    heap=sites: every allocation's all\n"
                                "                       trace, or sites exact and\n"
                                "                       callers by sample (below)\n"
                                "clock=cpu|wall         cpu=samples: CPU or wall time  cpu\n"
                                "sampler=signal|jvmti   cpu=samples: how stacks are    signal\n"
                                "                       taken\n"
                                "threads=all|java       cpu=samples: the VM's threads  all\n"
                                "                       (JIT, GC ...) too, or not\n"
                                "native=y|n             cpu=samples: native frames     y\n"
                                "                       (C, C++, the JVM's) in stacks\n"
                                "precise=y|n            cpu=samples: the JIT's debug   y\n"
                                "                       info at every instruction\n"
                                "kernel=y|n             cpu=samples: the kernel's      n\n"
                                "                       frames too (perf events)\n"
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
                                "    estimates: a sample of n bytes counts as <bytes>/n objects (at least 1)\n"
                                "    allocated and, as long as it lives, live, so a site's live never\n"
                                "    exceeds its allocated. Low overhead for large services. 0 (the\n"
                                "    default) counts every allocation exactly, through bytecode\n"
                                "    instrumentation; it turns off the JIT optimizations that would\n"
                                "    allocate without that bytecode (OptimizeStringConcat,\n"
                                "    EliminateAutoBox, allocating intrinsics).\n"
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
                                "  - callers=sampled is new: exact heap=sites at a sampled price. Each\n"
                                "    allocating bytecode (new, newarray, anewarray, multianewarray) counts\n"
                                "    its objects and bytes in Java, per thread, without a JNI call; its\n"
                                "    callers (the trace's frames, up to depth) are taken on a sample of its\n"
                                "    allocations (the 1st, 2nd, 4th ... then one in 4096, one in 64 where\n"
                                "    the callers vary). Counts per allocation site (method, bytecode,\n"
                                "    class) stay exact; a site seen with several traces has its count split\n"
                                "    among them by the samples (rows marked * in SITES, 'apportioned' in\n"
                                "    views; a site with one trace stays exact). Objects the VM makes (lambdas\n"
                                "    by Unsafe.allocateInstance, Array.newInstance, reflection, clones) are\n"
                                "    counted in Java too, after the calls that make them; `new` in hidden\n"
                                "    classes (constructor references, JDK 24+ string concatenation) too.\n"
                                "    Before JDK 22 the rest the VM makes comes from its JVMTI reports; from\n"
                                "    JDK 22 those reports would slow compiled code down, so the strings the\n"
                                "    VM makes for names and the errors it throws are not counted there.\n"
                                "    JNI AllocObject and NewObject are counted one by one.\n"
                                "    Live counts are estimates from allocation samples every 512 KB (the\n"
                                "    share of a site's samples still live). Not with alloc_sample= nor\n"
                                "    live=sampled. Attached, it needs classes that can be retransformed.\n"
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
                                "    [other native]) named by the thread, so that the samples add up to\n"
                                "    the process's CPU time. threads=java samples the Java threads only.\n"
                                "  - cpu=samples' stacks (signal sampler) hold native frames (native=y,\n"
                                "    x86-64): a JNI library's, libc's and the JVM's own functions, on\n"
                                "    top of the Java frames that called them, or under the [GC]/[JIT\n"
                                "    compiler] frame of a thread that is not a Java thread, as\n"
                                "    libjvm.so.Compile::Optimize(libjvm.so:Native method). depth= counts\n"
                                "    them (use a larger one: depth=4 may hold native frames only). A walk\n"
                                "    that ends short says why ([native_walk_stopped].no_row ...).\n"
                                "    native=n leaves them out.\n"
                                "  - kernel=y (clock=cpu, native=y): each thread's CPU time is counted\n"
                                "    by a perf event (perf_event_open) instead of a timer, and the\n"
                                "    kernel's frames (a system call's, a page fault's) go on top of the\n"
                                "    native ones, as [kernel].ksys_write([kernel]:Native method), named\n"
                                "    from /proc/kallsyms. It needs root, CAP_PERFMON or sysctl\n"
                                "    kernel.perf_event_paranoid=1 (or less); elsewhere a warning says why\n"
                                "    and the samples go on without kernel frames.\n"
                                "  - cpu=samples turns on HotSpot's DebugNonSafepoints (precise=y), so a\n"
                                "    sample in compiled code names the inlined method it was in. The JIT\n"
                                "    then records more and compiles more slowly: that alone cost javac's\n"
                                "    start-up 0-13% (BENCHMARKS.md). precise=n leaves the flag as\n"
                                "    it was: cheaper, but such a sample is named by the nearest point the\n"
                                "    JIT recorded, which can be a caller or a neighbour of the method.\n"
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
                                "    views and no other file. The sites' views hold every site: cutoff=\n"
                                "    cuts SITES (by live bytes) only, so their totals are the run's.\n"
                                "    build/hprof view makes views from any HPROF file (a text file's SITES\n"
                                "    holds only the rows its cutoff kept).\n"
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
                                "    binary tags 0x40-0x44 (docs/binary-format.md); the net= command ALLOCS\n"
                                "    (0x09) writes the allocations since the last record. format=short is\n"
                                "    format=b with timeline=gc and heap=sites, never a heap dump. top=<n>\n"
                                "    keeps the first n rows of SITES, CPU SAMPLES, CPU TIME, MONITOR TIME and\n"
                                "    the timeline's records.\n"
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
    o->native = true;
    o->precise = true;
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

static enum options_result fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static enum options_result fail(struct parser *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "hprof option error: %s (%s)", msg, p->all);
    return OPTIONS_ERROR;
}

/* A decimal number from lo to hi, the whole of v. */
static bool decimal(const char *v, long lo, long hi, long *out)
{
    if (!*v) return false;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) return false;
    *out = x;
    return true;
}

/* A value word of an option and what it stands for; a list of them ends with NULL. */
struct word {
    const char *word;
    int value;
};

static const struct word YES_NO[] = {{"y", true}, {"n", false}, {NULL, 0}};
static const struct word HEAP_WORDS[] = {{"dump", HEAP_DUMP}, {"sites", HEAP_SITES}, {"all", HEAP_ALL}, {NULL, 0}};
static const struct word CPU_WORDS[] = {
    {"y", CPU_SAMPLES}, {"samples", CPU_SAMPLES}, {"times", CPU_TIMES}, {"old", CPU_OLD}, {NULL, 0}};
/* 's' is format=short: binary, and more (set_format) */
static const struct word FORMAT_WORDS[] = {{"a", 'a'}, {"b", 'b'}, {"short", 's'}, {NULL, 0}};
static const struct word LIVE_WORDS[] = {{"all", LIVE_ALL}, {"sampled", LIVE_SAMPLED}, {NULL, 0}};
static const struct word CALLERS_WORDS[] = {{"all", CALLERS_ALL}, {"sampled", CALLERS_SAMPLED}, {NULL, 0}};
static const struct word CLOCK_WORDS[] = {{"cpu", CLOCK_CPU}, {"wall", CLOCK_WALL}, {NULL, 0}};
static const struct word SAMPLER_WORDS[] = {{"signal", ENGINE_SIGNAL}, {"jvmti", ENGINE_JVMTI}, {NULL, 0}};
static const struct word THREADS_WORDS[] = {{"all", THREADS_ALL}, {"java", THREADS_JAVA}, {NULL, 0}};
static const struct word TIMING_WORDS[] = {
    {"sampled", TIMING_SAMPLED}, {"all", TIMING_ALL}, {"gprof", TIMING_GPROF}, {NULL, 0}};
static const struct word VIEW_WORDS[] = {
    {"html", VIEW_HTML}, {"collapsed", VIEW_COLLAPSED}, {"pprof", VIEW_PPROF}, {"all", VIEW_ALL}, {NULL, 0}};

/* The word of list that is the n characters at s, or NULL. */
static const struct word *find_word(const struct word *list, const char *s, size_t n)
{
    for (; list->word; list++)
        if (strlen(list->word) == n && strncmp(s, list->word, n) == 0) return list;
    return NULL;
}

/* How a row reads its value. */
enum row_kind {
    ROW_WORDS,    /* one of words */
    ROW_WORD_SET, /* words joined by + (the option list is comma separated): their values or'ed */
    ROW_RANGE,    /* a decimal number from lo to hi */
    ROW_NUMBER,   /* a number in C notation (4, 0x4, 04), any */
    ROW_CUSTOM,   /* parse reads it and sets the options */
};

struct option_row;
typedef enum options_result parse_fn(struct parser *p, struct options *o, const struct option_row *r, const char *v);

/* One option: its name, how its value is read, and where it goes. */
struct option_row {
    const char *name;
    enum row_kind kind;
    const struct word *words; /* ROW_WORDS, ROW_WORD_SET */
    long lo, hi;              /* ROW_RANGE */
    parse_fn *parse;          /* ROW_CUSTOM */
    /* what a bad value is told, "<name> option value must be <must>" (words: they are listed) */
    const char *must;
    /* Where the value read goes: set, else the field (its size tells its type: bool, int
     * or an enum, long); neither for the options that do nothing. */
    void (*set)(struct options *o, long v);
    size_t field, size;
    bool no_effect; /* the original's, and does nothing here: a bit of o->no_effect, in table order */
};

_Static_assert(sizeof(enum cpu_mode) == sizeof(int) && sizeof(bool) != sizeof(int) && sizeof(int) != sizeof(long),
               "store tells a field's type by its size");

#define FIELD(f)          .field = offsetof(struct options, f), .size = sizeof(((struct options *)0)->f)
#define WORDS(list)       .kind = ROW_WORDS, .words = list
#define FLAG(f)           WORDS(YES_NO), FIELD(f)
#define RANGE(l, h, text) .kind = ROW_RANGE, .lo = l, .hi = h, .must = text
#define CUSTOM(fn, text)  .kind = ROW_CUSTOM, .parse = fn, .must = text

/* "<name> option value must be <must>": the row's words, or its sentence. */
static enum options_result bad_value(struct parser *p, const struct option_row *r)
{
    char words[128] = "";
    size_t at = 0;
    for (const struct word *w = r->words; w && w->word && at < sizeof words; w++)
        at += (size_t)snprintf(words + at, sizeof words - at, "%s%s", at ? "|" : "", w->word);
    if (r->kind == ROW_WORD_SET && at < sizeof words) snprintf(words + at, sizeof words - at, ", joined by +");
    return fail(p, "%s option value must be %s", r->name, r->words ? words : r->must);
}

/* heap=dump and heap=sites add up, as they always did */
static void set_heap(struct options *o, long v)
{
    o->heap = (enum heap_mode)(o->heap | v);
    o->heap_given = true;
}

static void set_format(struct options *o, long v)
{
    o->format_short = v == 's';
    o->format = o->format_short ? 'b' : (char)v;
}

static void set_depth(struct options *o, long v)
{
    o->depth = (int)v;
    o->depth_given = true;
}

static void set_gc_okay(struct options *o, long v) { o->gc_okay_given = true; }

/* file= and net= name the one place the profile goes: true when one was named already. */
static bool second_place(struct parser *p)
{
    if (p->file_or_net) {
        fail(p, "file or net options should only appear once");
        return true;
    }
    p->file_or_net = true;
    return false;
}

static enum options_result parse_file(struct parser *p, struct options *o, const struct option_row *r, const char *v)
{
    if (second_place(p)) return OPTIONS_ERROR;
    if (!*v) return fail(p, "syntax error parsing file=filename");
    free(o->file);
    o->file = strdup(v);
    o->file_given = true;
    return o->file ? OPTIONS_OK : fail(p, "out of memory");
}

static enum options_result parse_net(struct parser *p, struct options *o, const struct option_row *r, const char *v)
{
    if (second_place(p)) return OPTIONS_ERROR;
    const char *colon = strrchr(v, ':');
    if (!colon) return fail(p, "net option missing port");
    if (colon == v) return fail(p, "net option missing ':'");
    long port;
    if (!decimal(colon + 1, 1, 65535, &port))
        return fail(p, "net option port must be a number from 1 to 65535: %s", colon + 1);
    char *host = strndup(v, (size_t)(colon - v));
    if (!host) return fail(p, "out of memory");
    free(o->net_host);
    o->net_host = host;
    o->net_port = (int)port;
    return OPTIONS_OK;
}

static enum options_result parse_cutoff(struct parser *p, struct options *o, const struct option_row *r, const char *v)
{
    char *end;
    errno = 0;
    double c = strtod(v, &end);
    if (!*v || *end || errno || !(c >= 0.0 && c <= 1.0)) return bad_value(p, r);
    o->cutoff = c;
    return OPTIONS_OK;
}

/* timeline=gc|<ms>: the 1997 request (docs/timeline.md). */
static enum options_result parse_timeline(struct parser *p, struct options *o, const struct option_row *r,
                                          const char *v)
{
    long ms;
    if (strcmp(v, "gc") == 0) {
        o->timeline = TIMELINE_GC;
    } else if (decimal(v, 1, OPT_MAX_MS, &ms)) {
        o->timeline = TIMELINE_MS;
        o->timeline_ms = (int)ms;
    } else {
        return bad_value(p, r);
    }
    return OPTIONS_OK;
}

/* service=<name>: a label value fleet tools show and filter by; printable, no quotes or
 * braces (Pyroscope's application names put labels in braces). */
static enum options_result parse_service(struct parser *p, struct options *o, const struct option_row *r, const char *v)
{
    size_t n = strlen(v);
    bool good = n > 0 && n <= 128;
    for (size_t i = 0; good && i < n; i++) good = v[i] > ' ' && v[i] < 0x7f && !strchr("\"'{}=\\", v[i]);
    if (!good) return bad_value(p, r);
    free(o->service);
    o->service = strdup(v);
    return o->service ? OPTIONS_OK : fail(p, "out of memory");
}

/* The original's options that mean nothing here (its own debugging aids: log and debug
 * bits, core dumps, pauses, experiments), accepted with the values it took: a number in
 * C notation, or y|n. It refused exitpause and precrash (removed then); they are accepted
 * here too, so no command line that ran it fails. */
#define NO_EFFECT_NUMBER .kind = ROW_NUMBER, .must = "numeric", .no_effect = true
#define NO_EFFECT_FLAG   WORDS(YES_NO), .no_effect = true

/* Every option. Names are compared whole: the original took no abbreviations. */
static const struct option_row ROWS[] = {
    /* the original's table (the help text's first) */
    {"heap", WORDS(HEAP_WORDS), .set = set_heap},
    {"cpu", WORDS(CPU_WORDS), FIELD(cpu)},
    {"monitor", FLAG(monitor)},
    {"format", WORDS(FORMAT_WORDS), .set = set_format},
    {"file", CUSTOM(parse_file, NULL)},
    {"net", CUSTOM(parse_net, NULL)},
    {"depth", RANGE(0, 65535, "decimal and >= 0 (at most 65535)"), .set = set_depth},
    {"interval", RANGE(1, OPT_MAX_MS, "decimal and > 0 (a number of ms)"), FIELD(interval_ms)},
    {"cutoff", CUSTOM(parse_cutoff, "floating point from 0.0 to 1.0")},
    {"lineno", FLAG(lineno)},
    {"thread", FLAG(thread)},
    {"doe", FLAG(doe)},
    {"msa", FLAG(msa)},
    {"force", FLAG(force)},
    {"verbose", FLAG(verbose)},
    /* new ones */
    {"alloc_sample", RANGE(0, 1L << 30, "a number of bytes from 0 to 1073741824"), FIELD(alloc_sample)},
    {"live", WORDS(LIVE_WORDS), FIELD(live)},
    {"callers", WORDS(CALLERS_WORDS), FIELD(callers)},
    {"clock", WORDS(CLOCK_WORDS), FIELD(clock)},
    {"sampler", WORDS(SAMPLER_WORDS), FIELD(sampler)},
    {"threads", WORDS(THREADS_WORDS), FIELD(threads)},
    {"native", FLAG(native)},
    {"precise", FLAG(precise)},
    {"kernel", FLAG(kernel)},
    {"timing", WORDS(TIMING_WORDS), FIELD(timing)},
    {"view", .kind = ROW_WORD_SET, .words = VIEW_WORDS, FIELD(view)},
    {"viewonly", FLAG(viewonly)},
    {"timeline", CUSTOM(parse_timeline, "gc or a number of ms from 1 to " OPT_MAX_MS_TEXT)},
    {"top", RANGE(1, 1000000, "a number from 1 to 1000000"), FIELD(top)},
    {"rotate", RANGE(1, 86400, "a number of seconds from 1 to 86400"), FIELD(rotate_s)},
    {"keep", RANGE(1, 100000, "a number of files from 1 to 100000"), FIELD(keep)},
    {"service", CUSTOM(parse_service, "1-128 printable characters without spaces, quotes, braces or =")},
    /* the original's, outside its table */
    {"primfields", FLAG(primfields)},
    {"primarrays", FLAG(primarrays)},
    {"logflags", NO_EFFECT_NUMBER},
    {"debugflags", NO_EFFECT_NUMBER},
    {"coredump", NO_EFFECT_FLAG},
    {"errorexit", NO_EFFECT_FLAG},
    {"exitpause", NO_EFFECT_FLAG},
    {"pause", NO_EFFECT_FLAG},
    {"precrash", NO_EFFECT_FLAG},
    {"debug", NO_EFFECT_FLAG},
    {"X", NO_EFFECT_NUMBER},
    /* obsolete: accepted, with a note */
    {"gc_okay", WORDS(YES_NO), .set = set_gc_okay},
};
#define N_ROWS (sizeof ROWS / sizeof ROWS[0])

const char *options_name(size_t i) { return i < N_ROWS ? ROWS[i].name : NULL; }

static const struct option_row *row_named(const char *name)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (strcmp(name, ROWS[i].name) == 0) return &ROWS[i];
    return NULL;
}

/* The bit of o->no_effect a no-effect row sets: its rank among them. */
static unsigned no_effect_bit(const struct option_row *r)
{
    unsigned bit = 0;
    for (const struct option_row *q = ROWS; q < r; q++) bit += q->no_effect;
    return 1u << bit;
}

bool options_no_effect(const struct options *o, char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; i < N_ROWS; i++) {
        if (!ROWS[i].no_effect || !(o->no_effect & no_effect_bit(&ROWS[i]))) continue;
        int n = snprintf(buf + at, len > at ? len - at : 0, "%s%s", at ? ", " : "", ROWS[i].name);
        if (n > 0) at += (size_t)n;
    }
    return o->no_effect != 0;
}

/* Reads v as r's kind says (not ROW_CUSTOM); false when it is not one. */
static bool read_value(const struct option_row *r, const char *v, long *out)
{
    const struct word *w;
    char *end;
    switch (r->kind) {
    case ROW_WORDS:
        w = find_word(r->words, v, strlen(v));
        if (w) *out = w->value;
        return w != NULL;
    case ROW_WORD_SET:
        *out = 0;
        while (*v) {
            size_t n = strcspn(v, "+");
            if (!(w = find_word(r->words, v, n))) return false;
            *out |= w->value;
            v += n + (v[n] == '+');
        }
        return *out != 0;
    case ROW_RANGE: return decimal(v, r->lo, r->hi, out);
    case ROW_NUMBER:
        errno = 0;
        (void)strtol(v, &end, 0);
        return *v && !*end && !errno;
    default: return false;
    }
}

/* Puts v in r's field, whose size tells its type (bool, int or an enum, long). */
static void store(struct options *o, const struct option_row *r, long v)
{
    char *at = (char *)o + r->field;
    bool b = v != 0;
    int i = (int)v;
    if (r->size == sizeof b)
        memcpy(at, &b, sizeof b);
    else if (r->size == sizeof i)
        memcpy(at, &i, sizeof i);
    else if (r->size == sizeof v)
        memcpy(at, &v, sizeof v);
}

static enum options_result apply(struct parser *p, struct options *o, const char *name, const char *value)
{
    const struct option_row *r = row_named(name);
    if (!r) return fail(p, "Unknown option: %s", name);
    if (r->kind == ROW_CUSTOM) return r->parse(p, o, r, value);
    long v;
    if (!read_value(r, value, &v)) return bad_value(p, r);
    if (r->set)
        r->set(o, v);
    else if (r->size)
        store(o, r, v);
    if (r->no_effect) o->no_effect |= no_effect_bit(r);
    return OPTIONS_OK;
}

/* A file= ending in a view's extension is that view alone (viewonly). */
static enum options_result file_names_view(struct parser *p, struct options *o)
{
    static const struct {
        const char *ext;
        unsigned bits;
    } EXTS[] = {{".html", VIEW_HTML}, {".collapsed", VIEW_COLLAPSED}, {".pb.gz", VIEW_PPROF}};
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
    if (o->keep && !o->rotate_s) return fail(p, "keep= needs rotate=");
    if (!o->rotate_s) return OPTIONS_OK;
    if (o->net_host) return fail(p, "rotate= writes files: drop net=");
    if (o->timeline != TIMELINE_OFF) return fail(p, "rotate= cannot be used with timeline=");
    if (!o->file || !strstr(o->file, "%t"))
        return fail(p, "rotate= needs %%t in file= (each window's file is named by its start time)");
    if (o->view_file && options_stack_sections(o) > 1)
        return fail(p, "rotate= with a view file (.html, .collapsed, .pb.gz) takes one of cpu=, heap=sites, monitor=y");
    return OPTIONS_OK;
}

static enum options_result check_combinations(struct parser *p, struct options *o)
{
    if (o->format == 'b' && (o->cpu == CPU_TIMES || o->cpu == CPU_OLD))
        return fail(p, "cpu=times|old is not supported with format=b");
    if (o->format == 'b' && o->monitor) return fail(p, "monitor=y is not supported with format=b");
    if (o->format_short) {
        /* the 1997 short format: the timeline, in binary, and never a heap dump */
        if (o->heap & HEAP_DUMP && o->heap_given)
            return fail(p, "format=short writes no heap dumps: drop heap=dump|all");
        o->heap &= ~HEAP_DUMP;
        if (o->heap == HEAP_NONE && o->cpu == CPU_OFF) o->heap = HEAP_SITES;
        if (o->timeline == TIMELINE_OFF) o->timeline = TIMELINE_GC;
    }
    if (o->live == LIVE_SAMPLED && !(o->heap & HEAP_SITES)) return fail(p, "live=sampled needs heap=sites");
    if (o->live == LIVE_SAMPLED && (o->heap & HEAP_DUMP))
        return fail(p, "live=sampled is for heap=sites alone: a heap dump (heap=dump|all) names every object's site");
    if (o->live == LIVE_SAMPLED && o->alloc_sample)
        return fail(p, "live=sampled is for exact heap=sites: alloc_sample= estimates the live counts already");
    if (o->callers == CALLERS_SAMPLED && !(o->heap & HEAP_SITES))
        return fail(p, "callers=sampled needs heap=sites (or heap=all)");
    if (o->callers == CALLERS_SAMPLED && o->alloc_sample)
        return fail(p, "callers=sampled counts every allocation: drop alloc_sample=, which samples them");
    if (o->callers == CALLERS_SAMPLED && o->live == LIVE_SAMPLED)
        return fail(p, "callers=sampled estimates the live counts already: drop live=sampled");
    if (o->viewonly && !o->view) return fail(p, "viewonly=y needs view=");
    if (o->viewonly && o->net_host) return fail(p, "viewonly=y writes no profile to send: drop net= or viewonly=");
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

/* s has no "name=" next (or a name of namelen or more): says so, naming a bare word so
 * that "bogus" reads as an unknown option. */
static enum options_result syntax_error(struct parser *p, const char *s, size_t namelen)
{
    size_t n = strcspn(s, ",=");
    if (n == 0 || n >= namelen || s[n] == '=') return fail(p, "general syntax error parsing options");
    if (n == 4 && strncmp(s, "help", 4) == 0) return fail(p, "help must be the only option");
    return fail(p, "Unknown option: %.*s", (int)n, s);
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
        if ((rest ? apply(&p, o, name, value) : syntax_error(&p, s, sizeof name)) != OPTIONS_OK) {
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
    if (!o->file || !o->text) return fail(&p, "out of memory");
    return OPTIONS_OK;
}
