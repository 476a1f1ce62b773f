/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analysis's output, text or JSON, shared by the report of one dump
 * (analyze_report.c) and of two (analyze_diff.c).
 */
#ifndef HPROF_ANALYZE_OUT_H
#define HPROF_ANALYZE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/buf.h"

/* Where the report goes: text or JSON, built in b, written at each flush. */
struct out {
    FILE *f;
    bool json;
    struct buf b;
    int sections;
};

/* b's bytes as a C string (b keeps its length). */
const char *an_buf_text(struct buf *b);
void an_out_flush(struct out *w);
/* Opens a section: its JSON member name, or its text heading line. */
void an_out_section(struct out *w, const char *name, const char *text_head);

#endif
