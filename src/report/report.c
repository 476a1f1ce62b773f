/* SPDX-License-Identifier: Apache-2.0 */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_tracker.h"
#include "sources/bci/tracker.h"
#include "sources/heapdump/heap_walk.h"
#include "sources/host.h"
#include "sources/heapdump/jdk_dumper.h"
#include "sources/cpu/call_counts.h"
#include "sources/cpu/method_times.h"
#include "sources/jvm/run_info_collect.h"
#include "sources/monitor/monitor_events.h"
#include "tables/heap_records.h"
#include "tables/monitors.h"
#include "tables/sites.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rank.h"
#include "report/report_timeline.h"
#include "report/report_views.h"
#include "writers/heap_dump.h"

/* ---- opening and closing ---- */

/* The session's output: its file (path: file= with its window's time), nothing
 * (viewonly=y), or the net= socket (at load only). */
static int open_output(struct report *r, const struct options *o, const char *path, bool reopen, char *err,
                       size_t errlen)
{
    if (o->viewonly) {
        if (reopen)
            output_reopen_none(&r->out);
        else
            output_open_none(&r->out);
        return 0;
    }
    if (o->net_host) return output_open_socket(&r->out, o->net_host, o->net_port, err, errlen);
    char *chosen = NULL;
    int rc = reopen ? output_reopen_file(&r->out, path, o->format == 'a', o->force, &chosen, err, errlen)
                    : output_open_file(&r->out, path, o->format == 'a', o->force, &chosen, err, errlen);
    if (rc != 0) return -1;
    if (chosen) {
        log_plain("HPROF: %s exists and force=n; writing the profile to %s", path, chosen);
        free(chosen);
    }
    return 0;
}

/* The text file's header with the run header after its first line; in binary the
 * RUN HEADER record when timeline= is on (output lock held). */
static void write_run_header(struct report *r)
{
    bool text = r->writer == &text_writer;
    if (!text && !r->tl) return; /* a binary file without timeline= is as it always was */
    struct run_info *ri = malloc(sizeof *ri);
    if (!ri) return;
    run_info_collect(r->h, r->opt, ri);
    if (text) {
        r->wctx.run = ri;
        r->writer->file_header(&r->wctx);
        r->wctx.run = NULL;
    } else if (r->writer->run_header) {
        r->writer->run_header(&r->wctx, ri);
    }
    free(ri);
}

void report_start(struct report *r, JNIEnv *jni)
{
    if (r->opt->timeline != TIMELINE_OFF) r->tl = report_timeline_open();
    output_lock(&r->out);
    write_run_header(r);
    output_unlock(&r->out);
}

/* What a session's options make of the report: writer, rows, the views' names. */
static void take_options(struct report *r, const struct options *o, const char *path)
{
    r->opt = o;
    r->file = path;
    r->top = o->top;
    r->dumps = r->view_seq = 0;
    r->writer = o->format == 'b' ? &binary_writer : &text_writer;
    r->wctx.opt = o;
    r->window_ns = (int64_t)clock_wall_us() * 1000;
}

int report_open(struct report *r, struct host *h, const struct options *o, const char *path, char *err, size_t errlen)
{
    r->h = h;
    /* Error-checking: a thread that meets an OutOfMemoryError inside a dump (the JVM's
     * dumper, a JNI allocation) and is asked for the dump at exit learns it holds it. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&r->dump_lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (open_output(r, o, path, false, err, errlen) != 0) return -1;
    take_options(r, o, path);
    r->wctx.out = &r->out;
    r->wctx.strings = &h->t.strings;
    r->wctx.empty_trace = &h->t.traces.empty;
    /* The text header waits for VMInit: the run header goes after its first line. */
    if (r->writer == &text_writer) return 0;
    output_lock(&r->out);
    r->writer->file_header(&r->wctx);
    output_unlock(&r->out);
    return 0;
}

/* A new file knows none of the traces, frames, classes and names written before. */
static void forget_written(struct report *r)
{
    struct tables *t = &r->h->t;
    traces_forget_written(&t->traces);
    uint32_t n = classes_count(&t->classes);
    for (uint32_t i = 0; i < n; i++) classes_at(&t->classes, i)->load_written = false;
    strings_new_output(&t->strings);
}

