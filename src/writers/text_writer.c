/* SPDX-License-Identifier: Apache-2.0 */
/* The text format (java.hprof.txt): one line per event, sections at each dump. */
#include <stdio.h>
#include <time.h>

#include "options/options.h"
#include "writers/heap_dump.h"
#include "writers/monitor_text.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/ids.h"
#include "tables/methods.h"
#include "tables/sites.h"
#include "tables/threads.h"
#include "tables/traces.h"
#include "writers/output.h"
#include "writers/text_records.h"
#include "writers/timeline_records.h"
#include "writers/writer.h"

/*
 * No line here may read as a record or a section marker, even to an unanchored pattern
 * (scripts cut sections with sed -n '/CPU SAMPLES BEGIN/,/CPU SAMPLES END/p'): sections
 * are named without BEGIN or END after them, records without the word or colon that
 * follows their name. tests/integration/output.sh checks it for every marker.
 */
static const char LEGEND[] = "This file was written by hprof, a heap and CPU profiling agent for the JVM.\n"
                             "\n"
                             "How to read it. Each record starts at the beginning of a line with its name in\n"
                             "capitals. A section is a run of records that opens with a line of its name and\n"
                             "the word BEGIN (then its total and date) and closes with a line of its name and\n"
                             "the word END. This legend names them without those words, so that a script\n"
                             "cutting a section from its opening line to its closing line finds the section\n"
                             "and nothing else.\n"
                             "Threads are numbered from 200001, traces from 300001 (300000: no frames).\n"
                             "\n"
                             "The lines after the first, each a name, a colon and a value, say what ran: the\n"
                             "command, class path, OS, initial and maximum heap, JVM, collector, process id,\n"
                             "host, start (ms since the epoch) and the agent's options.\n"
                             "\n"
                             "Records written as things happen:\n"
                             "  THREAD, then START or END  a thread began (its object id, number, name and\n"
                             "                             group) or finished.\n"
                             "  TRACE, then a number       a stack trace, top frame first, a tab-indented\n"
                             "                             class.method(source file:line) a line. Each trace is\n"
                             "                             written once, before the first section naming it.\n"
                             "                             With thread=y a trace names its thread.\n"
                             "  WAIT and WAITED, a colon   monitor=y: a thread began an Object.wait (timeout\n"
                             "                             in ms, 0 for none) or ended one (time waited in ms).\n"
                             "  GC, then a number          timeline=: a collection: when (ms after this file's\n"
                             "                             creation), how long (the JVM's GC start to its end),\n"
                             "                             heap used before and after and committed (the JVM's\n"
                             "                             jvmstat counters), what heap=sites counted allocated\n"
                             "                             since the one before.\n"
                             "  HEAP, then SIZE            timeline=: the committed heap changed at that GC.\n"
                             "\n"
                             "Sections, written at each dump (at exit, on SIGQUIT, on a net= command), each\n"
                             "dump's after the earlier ones. In the ranked ones self is a row's share of the\n"
                             "total, accum the running sum of shares, trace the trace number; rows under the\n"
                             "cutoff are left out (the total still counts them).\n"
                             "  CPU SAMPLES        cpu=samples: how often a running thread was found in each\n"
                             "                     trace, most first; count is the number of samples, method\n"
                             "                     the top frame. Counts start from zero after each dump.\n"
                             "  CPU TIME (ms)      cpu=times: time per trace in ms (measured in ns, ranked by\n"
                             "                     it), most first, spent in its top method (method) itself;\n"
                             "                     count is the number of calls. A row is listed when its\n"
                             "                     time or its calls reach the cutoff's share (of the total\n"
                             "                     time, of all the calls counted): a method called often is\n"
                             "                     listed whatever its time. A trivial method (no calls,\n"
                             "                     loops, allocations or locks; at most 32 bytes of\n"
                             "                     bytecode) is counted, not timed: its time is part of its\n"
                             "                     caller's own and its rows show 0 ms, but with timing=all.\n"
                             "                     Every call is counted; with timing=sampled (the default)\n"
                             "                     a method whose timed calls took under 200 ns of their own\n"
                             "                     on average is then timed by sample (8 of every 64 of a\n"
                             "                     thread's such events): its other calls are charged that\n"
                             "                     mean, their callees as measured. timing=all times every\n"
                             "                     call, trivial methods' too. timing=gprof reads no clock:\n"
                             "                     each call is counted where it is made, and a trace's time\n"
                             "                     is its CPU samples (one interval each, taken as\n"
                             "                     cpu=samples does); a trace never sampled shows 0 ms. A\n"
                             "                     method with no count of its own (native, or of a hidden\n"
                             "                     class: lambdas, method handles, which no agent may\n"
                             "                     instrument) is left out of the sampled stacks, its time\n"
                             "                     its caller's. Samples with no stack (the walk failed) or\n"
                             "                     no counted method are not in the section: a line after\n"
                             "                     it, SAMPLES NOT IN CPU TIME and a colon, counts them.\n"
                             "  SITES              heap=sites: objects by allocation site (trace and class),\n"
                             "                     most live bytes first: bytes and objects live at the dump\n"
                             "                     (after a GC) and allocated since the start (estimates when\n"
                             "                     alloc_sample is set, live ones with live=sampled, as the\n"
                             "                     opening line says). With alloc_sample=N a sampled object\n"
                             "                     of n bytes counts as N/n objects (at least 1) in alloc'ed\n"
                             "                     and, as long as it lives, the same in live: a row's live\n"
                             "                     never exceeds its alloc'ed. A site is left out when both\n"
                             "                     its live and its allocated bytes are under the cutoff.\n"
                             "  ALLOCS LIVE        timeline= with heap=sites: an interval (up to a GC, or\n"
                             "                     <ms> long): objects and bytes each site allocated in it\n"
                             "                     and still live at its end, most allocated first.\n"
                             "  LEAK SUSPECTS      timeline= with heap=sites, at exit: the sites whose live\n"
                             "                     bytes reached a new high in most intervals, most growth\n"
                             "                     first (highs: intervals at a new high, of those seen).\n"
                             "  HEAP DUMP          heap=dump: every live object after a GC, ids in hex; the\n"
                             "                     opening line gives the number of OBJ and ARR lines below\n"
                             "                     and their sizes summed. A thread's root names its stack's\n"
                             "                     trace; Java stack roots number that trace's frames. Kinds\n"
                             "                     of line: ROOT, why an object is live (JNI global or local\n"
                             "                     ref, Java or native stack, thread block, system class,\n"
                             "                     busy monitor, thread); OBJ, an instance (size, trace,\n"
                             "                     class), then its reference fields; ARR, an array (size,\n"
                             "                     trace, number and type of elements), then the references\n"
                             "                     in it; CLS, a class, then its super, loader and statics.\n"
                             "  MONITOR DUMP       monitor=y: each monitor in use with its owner, entry count\n"
                             "                     and the threads waiting to enter it or to be notified,\n"
                             "                     then every thread with its trace and status (R running,\n"
                             "                     MW blocked on a monitor, CW waiting, SL sleeping, ZO\n"
                             "                     ended, NS not started, UN unknown; S|, intr|, native| in\n"
                             "                     front when suspended, interrupted, in native code).\n"
                             "  MONITOR TIME       monitor=y: contention only, as in the original hprof: time\n"
                             "                     threads spent blocked entering a monitor another thread\n"
                             "                     held, in ms, per trace and monitor class, most first;\n"
                             "                     count is how many times. Starts from zero at each dump.\n"
                             "  MONITOR WAIT TIME  monitor=y: time threads spent in Object.wait (so also in\n"
                             "                     Thread.join), in ms, per trace and monitor class, in the\n"
                             "                     same layout. Waiting is not contention: it is kept here,\n"
                             "                     out of MONITOR TIME.\n"
                             "cpu=old writes a file of its own, without this legend: count callee caller time,\n"
                             "time in ms for the whole calls, callees included (as the original's); trivial\n"
                             "methods, as above, with time 0.\n";

