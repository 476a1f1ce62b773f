/* SPDX-License-Identifier: Apache-2.0 */
/*
 * view=: each stack-based section (CPU SAMPLES, CPU TIME, SITES, MONITOR TIME) also
 * becomes a stack profile (writers/stack_profile.h) built from every row it ranked, the
 * rows under the cutoff too, so that a view's total is the section's total (SITES: the
 * run's, of every site); its views
 * are written beside the profile at once. Called by report.c, section by section.
 */
#ifndef HPROF_REPORT_VIEWS_H
#define HPROF_REPORT_VIEWS_H

#include <stdbool.h>

#include "report/report_state.h"

struct rank_row;

struct site;
struct monitor_times;

/* rows: every trace with a count (nrows of them); times: cpu=times rows (ns, calls). */
void views_cpu(struct report *r, const struct rank_row *rows, int nrows, bool times);
/* SITES: every site of rows (all of them, not the ones SITES kept). */
void views_sites(struct report *r, struct site *const *rows, int nrows);
/* Contention (MONITOR TIME): every row of t. */
void views_monitors(struct report *r, const struct monitor_times *t);

#endif
