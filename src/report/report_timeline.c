/* SPDX-License-Identifier: Apache-2.0 */
#include "report/report_timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_state.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/jvm/gc_events.h"
#include "sources/host.h"
#include "tables/sites.h"
#include "tables/timeline.h"
#include "util/log.h"
#include "writers/timeline_html.h"

#define MAX_SUSPECTS 10 /* listed at the end of the text profile (top= may say fewer) */

struct report_timeline {
    pthread_mutex_t lock; /* one record at a time, in order */
    uint32_t number;      /* allocation records so far */
    uint64_t committed;   /* the last HEAP SIZE written */
    uint64_t live_bytes;  /* every site's, at the last record with live counts */
};

struct report_timeline *report_timeline_open(void)
{
    struct report_timeline *tl = calloc(1, sizeof *tl);
    if (tl)
        pthread_mutex_init(&tl->lock, NULL);
    else
        log_error("out of memory: timeline= records are not written");
    return tl;
}

/* An interval's allocation record: with live counts (after a sweep, no GC forced) or,
 * for the command, without. Dump lock held (the live counts are the sites' fields). */
static void write_interval(struct report *r, JNIEnv *jni, bool live, uint32_t gc)
{
    struct host *h = r->h;
    struct site_table *st = alloc_tracker_sites(h);
    struct timeline_table *tt = gc_events_table(h);
    if (!st || !tt) return;
    if (live) alloc_tracker_sweep_live(h, jni);
    struct alloc_row *rows = NULL;
    struct alloc_interval iv = {r->tl->number + 1, gc, live, {0, 0, 0, 0}};
    int n = timeline_interval(tt, st, gc, live, &rows, &iv.tot);
    if (n == TL_LATER) { /* GCs came faster than records: the next one covers this one */
        free(rows);
        return;
    }
    r->tl->number++;
    if (n < 0) {
        free(rows);
        log_error("out of memory writing a timeline record");
        return;
    }
    if (live) r->tl->live_bytes = iv.tot.live_bytes;
    n = report_top(r, n);
    output_lock(&r->out);
    for (int i = 0; i < n; i++) r->writer->trace(&r->wctx, rows[i].site->trace);
    r->writer->allocs(&r->wctx, &iv, rows, n);
    output_flush(&r->out);
    output_unlock(&r->out);
    free(rows);
}

static void write_gc(struct report *r, const struct gc_record *g)
{
    output_lock(&r->out);
    r->writer->gc(&r->wctx, g);
    if (g->committed && g->committed != r->tl->committed) {
        r->writer->heap_size(&r->wctx, g->committed, g->seq);
        r->tl->committed = g->committed;
    }
    output_flush(&r->out); /* a GC's record goes out as it comes */
    output_unlock(&r->out);
}

void report_timeline(struct report *r, JNIEnv *jni, const struct gc_record *g, bool allocs)
{
    if (!r->tl) return;
    pthread_mutex_lock(&r->dump_lock);
    pthread_mutex_lock(&r->tl->lock);
    /* The 1997 order: the interval that ends at a GC, then the GC's own record. */
    if (allocs) write_interval(r, jni, true, g ? g->seq : 0);
    if (g) {
        write_gc(r, g);
        struct timeline_table *tt = gc_events_table(r->h);
        uint64_t base = r->out.header_millis * 1000u;
        if (tt) timeline_add_gc(tt, g, g->start_us > base ? (g->start_us - base) / 1000u : 0, r->tl->live_bytes);
    }
    pthread_mutex_unlock(&r->tl->lock);
    pthread_mutex_unlock(&r->dump_lock);
}

bool report_allocs(struct report *r, JNIEnv *jni)
{
    if (!r->tl || !alloc_tracker_sites(r->h)) return false;
    pthread_mutex_lock(&r->tl->lock);
    write_interval(r, jni, false, 0);
    pthread_mutex_unlock(&r->tl->lock);
    return true;
}

/* <file>.timeline.html beside the profile (<file> without .txt). */
static char *html_path(const struct options *o)
{
    const char *f = o->file ? o->file : "java.hprof";
    size_t n = strlen(f);
    if (n > 4 && strcmp(f + n - 4, ".txt") == 0) n -= 4;
    char *p = malloc(n + sizeof ".timeline.html");
    if (p) sprintf(p, "%.*s.timeline.html", (int)n, f);
    return p;
}

void report_timeline_end(struct report *r, JNIEnv *jni)
{
    struct timeline_table *tt = gc_events_table(r->h);
    struct site_table *st = alloc_tracker_sites(r->h);
    if (!r->tl || !tt) return;
    pthread_mutex_lock(&r->tl->lock);
    struct suspect s[MAX_SUSPECTS];
    int n = st ? report_top(r, timeline_suspects(tt, st, s, MAX_SUSPECTS)) : 0;
    if (st && r->writer->leak_suspects) {
        output_lock(&r->out);
        for (int i = 0; i < n; i++) r->writer->trace(&r->wctx, s[i].site->trace);
        r->writer->leak_suspects(&r->wctx, s, n, tt->intervals);
        output_unlock(&r->out);
    }
    char *path = html_path(r->h->opt), err[512];
    if (path && timeline_html_write(path, tt, s, n, err, sizeof err) != 0) log_error("%s", err);
    free(path);
    pthread_mutex_unlock(&r->tl->lock);
}
