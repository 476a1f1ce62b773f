/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Allocation sites: a stack trace and the class allocated there, with the objects and
 * bytes allocated (counted as they happen, or estimated from samples) and live (counted
 * at each dump from the objects the allocation source still holds for the site).
 */
#ifndef HPROF_SITES_H
#define HPROF_SITES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct trace;
struct class_info;

struct site {
    struct cmap_node node;
    uint32_t id; /* 1 ...: its objects' tag in a heap dump */
    struct trace *trace;
    struct class_info *cls;
    _Atomic uint64_t alloc_objs, alloc_bytes;
    uint64_t live_objs, live_bytes;   /* set by the live count at a dump */
    uint64_t shown_objs, shown_bytes; /* the allocations a dump shows (set by the report layer) */
    /* heap=sites,callers=sampled (alloc_counted.c, at dumps): all it was given so far, and
     * whether that is a share of its bytecode site's exact count (the site had more than
     * one trace), not its own exact count; its live counts are then estimates. */
    uint64_t given_objs, given_bytes;
    _Atomic bool apportioned;
};

struct site_table {
    struct cmap map;
    struct registry all;
};

void sites_init(struct site_table *t);
/* The site of this trace and class (its canonical entry: see classes.h), made on first
 * sight; NULL if out of memory. */
struct site *sites_of(struct site_table *t, struct trace *trace, struct class_info *cls);
struct site *sites_by_id(struct site_table *t, uint32_t id);
uint32_t sites_count(struct site_table *t);
/* Each site's allocations into shown_objs/shown_bytes: taken (the counts start again
 * from zero, none lost to an allocation meanwhile) or only read. */
void sites_show_counts(struct site_table *t, bool take);

#endif
