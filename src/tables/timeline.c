/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "tables/sites.h"

void timeline_init(struct timeline_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->snap_lock, NULL);
    t->stride = t->stride_heap = 1;
}

/* Grows a zeroed array of `size`-byte items to hold n; false if out of memory. */
static bool grow(void **a, uint32_t *cap, uint32_t n, size_t size)
{
    if (n <= *cap) return true;
    uint32_t c = *cap ? *cap : 256;
    while (c < n) c *= 2;
    void *p = realloc(*a, (size_t)c * size);
    if (!p) return false;
    memset((char *)p + (size_t)*cap * size, 0, (size_t)(c - *cap) * size);
    *a = p;
    *cap = c;
    return true;
}

struct tl_counts timeline_snapshot(struct timeline_table *t, struct site_table *st, uint32_t gc)
{
    struct tl_counts sum = {0, 0};
    uint32_t n = sites_count(st);
    pthread_mutex_lock(&t->snap_lock);
    if (grow((void **)&t->snap, &t->snap_cap, n, sizeof *t->snap)) {
        for (uint32_t i = 0; i < n; i++) {
            struct site *s = sites_by_id(st, i + 1);
            t->snap[i].objs = atomic_load_explicit(&s->alloc_objs, memory_order_relaxed);
            t->snap[i].bytes = atomic_load_explicit(&s->alloc_bytes, memory_order_relaxed);
            sum.objs += t->snap[i].objs;
            sum.bytes += t->snap[i].bytes;
        }
        t->nsnap = n;
        t->snap_fresh = true;
        t->snap_gc = gc;
    }
    pthread_mutex_unlock(&t->snap_lock);
    return sum;
}

/* Halves the resolution of every series: keeps the even points. */
static void halve_series(struct timeline_table *t)
{
    for (uint32_t i = 0; i < t->nsites; i++) {
        uint64_t *s = t->sites[i].series;
        if (!s) continue;
        for (uint32_t j = 0; j < TL_POINTS / 2; j++) s[j] = s[2 * j];
        memset(s + TL_POINTS / 2, 0, TL_POINTS / 2 * sizeof *s);
    }
    for (uint32_t j = 0; j < TL_POINTS / 2; j++) t->point_interval[j] = t->point_interval[2 * j];
    t->npoints = TL_POINTS / 2;
    t->stride *= 2;
}

/* The leak statistics and the series of one site at a record with live counts. */
static void note_live(struct timeline_table *t, struct tl_site *ts, uint64_t live, int point)
{
    if (ts->intervals == 0) ts->first_live = live;
    if (live > ts->high) {
        ts->high = live;
        ts->highs++;
    }
    ts->intervals++;
    ts->last_live = live;
    if (point < 0) return;
    if (!ts->series && live) ts->series = calloc(TL_POINTS, sizeof *ts->series);
    if (ts->series) ts->series[point] = live;
}

/* The point of the series this record is, or -1 when it falls between points. */
static int take_point(struct timeline_table *t)
{
    uint32_t k = t->intervals++;
    if (k % t->stride) return -1;
    if (!t->point_interval) t->point_interval = calloc(TL_POINTS, sizeof *t->point_interval);
    if (!t->point_interval) return -1;
    if (t->npoints == TL_POINTS) halve_series(t);
    if (k % t->stride) return -1;
    t->point_interval[t->npoints] = k;
    return (int)t->npoints++;
}

static int by_alloc_bytes(const void *x, const void *y)
{
    const struct alloc_row *a = x, *b = y;
    if (a->alloc_bytes != b->alloc_bytes) return a->alloc_bytes < b->alloc_bytes ? 1 : -1;
    if (a->live_bytes != b->live_bytes) return a->live_bytes < b->live_bytes ? 1 : -1;
    return (a->site->id > b->site->id) - (a->site->id < b->site->id);
}

/* Each site's counts at the interval's end: the GC's snapshot, or now. */
static struct tl_counts end_counts(struct timeline_table *t, struct site *s, uint32_t i, bool snap)
{
    if (snap && i < t->nsnap) return t->snap[i];
    if (snap) return (struct tl_counts){t->sites[i].prev_objs, t->sites[i].prev_bytes}; /* newer than the GC */
    return (struct tl_counts){atomic_load(&s->alloc_objs), atomic_load(&s->alloc_bytes)};
}