int report_begin_session(struct report *r, const struct options *o, const char *path, char *err, size_t errlen)
{
    pthread_mutex_lock(&r->dump_lock);
    output_lock(&r->out);
    int rc = open_output(r, o, path, true, err, errlen);
    if (rc == 0) {
        take_options(r, o, path);
        forget_written(r);
        if (r->writer != &text_writer) r->writer->file_header(&r->wctx);
        write_run_header(r);
        output_flush(&r->out); /* the new file shows its start at once */
        r->idle = false;
    }
    output_unlock(&r->out);
    pthread_mutex_unlock(&r->dump_lock);
    return rc;
}

void report_end_session(struct report *r)
{
    pthread_mutex_lock(&r->dump_lock);
    output_lock(&r->out);
    output_end_file(&r->out);
    r->idle = true;
    output_unlock(&r->out);
    pthread_mutex_unlock(&r->dump_lock);
}

static bool report_idle(struct report *r)
{
    output_lock(&r->out);
    bool idle = r->idle;
    output_unlock(&r->out);
    return idle;
}

int report_socket_fd(struct report *r) { return output_socket_fd(&r->out); }

void report_close(struct report *r) { output_close(&r->out); }

void report_record(struct report *r, const struct live_record *rec)
{
    output_lock(&r->out);
    const struct writer *w = r->writer;
    if (r->idle) {
        output_unlock(&r->out);
        return;
    }
    switch (rec->kind) {
    case LIVE_THREAD_START: w->thread_start(&r->wctx, rec->thread); break;
    case LIVE_THREAD_END: w->thread_end(&r->wctx, rec->thread); break;
    case LIVE_MONITOR_WAIT:
        if (w->monitor_wait) w->monitor_wait(&r->wctx, rec->signature, rec->ms, rec->thread_serial);
        break;
    case LIVE_MONITOR_WAITED:
        if (w->monitor_waited) w->monitor_waited(&r->wctx, rec->signature, rec->ms, rec->thread_serial);
        break;
    }
    output_unlock(&r->out);
}

/* ---- traces ---- */

/* Every trace not yet written, in serial order (output lock held). */
static void write_unwritten_traces(struct report *r)
{
    struct trace_table *tt = &r->h->t.traces;
    uint32_t n = traces_count(tt);
    for (uint32_t i = 0; i < n; i++) {
        struct trace *t = traces_at(tt, i);
        if (t) r->writer->trace(&r->wctx, t); /* NULL: forgotten (traces_forget_idle) */
    }
}

/* What a section that names every trace writes first, as the original did: the empty
 * trace (which roots and threads without Java frames name), then every unwritten one. */
static void write_section_preamble(struct report *r)
{
    r->writer->trace(&r->wctx, &r->h->t.traces.empty);
    write_unwritten_traces(r);
}

void report_traces(struct report *r)
{
    output_lock(&r->out);
    write_unwritten_traces(r);
    output_unlock(&r->out);
}

/* ---- CPU ---- */

/* Highest cost first; equal costs in trace order, so output is stable. */
static int by_cost_desc(const void *x, const void *y)
{
    const struct rank_row *a = x, *b = y;
    if (a->cost != b->cost) return a->cost < b->cost ? 1 : -1;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return (a->trace->serial > b->trace->serial) - (a->trace->serial < b->trace->serial);
}

static uint64_t cost_of(const void *row) { return ((const struct rank_row *)row)->cost; }

static uint64_t count_of(const void *row) { return ((const struct rank_row *)row)->count; }

/* What one trace contributes to a ranked section (and zeroes it when `take`). */
typedef void (*row_fn)(struct trace *t, bool take, struct rank_row *row);

static void samples_row(struct trace *t, bool take, struct rank_row *row)
{
    row->count = take ? atomic_exchange(&t->cpu_samples, 0) : atomic_load(&t->cpu_samples);
    row->cost = row->count;
}