static void text_file_header(struct writer_ctx *w)
{
    if (w->opt->cpu == CPU_OLD) return; /* the old prof format has no header */
    struct buf *b = output_buf(w->out);
    char when[64];
    buf_printf(b, "JAVA PROFILE 1.0.1, created %s\n\n", text_now(when, sizeof when));
    text_tl_run_header(w);
    buf_put(b, LEGEND, sizeof LEGEND - 1);
    buf_printf(b, "--------\n\n");
    output_record_end(w->out);
}

static void text_thread_start(struct writer_ctx *w, const struct thread_info *t)
{
    if (w->opt->cpu == CPU_OLD) return;
    buf_printf(output_buf(w->out), "THREAD START (obj=%x, id = %u, name=\"%s\", group=\"%s\")\n", t->object_id,
               t->serial, t->name ? t->name : "", t->group ? t->group : "");
    output_record_end(w->out);
}

static void text_thread_end(struct writer_ctx *w, const struct thread_info *t)
{
    if (w->opt->cpu == CPU_OLD) return;
    buf_printf(output_buf(w->out), "THREAD END (id = %u)\n", t->serial);
    output_record_end(w->out);
}

static void text_trace(struct writer_ctx *w, struct trace *t)
{
    if (t->written) return;
    t->written = true;
    struct buf *b = output_buf(w->out);
    buf_printf(b, "TRACE %u:", t->serial);
    if (t->thread_serial) buf_printf(b, " (thread=%u)", t->thread_serial);
    buf_printf(b, "\n");
    if (t->nframes == 0) buf_printf(b, "\t<empty>\n");
    for (uint32_t i = 0; i < t->nframes; i++) {
        const struct frame *f = t->frames[i];
        const struct method_info *m = f->method;
        char line[16];
        buf_printf(b, "\t%s.%s(%s:%s)\n", m->cls->name, m->name,
                   m->cls->source_file ? m->cls->source_file : "<Unknown Source>",
                   text_line(w->opt->lineno ? f->line : LINE_UNKNOWN, line, sizeof line));
    }
    output_record_end(w->out);
}