int timeline_interval(struct timeline_table *t, struct site_table *st, uint32_t at_gc, bool live,
                      struct alloc_row **rows, struct alloc_totals *tot)
{
    memset(tot, 0, sizeof *tot);
    uint32_t n = sites_count(st);
    *rows = malloc((n ? n : 1) * sizeof **rows);
    if (!*rows || !grow((void **)&t->sites, &t->cap, n, sizeof *t->sites)) return -1;
    t->nsites = n;
    pthread_mutex_lock(&t->snap_lock);
    if (at_gc && t->snap_fresh && t->snap_gc != at_gc) {
        pthread_mutex_unlock(&t->snap_lock);
        return TL_LATER;
    }
    bool snap = at_gc && t->snap_fresh;
    t->snap_fresh = false;
    int point = live ? take_point(t) : -1;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct site *s = sites_by_id(st, i + 1);
        struct tl_site *ts = &t->sites[i];
        struct tl_counts end = end_counts(t, s, i, snap);
        struct alloc_row r = {s, end.objs - ts->prev_objs, end.bytes - ts->prev_bytes, 0, 0};
        ts->prev_objs = end.objs;
        ts->prev_bytes = end.bytes;
        bool changed = false;
        if (live) {
            r.live_objs = s->live_objs;
            r.live_bytes = s->live_bytes;
            changed = r.live_objs != ts->last_live_objs || r.live_bytes != ts->last_live;
            ts->last_live_objs = r.live_objs;
            note_live(t, ts, r.live_bytes, point);
        }
        tot->alloc_objs += r.alloc_objs;
        tot->alloc_bytes += r.alloc_bytes;
        tot->live_objs += r.live_objs;
        tot->live_bytes += r.live_bytes;
        if (r.alloc_objs || changed) (*rows)[k++] = r;
    }
    pthread_mutex_unlock(&t->snap_lock);
    qsort(*rows, (size_t)k, sizeof **rows, by_alloc_bytes);
    return k;
}

void timeline_add_gc(struct timeline_table *t, const struct gc_record *g, uint64_t ms, uint64_t live_bytes)
{
    uint32_t k = t->gcs++;
    if (k % t->stride_heap) return;
    if (!t->heap) t->heap = calloc(TL_HEAP_POINTS, sizeof *t->heap);
    if (!t->heap) return;
    if (t->nheap == TL_HEAP_POINTS) {
        for (uint32_t j = 0; j < TL_HEAP_POINTS / 2; j++) t->heap[j] = t->heap[2 * j];
        t->nheap = TL_HEAP_POINTS / 2;
        t->stride_heap *= 2;
        if (k % t->stride_heap) return;
    }
    t->heap[t->nheap++] = (struct heap_point){g->seq, ms, g->used_after, g->committed, live_bytes};
}

static int by_growth(const void *x, const void *y)
{
    const struct suspect *a = x, *b = y;
    uint64_t ga = a->last_live - a->first_live, gb = b->last_live - b->first_live;
    if (ga != gb) return ga < gb ? 1 : -1;
    return (a->site->id > b->site->id) - (a->site->id < b->site->id);
}

int timeline_suspects(const struct timeline_table *t, struct site_table *st, struct suspect *out, int max)
{
    int k = 0;
    struct suspect *all = malloc((t->nsites ? t->nsites : 1) * sizeof *all);
    if (!all) return 0;
    for (uint32_t i = 0; i < t->nsites; i++) {
        const struct tl_site *ts = &t->sites[i];
        if (ts->intervals < 3 || ts->highs * 2 <= ts->intervals || ts->last_live <= ts->first_live) continue;
        all[k++] = (struct suspect){sites_by_id(st, i + 1), ts->first_live, ts->last_live, ts->highs, ts->intervals};
    }
    qsort(all, (size_t)k, sizeof *all, by_growth);
    if (k > max) k = max;
    memcpy(out, all, (size_t)k * sizeof *all);
    free(all);
    return k;
}

const uint64_t *timeline_series(const struct timeline_table *t, uint32_t site_id)
{
    if (site_id == 0 || site_id > t->nsites) return NULL;
    return t->sites[site_id - 1].series;
}
