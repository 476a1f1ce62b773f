/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sums over the dominator tree: per class and per allocation trace, the retained bytes of
 * the objects that no other object of the class (trace) dominates; the histogram of
 * classes; the frames of a trace.
 */
#ifndef HPROF_ANALYZE_HISTOGRAM_H
#define HPROF_ANALYZE_HISTOGRAM_H

#include "analyze.h"

/* One walk of the dominator tree: a class's (or a trace's) retained bytes are those of its
 * objects that no other object of it dominates. */
struct walk_sums {
    uint64_t *cls_retained;
    uint32_t *trace_idx; /* per object: dense index of its trace (AN_NONE none) */
    uint64_t *trace_retained, *trace_count, *trace_shallow;
    uint32_t ntraces;
};

/* One walk of the tree from the super-root fills w (its traces when w->trace_idx is set);
 * -1 out of memory. */
int an_dom_walk(const struct an_heap *h, const struct an_dom *d, const struct an_kids *k, struct walk_sums *w);
/* The histogram's rows from a walk's sums, sorted by retained bytes; *n rows. */
struct an_histo *an_histogram_sums(const struct an_heap *h, const struct an_dom *d, const struct walk_sums *w,
                                   uint32_t *n);
/* Dense indexes of the objects' allocation traces into w; their serials in *serials. */
int an_trace_indexes(const struct an_heap *h, struct walk_sums *w, uint32_t **serials);
/* "Class.method(Source:line)" of frame i of a trace, into b; false when it has none. */
bool an_trace_frame(const struct an_heap *h, uint32_t serial, uint32_t i, struct buf *b);

#endif