/* CPU SAMPLES and CPU TIME (ms) share one layout: ranked by cost, count beside it. The
 * header shows the total in `unit`s of the cost (rounded). */
static void cpu_section(struct writer_ctx *w, const char *title, const struct rank_row *rows, int nrows, uint64_t total,
                        uint64_t unit)
{
    struct buf *b = output_buf(w->out);
    char when[64];
    buf_printf(b, "%s BEGIN (total = %llu) %s\n", title, (unsigned long long)((total + unit / 2) / unit),
               text_now(when, sizeof when));
    if (nrows > 0) buf_printf(b, "rank   self  accum   count trace method\n");
    uint64_t sum = 0;
    for (int i = 0; i < nrows; i++) {
        const struct trace *t = rows[i].trace;
        text_rank_row(b, i + 1, rows[i].cost, &sum, total, rows[i].count, t->serial);
        if (t->nframes > 0)
            buf_printf(b, " %s.%s\n", t->frames[0]->method->cls->name, t->frames[0]->method->name);
        else
            buf_printf(b, " <empty trace>\n");
        output_record_end(w->out);
    }
    buf_printf(b, "%s END\n", title);
    output_record_end(w->out);
}

static void text_cpu_samples(struct writer_ctx *w, const struct rank_row *rows, int nrows, uint64_t total)
{
    cpu_section(w, "CPU SAMPLES", rows, nrows, total, 1);
}

/* After the section, so that its rows stay methods and its total theirs. */
static void samples_apart(struct writer_ctx *w, const struct samples_apart *a)
{
    uint64_t n = a->unwalked + a->no_method, ms = (a->ns + 500000u) / 1000000u;
    buf_printf(output_buf(w->out),
               "SAMPLES NOT IN CPU TIME: %llu (%llu ms), %llu whose stack could not be walked, %llu in no method "
               "counted\n",
               (unsigned long long)n, (unsigned long long)ms, (unsigned long long)a->unwalked,
               (unsigned long long)a->no_method);
    output_record_end(w->out);
}

static void text_cpu_times(struct writer_ctx *w, const struct rank_row *rows, int nrows, uint64_t total_ns,
                           const struct samples_apart *apart)
{
    cpu_section(w, "CPU TIME (ms)", rows, nrows, total_ns, 1000000u);
    if (apart && apart->unwalked + apart->no_method) samples_apart(w, apart);
}

