/* SPDX-License-Identifier: Apache-2.0 */
/* Building blocks of the binary format, shared by every binary section writer: record
 * framing, names as STRING records, LOAD CLASS, traces with their frames. */
#include "writers/binary_records.h"

#include <string.h>

#include "options/options.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/ids.h"
#include "tables/methods.h"
#include "tables/strings.h"
#include "tables/traces.h"
#include "util/hprof_format.h"
#include "writers/output.h"
#include "writers/writer.h"

/* Starts a record; returns where its length goes, patched by record_end. */
size_t bin_record_begin(struct writer_ctx *w, enum hprof_tag tag)
{
    struct buf *b = output_buf(w->out);
    buf_u1(b, (uint8_t)tag);
    buf_u4(b, output_micros(w->out));
    size_t at = b->len;
    buf_u4(b, 0);
    return at;
}

void bin_record_end(struct writer_ctx *w, size_t length_at)
{
    struct buf *b = output_buf(w->out);
    buf_patch_u4(b, length_at, (uint32_t)(b->len - length_at - 4));
    output_record_end(w->out);
}

/* The ID of a name, writing its STRING record the first time. */
uint32_t bin_name_id(struct writer_ctx *w, const char *s)
{
    bool is_new;
    uint32_t id = strings_id(w->strings, s, &is_new);
    if (is_new) {
        size_t at = bin_record_begin(w, TAG_STRING);
        buf_u4(output_buf(w->out), id);
        buf_put(output_buf(w->out), s, strlen(s));
        bin_record_end(w, at);
    }
    return id;
}

/* A STACK TRACE record of frames already written. */
static void bin_trace_record(struct writer_ctx *w, uint32_t serial, uint32_t thread_serial, uint32_t nframes,
                             struct frame **frames)
{
    size_t at = bin_record_begin(w, TAG_STACK_TRACE);
    struct buf *b = output_buf(w->out);
    buf_u4(b, serial);
    buf_u4(b, thread_serial);
    buf_u4(b, nframes);
    for (uint32_t i = 0; i < nframes; i++) buf_u4(b, frames[i]->id);
    bin_record_end(w, at);
}

void bin_load_class(struct writer_ctx *w, struct class_info *c)
{
    if (c->load_written) return;
    c->load_written = true;
    uint32_t name = bin_name_id(w, c->name);
    size_t at = bin_record_begin(w, TAG_LOAD_CLASS);
    struct buf *b = output_buf(w->out);
    buf_u4(b, c->serial);
    buf_u4(b, c->object_id);
    buf_u4(b, SERIAL_TRACE_BASE);
    buf_u4(b, name);
    bin_record_end(w, at);
}

static void stack_frame(struct writer_ctx *w, struct frame *f)
{
    if (f->written) return;
    f->written = true;
    struct method_info *m = f->method;
    bin_load_class(w, m->cls);
    uint32_t name = bin_name_id(w, m->name);
    uint32_t sig = bin_name_id(w, m->signature);
    uint32_t src = bin_name_id(w, m->cls->source_file);
    size_t at = bin_record_begin(w, TAG_STACK_FRAME);
    struct buf *b = output_buf(w->out);
    buf_u4(b, f->id);
    buf_u4(b, name);
    buf_u4(b, sig);
    buf_u4(b, src);
    buf_u4(b, m->cls->serial);
    buf_u4(b, (uint32_t)(w->opt->lineno ? f->line : LINE_UNKNOWN));
    bin_record_end(w, at);
}

void bin_trace(struct writer_ctx *w, struct trace *t)
{
    if (t->written) return;
    t->written = true;
    for (uint32_t i = 0; i < t->nframes; i++) stack_frame(w, t->frames[i]);
    bin_trace_record(w, t->serial, t->thread_serial, t->nframes, t->frames);
}