/* Ranked in nanoseconds, so that many short calls count for what they took. */
static void times_row(struct trace *t, bool take, struct rank_row *row)
{
    row->count = take ? atomic_exchange(&t->calls, 0) : atomic_load(&t->calls);
    row->cost = take ? atomic_exchange(&t->cost_ns, 0) : atomic_load(&t->cost_ns);
}

/* Calls rank the old prof format, as in the original's output. */
static void old_row(struct trace *t, bool take, struct rank_row *row)
{
    times_row(t, take, row);
    row->time_ms = row->cost / 1000000u;
    row->cost = row->count;
}

/*
 * Ranks every trace with something to report (taking the counts, so that each dump
 * covers the time since the previous one, as in the original). Returns the rows, those
 * the cutoff keeps first; *total adds up every row's cost, kept or not. by_calls (CPU
 * TIME): a row whose calls reach the cutoff's share of all calls is kept too, whatever
 * its time, so that a method called often and timed little (a trivial one's time is its
 * caller's, a gprof trace never sampled has none) still shows its count.
 */
static struct rank_row *rank_traces(struct trace_table *tt, row_fn fn, double cutoff, bool take, bool by_calls,
                                    int *nrows, uint64_t *total, int *nall)
{
    /* Rows for the live traces only: a rolling profile forgets many, and an array that
     * grew with every trace ever made, each window, would grow malloc's heap with it. */
    uint32_t n = traces_count(tt), live = n - (uint32_t)traces_forgotten(tt);
    struct rank_row *rows = calloc(live ? live : 1, sizeof *rows);
    *nrows = 0;
    *total = 0;
    if (!rows) return NULL;
    int k = 0;
    uint64_t calls = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct trace *t = traces_at(tt, i);
        if (!t || k == (int)live) continue; /* forgotten (no more live ones than counted) */
        rows[k].trace = t;
        fn(t, take, &rows[k]);
        if (!rows[k].count && !rows[k].cost) continue;
        *total += rows[k].cost;
        calls += rows[k].count;
        k++;
    }
    if (nall) *nall = k;
    const struct rank_weight either[2] = {{cost_of, *total}, {count_of, calls}};
    *nrows = by_calls ? (int)rank_rows_either(rows, (size_t)k, sizeof *rows, by_cost_desc, either, cutoff)
                      : (int)rank_rows(rows, (size_t)k, sizeof *rows, by_cost_desc, cost_of, *total, cutoff, -1);
    return rows;
}

/* The CPU SAMPLES section with the traces it names, then its views: those after the
 * output's lock is let go, so that no thread of the program waits on their files. */
static void write_cpu_samples(struct report *r, double cutoff, bool take)
{
    int nrows, nall;
    uint64_t total;
    output_lock(&r->out);
    struct rank_row *rows = rank_traces(&r->h->t.traces, samples_row, cutoff, take, false, &nrows, &total, &nall);
    if (!rows) {
        output_unlock(&r->out);
        log_error("out of memory writing CPU samples");
        return;
    }
    nrows = report_top(r, nrows);
    for (int i = 0; i < nrows; i++) r->writer->trace(&r->wctx, rows[i].trace);
    r->writer->cpu_samples(&r->wctx, rows, nrows, total);
    output_unlock(&r->out);
    views_cpu(r, rows, nall, false);
    free(rows);
}

/* The socket's request, under the dump lock (report_begin_command) as a dump is: its
 * views use the rows' traces after the output's lock is let go. */
void report_cpu_samples(struct report *r, double cutoff) { write_cpu_samples(r, cutoff, false); }

static void section_cpu_samples(struct report *r, JNIEnv *jni) { write_cpu_samples(r, r->opt->cutoff, true); }

static void section_cpu_times(struct report *r, JNIEnv *jni)
{
    tracker_collect(r->h, jni);
    method_times_flush(r->h);
    int nrows, nall;
    uint64_t total;
    struct rank_row *rows = rank_traces(&r->h->t.traces, times_row, r->opt->cutoff, true, true, &nrows, &total, &nall);
    if (!rows || !r->writer->cpu_times) {
        free(rows);
        return;
    }
    nrows = report_top(r, nrows);
    uint64_t apart[APART_KINDS];
    struct samples_apart a;
    call_counts_take_apart(r->h, apart, &a.ns);
    a.unwalked = apart[APART_UNWALKED];
    a.no_method = apart[APART_NO_METHOD];
    output_lock(&r->out);
    for (int i = 0; i < nrows; i++) r->writer->trace(&r->wctx, rows[i].trace);
    r->writer->cpu_times(&r->wctx, rows, nrows, total, &a);
    output_unlock(&r->out);
    views_cpu(r, rows, nall, true);
    free(rows);
}