static void old_method(struct buf *b, const struct trace *t, uint32_t i, const char *none)
{
    if (i >= t->nframes) {
        buf_printf(b, "%s", none);
        return;
    }
    const struct method_info *m = t->frames[i]->method;
    buf_printf(b, "%s.%s%s", m->cls->name, m->name, m->signature);
}

static void text_cpu_old(struct writer_ctx *w, const struct rank_row *rows, int nrows)
{
    struct buf *b = output_buf(w->out);
    buf_printf(b, "count callee caller time\n");
    for (int i = 0; i < nrows; i++) {
        buf_printf(b, "%llu ", (unsigned long long)rows[i].count);
        old_method(b, rows[i].trace, 0, "<unknown callee>");
        buf_printf(b, " ");
        old_method(b, rows[i].trace, 1, "<unknown caller>");
        buf_printf(b, " %llu\n", (unsigned long long)rows[i].time_ms);
        output_record_end(w->out);
    }
}

static void text_sites(struct writer_ctx *w, struct site *const *rows, int nrows, const struct site_totals *tot)
{
    struct buf *b = output_buf(w->out);
    char when[64];
    if (w->opt->alloc_sample > 0)
        buf_printf(b,
                   "SITES BEGIN (ordered by live bytes, estimated from allocation samples every %ld bytes; a sample "
                   "of n bytes counts as %ld/n objects, at least 1, in alloc'ed and, while it lives, in live) %s\n",
                   w->opt->alloc_sample, w->opt->alloc_sample, text_now(when, sizeof when));
    else if (w->opt->callers == CALLERS_SAMPLED)
        buf_printf(b,
                   "SITES BEGIN (ordered by live bytes; alloc'ed exact per allocation site, rows marked * share "
                   "their site's exact count among its sampled traces; live estimated from allocation samples) %s\n",
                   text_now(when, sizeof when));
    else if (w->opt->live == LIVE_SAMPLED)
        buf_printf(
            b, "SITES BEGIN (ordered by live bytes, live estimated from 1 in %d objects past a site's first %d) %s\n",
            LIVE_SAMPLE_EVERY, LIVE_EXACT_FIRST, text_now(when, sizeof when));
    else
        buf_printf(b, "SITES BEGIN (ordered by live bytes) %s\n", text_now(when, sizeof when));
    buf_printf(b, "          percent          live          alloc'ed  stack class\n");
    buf_printf(b, " rank   self  accum     bytes objs     bytes  objs trace name\n");
    uint64_t sum = 0;
    for (int i = 0; i < nrows; i++) {
        const struct site *s = rows[i];
        sum += s->live_bytes;
        double self = tot->live_bytes ? 100.0 * (double)s->live_bytes / (double)tot->live_bytes : 0;
        double accum = tot->live_bytes ? 100.0 * (double)sum / (double)tot->live_bytes : 0;
        buf_printf(b, "%5d %5.2f%% %5.2f%% %9llu %4llu %9llu %5llu %5u %s%s\n", i + 1, self, accum,
                   (unsigned long long)s->live_bytes, (unsigned long long)s->live_objs,
                   (unsigned long long)s->shown_bytes, (unsigned long long)s->shown_objs, s->trace->serial,
                   s->cls->name, atomic_load_explicit(&s->apportioned, memory_order_relaxed) ? " *" : "");
        output_record_end(w->out);
    }
    buf_printf(b, "SITES END\n");
    output_record_end(w->out);
}

const struct writer text_writer = {
    .gc = text_tl_gc,
    .heap_size = text_tl_heap_size,
    .allocs = text_tl_allocs,
    .leak_suspects = text_tl_leak_suspects,
    .file_header = text_file_header,
    .thread_start = text_thread_start,
    .thread_end = text_thread_end,
    .trace = text_trace,
    .cpu_samples = text_cpu_samples,
    .cpu_times = text_cpu_times,
    .cpu_old = text_cpu_old,
    .sites = text_sites,
    .heap_dump = &heap_dump_text,
    .monitor_wait = monitor_text_wait,
    .monitor_waited = monitor_text_waited,
    .monitors = monitor_text_sections,
};
