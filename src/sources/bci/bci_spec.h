/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the instrumenter is asked to do, shared by the class-file hook (tracker.c) and
 * the hidden classes' (hidden_classes.c): the methods left plain, and callers=sampled's
 * allocation-site hooks.
 */
#ifndef HPROF_BCI_SPEC_H
#define HPROF_BCI_SPEC_H

#include "classfile/classfile.h"

#define TRACKER_CLASS "hprof/Tracker" /* the class the hooks call */

struct host;

/* The cf_filter_fn of every class: CF_INJ_ALL, or 0 for the methods the Tracker calls. */
unsigned bci_spec_filter(void *ctx, const char *class_name, const char *name, const char *desc, unsigned access,
                         unsigned mnum);
/* callers=sampled: the site hooks and their numbering, into spec. */
void bci_spec_sites(struct host *h, cf_inject_spec *spec);

#endif
