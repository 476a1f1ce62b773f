/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,callers=sampled (sources/alloc/alloc_counted.c): each allocating bytecode
 * a numbered site counted in Java by the Tracker, its callers found on samples, the
 * count split among them at dumps; what the bytecode does not make counted one by one.
 */
#ifndef HPROF_ALLOC_COUNTED_H
#define HPROF_ALLOC_COUNTED_H

#include <jni.h>

#include "classfile/classfile.h"

struct host;
struct alloc_mode;

extern const struct alloc_mode alloc_counted_mode;

/* n consecutive site numbers for the instrumenter (the first; -1: none left). */
long alloc_counted_number(struct host *h, unsigned n);
/* A site of class cnum the instrumenter hooked (its numbers given by alloc_counted_number). */
void alloc_counted_add(struct host *h, unsigned cnum, const cf_site_info *site);
/* The Tracker's counts so far into the site table, split among each site's traces. */
void alloc_counted_collect(struct host *h, JNIEnv *jni);

#endif
