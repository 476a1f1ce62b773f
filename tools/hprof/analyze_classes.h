/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The classes of a dump, from their CLASS DUMP and LOAD CLASS records: layout (field
 * bytes, strong reference offsets, the chain of supers), VisualVM's instance sizes, the
 * classes the analysis knows by name, and the classes of primitive arrays.
 */
#ifndef HPROF_ANALYZE_CLASSES_H
#define HPROF_ANALYZE_CLASSES_H

#include "analyze.h"

/* Fills h->classes from the CLASS DUMPs of the indexed objects objs[0..n) (class
 * objects by increasing index; others are passed over); -1 out of memory. */
int an_classes_index(struct an_heap *h, const uint32_t *objs, uint32_t n);
/* The classes of primitive arrays, by element type: HotSpot's dumps have a CLASS DUMP
 * for each ("[I"), the original HPROF's none (then they get no class). */
void an_prim_classes(struct an_heap *h);

#endif
