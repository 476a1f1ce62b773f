/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HEAP DUMP section in the text format, in the original agent's layout:
 *   HEAP DUMP BEGIN (N objects, M bytes) <date>      N: the OBJ and ARR records below,
 *                                                     M: their sz= summed
 *   ROOT <id> (kind=<...>, ...)
 *   OBJ <id> (sz=.., trace=.., class=<name>@<id>)      then "\t<field>\t<id>" lines
 *   ARR <id> (sz=.., trace=.., nelems=.., elem type=<name>@<id>)   then "\t[i]\t\t<id>"
 *   ARR <id> (sz=.., trace=.., nelems=.., elem type=<name>)        primitive arrays
 *   CLS <id> (name=<name>, trace=..)   then super, loader, signers, domain, statics
 *   HEAP DUMP END
 * IDs in hex; only references that are not null are listed.
 */
#include <string.h>

#include "tables/classes.h"
#include "tables/ids.h"
#include "writers/heap_dump.h"
#include "writers/output.h"
#include "util/buf.h"
#include "writers/text_records.h"
#include "writers/writer.h"

static void txt_prepare(struct hd_session *s, struct hd_class *classes, uint32_t n) {}

static void write_begin(struct hd_session *s, uint64_t nobjects, uint64_t nbytes)
{
    buf_printf(output_buf(s->w->out), "HEAP DUMP BEGIN (%llu objects, %llu bytes) %s\n", (unsigned long long)nobjects,
               (unsigned long long)nbytes, s->began);
    output_record_end(s->w->out);
}

/* The totals the source counted are a bound only (the heap moves while it is walked):
 * the header gets those of the records written, which are held back till the end. */
static void txt_begin(struct hd_session *s, uint64_t nobjects, uint64_t nbytes)
{
    text_now(s->began, sizeof s->began);
    s->nobjects = s->nbytes = 0;
    s->held = output_hold_begin(s->w->out);
    if (!s->held) write_begin(s, nobjects, nbytes);
}

static void txt_root(struct hd_session *s, const struct hd_root_info *r)
{
    struct buf *b = output_buf(s->w->out);
    switch (r->kind) {
    case HD_ROOT_JNI_GLOBAL:
        buf_printf(b, "ROOT %x (kind=<JNI global ref>, id=%x, trace=%u)\n", r->id, r->gref, r->trace_serial);
        break;
    case HD_ROOT_JNI_LOCAL:
        buf_printf(b, "ROOT %x (kind=<JNI local ref>, thread=%u, frame=%d)\n", r->id, r->thread_serial, r->frame);
        break;
    case HD_ROOT_JAVA_FRAME:
        buf_printf(b, "ROOT %x (kind=<Java stack>, thread=%u, frame=%d)\n", r->id, r->thread_serial, r->frame);
        break;
    case HD_ROOT_NATIVE_STACK:
        buf_printf(b, "ROOT %x (kind=<native stack>, thread=%u)\n", r->id, r->thread_serial);
        break;
    case HD_ROOT_STICKY_CLASS:
        buf_printf(b, "ROOT %x (kind=<system class>, name=%s)\n", r->id, r->name ? r->name : "<Unknown Class>");
        break;
    case HD_ROOT_THREAD_BLOCK:
        buf_printf(b, "ROOT %x (kind=<thread block>, thread=%u)\n", r->id, r->thread_serial);
        break;
    case HD_ROOT_MONITOR_USED: buf_printf(b, "ROOT %x (kind=<busy monitor>)\n", r->id); break;
    case HD_ROOT_THREAD_OBJECT:
        buf_printf(b, "ROOT %x (kind=<thread>, id=%u, trace=%u)\n", r->id, r->thread_serial, r->trace_serial);
        break;
    default: buf_printf(b, "ROOT %x (kind=<unknown>)\n", r->id); break;
    }
    output_record_end(s->w->out);
}

static void txt_class_dump(struct hd_session *s, const struct hd_class *c)
{
    struct buf *b = output_buf(s->w->out);
    buf_printf(b, "CLS %x (name=%s, trace=%u)\n", c->info->object_id, c->info->name, SERIAL_TRACE_BASE);
    if (c->super) buf_printf(b, "\tsuper\t\t%x\n", c->super->info->object_id);
    if (c->loader_id) buf_printf(b, "\tloader\t\t%x\n", c->loader_id);
    if (c->signers_id) buf_printf(b, "\tsigners\t\t%x\n", c->signers_id);
    if (c->domain_id) buf_printf(b, "\tdomain\t\t%x\n", c->domain_id);
    const uint8_t *v = c->static_values;
    for (uint32_t k = 0; k < c->nstatics; k++) {
        if (c->statics[k].type == HD_OBJECT && be_load_u4(v))
            buf_printf(b, "\tstatic %s\t%x\n", c->statics[k].name, be_load_u4(v));
        v += hd_type_size(c->statics[k].type);
    }
    output_record_end(s->w->out);
}

static void txt_instance(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                         const uint8_t *values)
{
    struct buf *b = output_buf(s->w->out);
    s->nobjects++;
    s->nbytes += size;
    buf_printf(b, "OBJ %x (sz=%llu, trace=%u, class=%s@%x)\n", id, (unsigned long long)size, trace, c->info->name,
               c->info->object_id);
    const uint8_t *v = values;
    for (const struct hd_class *k = c; k; k = k->super) {
        for (uint32_t i = 0; i < k->nfields; i++) {
            const struct hd_field *f = &k->fields[i];
            if (f->type == HD_OBJECT && be_load_u4(v))
                buf_printf(b, "\t%s\t%s%x\n", f->name, strlen(f->name) < 8 ? "\t" : "", be_load_u4(v));
            v += hd_type_size(f->type);
        }
    }
    output_record_end(s->w->out);
}

static void txt_obj_array(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                          uint32_t n, const uint32_t *elems)
{
    struct buf *b = output_buf(s->w->out);
    s->nobjects++;
    s->nbytes += size;
    buf_printf(b, "ARR %x (sz=%llu, trace=%u, nelems=%u, elem type=%s@%x)\n", id, (unsigned long long)size, trace, n,
               c->info->name, c->info->object_id);
    for (uint32_t i = 0; i < n; i++)
        if (elems[i]) buf_printf(b, "\t[%u]\t\t%x\n", i, elems[i]);
    output_record_end(s->w->out);
}

static void txt_prim_array(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                           uint32_t n, int type, const uint8_t *elems)
{
    s->nobjects++;
    s->nbytes += size;
    buf_printf(output_buf(s->w->out), "ARR %x (sz=%llu, trace=%u, nelems=%u, elem type=%s)\n", id,
               (unsigned long long)size, trace, n, c->info->name);
    output_record_end(s->w->out);
}

static void txt_end(struct hd_session *s)
{
    if (s->held) {
        output_hold_stop(s->w->out);
        write_begin(s, s->nobjects, s->nbytes);
        output_hold_release(s->w->out);
        s->held = false;
    }
    buf_printf(output_buf(s->w->out), "HEAP DUMP END\n");
    output_record_end(s->w->out);
}

const struct heap_dump_writer heap_dump_text = {
    .prepare = txt_prepare,
    .begin = txt_begin,
    .root = txt_root,
    .class_dump = txt_class_dump,
    .instance = txt_instance,
    .obj_array = txt_obj_array,
    .prim_array = txt_prim_array,
    .end = txt_end,
};
