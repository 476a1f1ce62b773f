/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building blocks of the binary format, shared by every binary section writer
 * (CPU samples, sites, heap dumps ...). All of them need the output lock held.
 */
#ifndef HPROF_BINARY_RECORDS_H
#define HPROF_BINARY_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hprof_format.h"

struct writer_ctx;
struct class_info;
struct trace;
struct frame;

/* Starts a record (tag, time, length to come); returns where its length goes. */
size_t bin_record_begin(struct writer_ctx *w, enum hprof_tag tag);
/* Ends the record: patches its length and marks a record boundary. */
void bin_record_end(struct writer_ctx *w, size_t length_at);
/* The ID of a name, writing its STRING record the first time (0 for NULL). */
uint32_t bin_name_id(struct writer_ctx *w, const char *s);
/* A LOAD CLASS record for the class, unless written before. */
void bin_load_class(struct writer_ctx *w, struct class_info *c);
/* The trace with its frames (and their names and classes), unless written before. */
void bin_trace(struct writer_ctx *w, struct trace *t);

#endif
