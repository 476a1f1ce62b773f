/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The references of a dump's objects as CSR arrays (h->eoff, h->edge), counted then
 * filled by h->threads threads over ranges of objects.
 */
#ifndef HPROF_ANALYZE_EDGES_H
#define HPROF_ANALYZE_EDGES_H

#include "analyze.h"

/* Every object's strong references, a Reference's referent last; -1 out of memory. */
int an_edges_index(struct an_heap *h);
/* VisualVM's edge from each class's first instance met walking from the roots to its
 * class, when the walk has not met the class before: the way its heap library reaches
 * and retains classes (NearestGCRoot.writeClassConnection); -1 out of memory. */
int an_class_edges(struct an_heap *h);

#endif