static void section_cpu_old(struct report *r, JNIEnv *jni)
{
    method_times_flush(r->h);
    int nrows;
    uint64_t total;
    struct rank_row *rows = rank_traces(&r->h->t.traces, old_row, 0.0, true, false, &nrows, &total, NULL);
    if (!rows || !r->writer->cpu_old) {
        free(rows);
        return;
    }
    output_lock(&r->out);
    r->writer->cpu_old(&r->wctx, rows, nrows);
    output_unlock(&r->out);
    free(rows);
}

/* ---- monitors ---- */

static void section_monitors(struct report *r, JNIEnv *jni)
{
    struct monitor_snapshot snap;
    if (!monitor_events_snapshot(r->h, jni, &snap)) return;
    if (r->writer->monitors) {
        int nc = snap.contended.nrows, nw = snap.waits.nrows;
        snap.contended.nrows = report_top(r, nc);
        snap.waits.nrows = report_top(r, nw);
        output_lock(&r->out);
        write_section_preamble(r);
        r->writer->monitors(&r->wctx, &snap);
        output_unlock(&r->out);
        snap.contended.nrows = nc;
        snap.waits.nrows = nw;
    }
    views_monitors(r, &snap.contended);
    monitor_snapshot_free(&snap);
}

/* ---- heap dump ---- */

static void sink_open(struct heap_sink *k)
{
    struct report *r = k->ctx;
    output_lock(&r->out);
    output_pipe_begin(&r->out);
    write_section_preamble(r);
}

static void sink_close(struct heap_sink *k)
{
    struct report *r = k->ctx;
    output_pipe_end(&r->out);
    output_flush(&r->out);
    output_unlock(&r->out);
}

/* The HEAP DUMP section: by the JDK's own dumper where it can serve, else by the JVMTI
 * walk. Also the socket's DUMP HEAP, whatever heap= asked for. */
void report_heap_dump(struct report *r, JNIEnv *jni)
{
    struct hd_session s = {.w = &r->wctx};
    struct heap_sink sink = {r->writer->heap_dump, &s, sink_open, sink_close, r};
    if (!jdk_dumper_dump(r->h, jni, &sink)) heap_walk_dump(r->h, jni, &sink);
}

/* ---- sites ---- */

