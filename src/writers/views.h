/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The views of a stack profile (writers/stack_profile.h): collapsed stacks (the input of
 * flamegraph.pl and speedscope), a one-file HTML flame graph, and pprof. Each is built
 * into a buffer; view_write_file puts one in a file. The agent's report layer and the
 * `hprof view` tool both call these.
 */
#ifndef HPROF_VIEWS_H
#define HPROF_VIEWS_H

#include <stddef.h>

#include "options/options.h" /* enum view_kind */
#include "util/buf.h"
#include "writers/stack_profile.h"

/* "frame;frame;frame value" per distinct stack, root first, of one sample type; lines
 * sorted, stacks with the same names merged, zeros left out. 0, or -1 out of memory. */
int view_collapsed(const struct stack_profile *p, int type, struct buf *out);
/* The HTML flame graph of every sample type (main_type shown first). With `base`, a
 * differential one: widths from p's main type, colours from the change since base. */
int view_flamegraph(const struct stack_profile *p, const struct stack_profile *base, struct buf *out);
/* The depth at which p's stacks were cut, when a flame graph of them is too shallow to
 * read (cut at 8 frames or fewer, or most of the value in stacks that reached the
 * limit), else 0. The limit is p->depth, or the deepest stack when that is not known. */
int view_cut_depth(const struct stack_profile *p);
/* The sentence that says so (the page shows it, `hprof view` prints it), into b; "" when
 * view_cut_depth is 0. Returns b's text. */
const char *view_cut_note(const struct stack_profile *p, struct buf *b);
/* pprof's profile.proto, gzipped. */
int view_pprof(const struct stack_profile *p, struct buf *out);

/* The kind a file name's extension asks for (.html, .collapsed, .pb.gz), 0 for none. */
int view_kind_of_path(const char *path);
/* The extension of a kind: ".html", ".collapsed", ".pb.gz". */
const char *view_extension(int kind);
/* Builds one view and writes it to path (through a file beside it, renamed, so that a
 * reader never sees half of it). 0, or -1 with the reason in err. */
int view_write_file(const struct stack_profile *p, const struct stack_profile *base, int kind, const char *path,
                    char *err, size_t errlen);
/* The frame name a view shows (";" and line ends, which would break collapsed lines,
 * become "_"), into b; returns b's text. */
const char *view_frame_name(const struct stack_profile *p, uint32_t frame, struct buf *b);

#endif
