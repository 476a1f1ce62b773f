#include "agent/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "util/log.h"

/* Most samples first; equal counts in trace order, so output is stable. */
static int by_count_desc(const void *x, const void *y)
{
    const struct rank_row *a = x, *b = y;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return (a->trace->serial > b->trace->serial) - (a->trace->serial < b->trace->serial);
}

/*
 * Takes every trace's CPU samples (leaving zero behind, so each section counts what
 * happened since the previous dump) and ranks them. Returns the rows kept by the
 * cutoff; *total counts all samples, kept or not.
 */
static struct rank_row *rank_cpu_samples(struct agent *a, double cutoff, bool take, int *nrows, uint64_t *total)
{
    uint32_t n = traces_count(&a->traces);
    struct rank_row *rows = calloc(n ? n : 1, sizeof *rows);
    *nrows = 0;
    *total = 0;
    if (!rows) return NULL;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct trace *t = traces_at(&a->traces, i);
        uint64_t c = take ? atomic_exchange(&t->cpu_samples, 0) : atomic_load(&t->cpu_samples);
        if (!c) continue;
        rows[k].trace = t;
        rows[k].count = c;
        *total += c;
        k++;
    }
    qsort(rows, (size_t)k, sizeof *rows, by_count_desc);
    int keep = 0;
    while (keep < k && (double)rows[keep].count / (double)*total >= cutoff) keep++;
    *nrows = keep;
    return rows;
}

/* The CPU SAMPLES section with the traces it names (output lock held). */
static void write_cpu_samples(struct agent *a, double cutoff, bool take)
{
    int nrows;
    uint64_t total;
    struct rank_row *rows = rank_cpu_samples(a, cutoff, take, &nrows, &total);
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

static void section_cpu_samples(struct agent *a, JNIEnv *jni)
{
    output_lock(&a->out);
    write_cpu_samples(a, a->opt.cutoff, true);
    output_unlock(&a->out);
}

static bool wants_cpu_samples(const struct options *o) { return o->cpu == CPU_SAMPLES; }

/*
 * The sections of a dump, in the order the original agent wrote them (monitors, heap
 * dump, sites, CPU). Each takes the output lock itself, for as long as it needs.
 */
static const struct section {
    const char *said;                           /* for the verbose "Dumping" line */
    bool (*wanted)(const struct options *o);
    void (*write)(struct agent *a, JNIEnv *jni);
} SECTIONS[] = {
    {" CPU usage by sampling running threads ...", wants_cpu_samples, section_cpu_samples},
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
