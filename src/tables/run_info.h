/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run header: what ran, once, at the start (the 1997 request's HPROF_HEADER, with
 * what a reader needs today). Plain data: names and values as text, in the order they
 * are written. Filled by sources/jvm/run_info_collect.c at VMInit.
 */
#ifndef HPROF_RUN_INFO_H
#define HPROF_RUN_INFO_H

#include <stdio.h>
#include <string.h>

#define RUN_INFO_MAX 20

struct run_info {
    int n;
    const char *name[RUN_INFO_MAX];
    char value[RUN_INFO_MAX][1024]; /* cut at 1023 bytes */
};

/* Adds a field (dropped when the header is full); an unknown value is written "". */
static inline void run_info_add(struct run_info *r, const char *name, const char *value)
{
    if (r->n >= RUN_INFO_MAX) return;
    r->name[r->n] = name;
    snprintf(r->value[r->n], sizeof r->value[0], "%s", value ? value : "");
    r->n++;
}

#endif