static int by_live_bytes(const void *x, const void *y)
{
    const struct site *a = *(struct site *const *)x, *b = *(struct site *const *)y;
    if (a->live_bytes != b->live_bytes) return a->live_bytes < b->live_bytes ? 1 : -1;
    uint64_t aa = a->shown_bytes, ba = b->shown_bytes;
    if (aa != ba) return aa < ba ? 1 : -1;
    if (a->trace->serial != b->trace->serial) return a->trace->serial < b->trace->serial ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* What the first n sites add up to; each is put in rows[] (room for n) when rows is not
 * NULL. n is the caller's count: allocating threads add sites meanwhile. */
static struct site_totals sum_sites(struct site_table *st, struct site **rows, uint32_t n, double cutoff)
{
    struct site_totals tot = {0, 0, 0, 0, cutoff};
    for (uint32_t i = 0; i < n; i++) {
        struct site *s = sites_by_id(st, i + 1);
        if (rows) rows[i] = s;
        tot.live_bytes += s->live_bytes;
        tot.live_objs += s->live_objs;
        tot.alloc_bytes += s->shown_bytes;
        tot.alloc_objs += s->shown_objs;
    }
    return tot;
}

static int by_serial(const void *x, const void *y)
{
    const struct trace *a = *(struct trace *const *)x, *b = *(struct trace *const *)y;
    return (a->serial > b->serial) - (a->serial < b->serial);
}

/*
 * The traces the kept rows name, in serial order, after the empty trace: only those. At
 * depth=64 a program like Ant has some 100,000 traces, which written whole made a text
 * profile of 700 MB for a few hundred rows. (Without memory: every unwritten one.)
 */
static void write_row_traces(struct report *r, struct site *const *rows, int keep)
{
    struct trace **named = malloc((size_t)(keep ? keep : 1) * sizeof *named);
    if (!named) {
        write_section_preamble(r);
        return;
    }
    for (int i = 0; i < keep; i++) named[i] = rows[i]->trace;
    qsort(named, (size_t)keep, sizeof *named, by_serial);
    r->writer->trace(&r->wctx, &r->h->t.traces.empty);
    for (int i = 0; i < keep; i++) r->writer->trace(&r->wctx, named[i]);
    free(named);
}

/* Sites ranked (by live bytes), the ones to write first: each whose live or allocated
 * bytes reach the cutoff, as the views keep them (report_views.c). Cut by live bytes
 * alone, a window whose objects all died (a sampled session on a server: few samples,
 * none live at the dump) listed no site at all. The rest follow, in rank order; how
 * many are kept is returned (every row stays, for the views). */
static int keep_sites(struct site **rows, uint32_t n, const struct site_totals *tot)
{
    struct site **cut = malloc((n ? n : 1) * sizeof *cut);
    if (!cut) return (int)n;
    uint32_t kept = 0, ncut = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool under = (double)rows[i]->shown_bytes < tot->cutoff * (double)tot->alloc_bytes &&
            (double)rows[i]->live_bytes < tot->cutoff * (double)tot->live_bytes;
        if (under)
            cut[ncut++] = rows[i];
        else
            rows[kept++] = rows[i];
    }
    memcpy(rows + kept, cut, ncut * sizeof *cut);
    free(cut);
    return (int)kept;
}

/* heap=sites: the live count (after a GC), then the sites ranked by live bytes (as the original). */
bool report_sites(struct report *r, JNIEnv *jni, double cutoff)
{
    struct site_table *st = alloc_tracker_sites(r->h);
    if (!st || !r->writer->sites) return false;
    alloc_tracker_count_live(r->h, jni);
    sites_show_counts(st, r->take_sites);
    uint32_t n = sites_count(st);
    struct site **rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) return true;
    struct site_totals tot = sum_sites(st, rows, n, cutoff);
    qsort(rows, n, sizeof *rows, by_live_bytes);
    int keep = report_top(r, keep_sites(rows, n, &tot));
    output_lock(&r->out);
    write_row_traces(r, rows, keep);
    r->writer->sites(&r->wctx, rows, keep, &tot);
    output_unlock(&r->out);
    views_sites(r, rows, (int)n);
    free(rows);
    return true;
}

bool report_heap_summary(struct report *r, JNIEnv *jni)
{
    struct site_table *st = alloc_tracker_sites(r->h);
    if (!st || !r->writer->heap_summary) return false;
    alloc_tracker_count_live(r->h, jni);
    sites_show_counts(st, false);
    struct site_totals tot = sum_sites(st, NULL, sites_count(st), 0);
    output_lock(&r->out);
    r->writer->heap_summary(&r->wctx, &tot);
    output_unlock(&r->out);
    return true;
}

static void section_sites(struct report *r, JNIEnv *jni) { report_sites(r, jni, r->opt->cutoff); }

/* ---- the dump ---- */

static bool wants_monitors(const struct options *o) { return o->monitor; }
static bool wants_heap_dump(const struct options *o) { return (o->heap & HEAP_DUMP) != 0; }
static bool wants_sites(const struct options *o) { return (o->heap & HEAP_SITES) != 0; }
static bool wants_cpu_samples(const struct options *o) { return o->cpu == CPU_SAMPLES; }
static bool wants_cpu_times(const struct options *o) { return o->cpu == CPU_TIMES; }
static bool wants_cpu_old(const struct options *o) { return o->cpu == CPU_OLD; }

