#include "agent/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "sources/alloc_tracker.h"
#include "sources/method_times.h"
#include "tables/sites.h"
#include "sources/heap_walker.h"
#include "sources/jdk_dumper.h"
#include "sources/monitor_events.h"
#include "util/log.h"
#include "writers/binary_records.h"

/* Highest cost first; equal costs in trace order, so output is stable. */
static int by_cost_desc(const void *x, const void *y)
{
    const struct rank_row *a = x, *b = y;
    if (a->cost != b->cost) return a->cost < b->cost ? 1 : -1;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return (a->trace->serial > b->trace->serial) - (a->trace->serial < b->trace->serial);
}

/* What one trace contributes to a ranked section (and zeroes it when `take`). */
typedef void (*row_fn)(struct trace *t, bool take, struct rank_row *row);

static void samples_row(struct trace *t, bool take, struct rank_row *row)
{
    row->count = take ? atomic_exchange(&t->cpu_samples, 0) : atomic_load(&t->cpu_samples);
    row->cost = row->count;
}

static void times_row(struct trace *t, bool take, struct rank_row *row)
{
    row->count = take ? atomic_exchange(&t->calls, 0) : atomic_load(&t->calls);
    uint64_t ns = take ? atomic_exchange(&t->cost_ns, 0) : atomic_load(&t->cost_ns);
    row->cost = ns / 1000000u;
}

/* Calls rank the old prof format, as in the original's output. */
static void old_row(struct trace *t, bool take, struct rank_row *row)
{
    times_row(t, take, row);
    row->time_ms = row->cost;
    row->cost = row->count;
}

/*
 * Ranks every trace with something to report (taking the counts, so that each dump
 * covers the time since the previous one, as in the original). Returns the rows the
 * cutoff keeps; *total adds up every row, kept or not.
 */
static struct rank_row *rank(struct agent *a, row_fn fn, double cutoff, bool take, int *nrows, uint64_t *total)
{
    uint32_t n = traces_count(&a->traces);
    struct rank_row *rows = calloc(n ? n : 1, sizeof *rows);
    *nrows = 0;
    *total = 0;
    if (!rows) return NULL;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct trace *t = traces_at(&a->traces, i);
        rows[k].trace = t;
        fn(t, take, &rows[k]);
        if (!rows[k].count && !rows[k].cost) continue;
        *total += rows[k].cost;
        k++;
    }
    qsort(rows, (size_t)k, sizeof *rows, by_cost_desc);
    int keep = 0;
    while (keep < k && *total && (double)rows[keep].cost / (double)*total >= cutoff) keep++;
    *nrows = keep;
    return rows;
}

/* The CPU SAMPLES section with the traces it names (output lock held). */
static void write_cpu_samples(struct agent *a, double cutoff, bool take)
{
    int nrows;
    uint64_t total;
    struct rank_row *rows = rank(a, samples_row, cutoff, take, &nrows, &total);
    if (!rows) {
        log_error("out of memory writing CPU samples");
        return;
    }
    for (int i = 0; i < nrows; i++) a->writer->trace(&a->wctx, rows[i].trace);
    a->writer->cpu_samples(&a->wctx, rows, nrows, total);
    free(rows);
}

void dump_cpu_samples(struct agent *a, double cutoff)
{
    output_lock(&a->out);
    write_cpu_samples(a, cutoff, false);
    output_flush(&a->out);
    output_unlock(&a->out);
}

void dump_unwritten_traces(struct agent *a)
{
    uint32_t n = traces_count(&a->traces);
    for (uint32_t i = 0; i < n; i++) a->writer->trace(&a->wctx, traces_at(&a->traces, i));
}

/* The HEAP DUMP section: by the JDK's own dumper where it can serve, else by the JVMTI
 * walk. Also the socket's DUMP HEAP, whatever heap= asked for. */
void dump_heap_section(struct agent *a, JNIEnv *jni)
{
    if (!jdk_dumper_dump(a, jni)) heap_walker_dump(a, jni);
}

static bool wants_monitors(const struct options *o) { return o->monitor; }

static void section_cpu_samples(struct agent *a, JNIEnv *jni)
{
    output_lock(&a->out);
    write_cpu_samples(a, a->opt.cutoff, true);
    output_unlock(&a->out);
}

static bool wants_cpu_samples(const struct options *o) { return o->cpu == CPU_SAMPLES; }

static void section_cpu_times(struct agent *a, JNIEnv *jni)
{
    method_times_flush(a);
    int nrows;
    uint64_t total;
    struct rank_row *rows = rank(a, times_row, a->opt.cutoff, true, &nrows, &total);
    if (!rows || !a->writer->cpu_times) {
        free(rows);
        return;
    }
    output_lock(&a->out);
    for (int i = 0; i < nrows; i++) a->writer->trace(&a->wctx, rows[i].trace);
    a->writer->cpu_times(&a->wctx, rows, nrows, total);
    output_unlock(&a->out);
    free(rows);
}

static bool wants_cpu_times(const struct options *o) { return o->cpu == CPU_TIMES; }

static void section_cpu_old(struct agent *a, JNIEnv *jni)
{
    method_times_flush(a);
    int nrows;
    uint64_t total;
    struct rank_row *rows = rank(a, old_row, 0.0, true, &nrows, &total);
    if (!rows || !a->writer->cpu_old) {
        free(rows);
        return;
    }
    output_lock(&a->out);
    a->writer->cpu_old(&a->wctx, rows, nrows);
    output_unlock(&a->out);
    free(rows);
}

