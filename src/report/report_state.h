/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the report layer keeps for a run (struct report), shared by its files: report.c
 * (the sections), report_timeline.c and report_views.c, which report.c calls. Its own
 * header so that those two need not include report.h, whose functions call them.
 */
#ifndef HPROF_REPORT_STATE_H
#define HPROF_REPORT_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "writers/output.h"
#include "writers/writer.h"

struct host;
struct options;
struct report_timeline;

struct report {
    struct host *h; /* the sources and tables it reports */
    struct output out;
    const struct writer *writer; /* text or binary */
    struct writer_ctx wctx;
    pthread_mutex_t dump_lock;  /* one dump at a time */
    unsigned dumps;             /* dumps and section commands so far, but the one at exit */
    unsigned view_seq;          /* view=: the number in the views' names (0 at exit) */
    struct report_timeline *tl; /* timeline= (report_timeline.h); NULL if off */
    int top;                    /* top=N (0: every row) */
    /* The session (agent/session.h) whose profile this is. */
    const struct options *opt; /* its options */
    const char *file;          /* its file: file= with the window's start for %t */
    bool idle;                 /* between sessions: nothing is written (output lock held) */
    bool take_sites;           /* the dump ends a window: the sites' counts are taken */
    int64_t window_ns;         /* when its window began (wall clock, ns since the epoch) */
};

/* top=N: at most N of n rows (all when top= is not given). */
static inline int report_top(const struct report *r, int n) { return r->top > 0 && n > r->top ? r->top : n; }

#endif
