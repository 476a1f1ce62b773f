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

#endif