/*
 * The sections of a dump, in the order the original agent wrote them (monitors, heap
 * dump, sites, CPU). Each takes the output lock itself, for as long as it needs.
 */
static const struct section {
    const char *said; /* for the verbose "Dumping" line */
    bool (*wanted)(const struct options *o);
    void (*write)(struct report *r, JNIEnv *jni);
} SECTIONS[] = {
    {" contended monitor usage ...", wants_monitors, section_monitors},
    {" Java heap ...", wants_heap_dump, report_heap_dump},
    {" allocation sites ...", wants_sites, section_sites},
    {" CPU usage by sampling running threads ...", wants_cpu_samples, section_cpu_samples},
    {" CPU usage by timing methods ...", wants_cpu_times, section_cpu_times},
    {" CPU usage in old prof format ...", wants_cpu_old, section_cpu_old},
};

static void flush(struct report *r)
{
    output_lock(&r->out);
    output_flush(&r->out);
    output_unlock(&r->out);
}

bool report_dump(struct report *r, JNIEnv *jni, enum dump_reason why)
{
    /* A request that comes while a dump is being written is dropped, as before;
     * the dump at exit waits for it instead, so it is never lost. */
    if (why != DUMP_ON_SIGNAL) {
        if (pthread_mutex_lock(&r->dump_lock) != 0) return false; /* this thread is in one */
    } else if (pthread_mutex_trylock(&r->dump_lock) != 0) {
        return false;
    }
    if (report_idle(r)) { /* between sessions: nothing gathered, no file */
        pthread_mutex_unlock(&r->dump_lock);
        return false;
    }
    r->view_seq = why == DUMP_AT_EXIT || why == DUMP_WINDOW_END ? 0 : ++r->dumps;
    r->take_sites = why == DUMP_WINDOW_END;
    /* The verbose line names each section written; it is printed whole at the end
     * so that an error reported meanwhile stays on a line of its own. */
    char said[512] = "Dumping";
    const struct options *o = r->opt;
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; i++) {
        if (!SECTIONS[i].wanted(o)) continue;
        strncat(said, SECTIONS[i].said, sizeof said - strlen(said) - 1);
        SECTIONS[i].write(r, jni);
    }
    if (why == DUMP_AT_EXIT) report_timeline_end(r, jni);
    r->take_sites = false;
    flush(r);
    pthread_mutex_unlock(&r->dump_lock);
    /* Said after the lock is let go: whoever waits for this line to ask for the next
     * dump (a script, Ctrl-\ by hand) must not find this one still holding it. */
    if (o->verbose && why != DUMP_WINDOW_END) log_plain("%s done.", said); /* not every window's, on its stderr */
    return true;
}

void report_begin_command(struct report *r, bool section)
{
    if (!section) return;
    pthread_mutex_lock(&r->dump_lock);
    r->view_seq = ++r->dumps;
}

void report_end_command(struct report *r, bool section)
{
    flush(r); /* each answer goes out at once */
    if (section) pthread_mutex_unlock(&r->dump_lock);
}

uint32_t report_forget_idle_traces(struct report *r, uint32_t idle)
{
    /* Every walk of the traces here is under the dump lock: the dumps' sections, the
     * socket's commands (report_begin_command) and a new file's start. */
    pthread_mutex_lock(&r->dump_lock);
    uint32_t n = traces_forget_idle(&r->h->t.traces, idle);
    pthread_mutex_unlock(&r->dump_lock);
    return n;
}

void report_reset_window(struct report *r, JNIEnv *jni)
{
    struct host *h = r->h;
    pthread_mutex_lock(&r->dump_lock);
    tracker_collect(h, jni);
    method_times_flush(h);
    traces_clear_counts(&h->t.traces);
    struct site_table *st = alloc_tracker_sites(h);
    if (st && alloc_tracker_counted(h)) alloc_tracker_collect(h, jni);
    if (st) sites_show_counts(st, true);
    struct monitor_snapshot snap;
    if (monitor_events_snapshot(h, jni, &snap)) monitor_snapshot_free(&snap);
    r->window_ns = (int64_t)clock_wall_us() * 1000;
    pthread_mutex_unlock(&r->dump_lock);
}
