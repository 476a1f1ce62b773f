/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run over time (timeline=): what each GC did, and, with heap=sites, what each site
 * allocated in each interval between two records and how much of it is still live.
 * Plain data: the GC callbacks take a snapshot of every site's counts at the moment of
 * the collection (so that an interval ends exactly at its GC); the timeline's thread and
 * the socket command turn the counts into rows; leak statistics and the series a plot
 * needs are kept per site, bounded (a series keeps at most TL_POINTS points, halving its
 * resolution when full).
 *
 * Concurrency: timeline_snapshot may run on any thread (a GC callback); everything else
 * is called by one thread at a time (the report layer holds its lock).
 */
#ifndef HPROF_TIMELINE_H
#define HPROF_TIMELINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct site;
struct site_table;

#define TL_POINTS      64   /* points per site's live series */
#define TL_HEAP_POINTS 1024 /* points of the heap's series */

/* One collection. */
struct gc_record {
    uint32_t seq;                                /* 1, 2, ... in the order they finished */
    uint64_t start_us;                           /* wall clock at the JVM's GC start, us since the epoch */
    uint64_t duration_ns;                        /* GC start to GC finish (our work is not in it) */
    uint64_t used_before, used_after, committed; /* heap bytes (jvmstat); 0 if unknown */
    uint64_t alloc_objs, alloc_bytes;            /* heap=sites: since the previous GC */
};

/* One site's interval. */
struct alloc_row {
    struct site *site;
    uint64_t alloc_objs, alloc_bytes; /* in this interval */
    uint64_t live_objs, live_bytes;   /* at its end */
};

struct alloc_totals {
    uint64_t alloc_objs, alloc_bytes, live_objs, live_bytes;
};

/* What an allocation record covers. */
struct alloc_interval {
    uint32_t number;         /* 1, 2, ... every allocation record of the run */
    uint32_t gc;             /* the GC it ends at (0: a period or a command) */
    bool live;               /* ALLOCS LIVE (live counts) or ALLOCS (none) */
    struct alloc_totals tot; /* over every site, listed or not */
};

/* A site whose live bytes kept growing. */
struct suspect {
    struct site *site;
    uint64_t first_live, last_live; /* bytes, at its first and last record */
    uint32_t highs, intervals;      /* records at a new high of live bytes, of all */
};

struct tl_counts {
    uint64_t objs, bytes;
};

struct tl_site {
    uint64_t prev_objs, prev_bytes; /* counts at the last record */
    uint64_t first_live, last_live, high;
    uint64_t last_live_objs;
    uint32_t highs, intervals;
    uint64_t *series; /* live bytes per point (NULL until it had some) */
};

struct heap_point {
    uint32_t gc; /* the GC's seq */
    uint64_t ms; /* when: ms since the start of the file */
    uint64_t used_after, committed, live_bytes;
};

struct timeline_table {
    /* The counts at the last GC, written by timeline_snapshot. */
    pthread_mutex_t snap_lock;
    struct tl_counts *snap;
    uint32_t nsnap, snap_cap;
    bool snap_fresh;                /* a GC came since the last interval took it */
    uint32_t snap_gc;               /* the GC it was taken at */
    uint64_t snap_objs, snap_bytes; /* their totals */

    struct tl_site *sites; /* by site id - 1 */
    uint32_t nsites, cap;
    uint32_t intervals;       /* records with live counts so far */
    uint32_t stride, npoints; /* site series: a point every stride records */
    uint32_t *point_interval; /* the record each point is */

    struct heap_point *heap; /* every stride_heap-th GC */
    uint32_t nheap, stride_heap, gcs;
};

void timeline_init(struct timeline_table *t);

/* At GC number gc (any thread, no JNI): every site's counts now; returns their totals. */
struct tl_counts timeline_snapshot(struct timeline_table *t, struct site_table *st, uint32_t gc);

/*
 * The rows of an interval: each site's counts since the previous interval (at GC number
 * at_gc's snapshot, else now) and, when `live`, its live counts
 * as the site table holds them (and the leak statistics are brought up to date).
 * A site is left out when it allocated nothing and its live counts are those of its
 * previous row (so a record holds what changed, not every site every time). TL_LATER when at_gc's
 * snapshot has been replaced by a later GC's. Rows are sorted by bytes
 * allocated, most first (then live bytes). Returns the number of rows in *rows
 * (malloc'd; the caller frees), -1 when out of memory; *tot sums every site.
 */
int timeline_interval(struct timeline_table *t, struct site_table *st, uint32_t at_gc, bool live,
                      struct alloc_row **rows, struct alloc_totals *tot);
/* What timeline_interval returns when the snapshot is of a GC after at_gc: the interval
 * goes on to that GC's record (nothing is taken). */
#define TL_LATER (-2)

/* A GC for the heap's series (bounded). */
void timeline_add_gc(struct timeline_table *t, const struct gc_record *g, uint64_t ms, uint64_t live_bytes);

/*
 * Leak suspects: sites seen in at least 3 records with live counts whose live bytes
 * reached a new high in more than half of them and ended above where they started;
 * ranked by that growth. Returns how many (at most max) were put in out.
 */
int timeline_suspects(const struct timeline_table *t, struct site_table *st, struct suspect *out, int max);

/* The live series of a site (npoints values), or NULL when it never had live bytes. */
const uint64_t *timeline_series(const struct timeline_table *t, uint32_t site_id);

#endif