static bool wants_cpu_old(const struct options *o) { return o->cpu == CPU_OLD; }

static int by_live_bytes(const void *x, const void *y)
{
    const struct site *a = *(struct site *const *)x, *b = *(struct site *const *)y;
    if (a->live_bytes != b->live_bytes) return a->live_bytes < b->live_bytes ? 1 : -1;
    uint64_t aa = atomic_load(&a->alloc_bytes), ba = atomic_load(&b->alloc_bytes);
    if (aa != ba) return aa < ba ? 1 : -1;
    if (a->trace->serial != b->trace->serial) return a->trace->serial < b->trace->serial ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* What every site adds up to; each site is put in rows[] when rows is not NULL. */
static struct site_totals sum_sites(struct site_table *st, struct site **rows, double cutoff)
{
    struct site_totals tot = {0, 0, 0, 0, cutoff};
    uint32_t n = sites_count(st);
    for (uint32_t i = 0; i < n; i++) {
        struct site *s = sites_by_id(st, i + 1);
        if (rows) rows[i] = s;
        tot.live_bytes += s->live_bytes;
        tot.live_objs += s->live_objs;
        tot.alloc_bytes += atomic_load(&s->alloc_bytes);
        tot.alloc_objs += atomic_load(&s->alloc_objs);
    }
    return tot;
}

/* heap=sites: the live count (after a GC), then the sites ranked by live bytes (as the original). */
static bool write_sites(struct agent *a, JNIEnv *jni, double cutoff)
{
    struct site_table *st = alloc_tracker_sites(a);
    if (!st || !a->writer->sites) return false;
    alloc_tracker_count_live(a, jni);
    uint32_t n = sites_count(st);
    struct site **rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) return true;
    struct site_totals tot = sum_sites(st, rows, cutoff);
    qsort(rows, n, sizeof *rows, by_live_bytes);
    int keep = 0;
    while (keep < (int)n) {
        double share = tot.live_bytes ? (double)rows[keep]->live_bytes / (double)tot.live_bytes : 0;
        if (share < cutoff) break;
        keep++;
    }
    output_lock(&a->out);
    /* As the original: every trace not yet written, the empty one first, in serial order. */
    a->writer->trace(&a->wctx, &a->traces.empty);
    dump_unwritten_traces(a);
    a->writer->sites(&a->wctx, rows, keep, &tot);
    output_unlock(&a->out);
    free(rows);
    return true;
}

static void section_sites(struct agent *a, JNIEnv *jni) { write_sites(a, jni, a->opt.cutoff); }

bool dump_sites(struct agent *a, JNIEnv *jni, unsigned flags, double cutoff) { return write_sites(a, jni, cutoff); }

bool dump_heap_summary(struct agent *a, JNIEnv *jni)
{
    struct site_table *st = alloc_tracker_sites(a);
    if (!st || a->opt.format != 'b') return false;
    alloc_tracker_count_live(a, jni);
    struct site_totals tot = sum_sites(st, NULL, 0);
    output_lock(&a->out);
    size_t at = bin_record_begin(&a->wctx, TAG_HEAP_SUMMARY);
    struct buf *b = output_buf(&a->out);
    buf_u4(b, (uint32_t)tot.live_bytes);
    buf_u4(b, (uint32_t)tot.live_objs);
    buf_u8(b, tot.alloc_bytes);
    buf_u8(b, tot.alloc_objs);
    bin_record_end(&a->wctx, at);
    output_unlock(&a->out);
    return true;
}

static bool wants_sites(const struct options *o) { return (o->heap & HEAP_SITES) != 0; }

static bool wants_heap_dump(const struct options *o) { return (o->heap & HEAP_DUMP) != 0; }

/*
 * The sections of a dump, in the order the original agent wrote them (monitors, heap
 * dump, sites, CPU). Each takes the output lock itself, for as long as it needs.
 */
static const struct section {
    const char *said;                           /* for the verbose "Dumping" line */
    bool (*wanted)(const struct options *o);
    void (*write)(struct agent *a, JNIEnv *jni);
} SECTIONS[] = {
    {" contended monitor usage ...", wants_monitors, monitor_events_dump},
    {" Java heap ...", wants_heap_dump, dump_heap_section},
    {" allocation sites ...", wants_sites, section_sites},
    {" CPU usage by sampling running threads ...", wants_cpu_samples, section_cpu_samples},
    {" CPU usage by timing methods ...", wants_cpu_times, section_cpu_times},
    {" CPU usage in old prof format ...", wants_cpu_old, section_cpu_old},
};

void dump_all(struct agent *a, JNIEnv *jni, enum dump_reason why)
{
    /* A request that comes while a dump is being written is dropped, as before;
     * the dump at exit waits for it instead, so it is never lost. */
    if (why == DUMP_AT_EXIT) pthread_mutex_lock(&a->dump_lock);
    else if (pthread_mutex_trylock(&a->dump_lock) != 0) return;
    /* The verbose line names each section written; it is printed whole at the end
     * so that an error reported meanwhile stays on a line of its own. */
    char said[512] = "Dumping";
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; i++) {
        if (!SECTIONS[i].wanted(&a->opt)) continue;
        strncat(said, SECTIONS[i].said, sizeof said - strlen(said) - 1);
        SECTIONS[i].write(a, jni);
    }
    output_lock(&a->out);
    output_flush(&a->out);
    output_unlock(&a->out);
    if (a->opt.verbose) log_plain("%s done.", said);
    a->dumps++;
    pthread_mutex_unlock(&a->dump_lock);
}
