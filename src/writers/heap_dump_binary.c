/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HEAP DUMP section in the binary format: HEAP DUMP SEGMENT records of bounded size
 * (so the dump streams to the output and the agent's buffer stays small), closed by
 * HEAP DUMP END. Each segment ends at a sub-record boundary and is a whole record, so a
 * failing disk cuts the file between records. Names (STRING) and LOAD CLASS records are
 * written before the first segment.
 * primfields=n writes primitive field values (instance and static) as 0, keeping the
 * layout every reader needs; primarrays=n writes primitive arrays with no elements (as
 * the original did).
 */
#include <stdio.h>
#include <string.h>

#include "options/options.h"
#include "tables/classes.h"
#include "tables/ids.h"
#include "writers/binary_records.h"
#include "writers/heap_dump.h"
#include "writers/output.h"
#include "writers/writer.h"
#include "util/log.h"

/* A segment is closed once it holds this much (one sub-record may go beyond). */
#define SEGMENT_BYTES (4u * 1024 * 1024)
/* The sub-records' fields before the elements (4-byte IDs), and the JVM's own (8-byte IDs:
 * a length it cut to fit them comes to a binary dump the JVM wrote). */
#define PRIM_HEADER     14u
#define OBJ_HEADER      17u
#define JVM_PRIM_HEADER 18u
#define JVM_OBJ_HEADER  25u
#define U4_MAX          0xFFFFFFFFull

uint32_t hd_array_fit(uint32_t n, unsigned es, unsigned header)
{
    uint64_t room = U4_MAX - header;
    return (uint64_t)n * es > room ? (uint32_t)(room / es) : n;
}

static void seg_close(struct hd_session *s)
{
    if (!s->seg_open) return;
    bin_record_end(s->w, s->seg_len_at);
    s->seg_open = false;
}

/* The buffer to append a sub-record of about `need` bytes to, in an open segment. */
static struct buf *seg_room(struct hd_session *s, size_t need)
{
    struct buf *b = output_buf(s->w->out);
    if (s->seg_open && b->len - s->seg_len_at - 4 + need > SEGMENT_BYTES) seg_close(s);
    if (!s->seg_open) {
        s->seg_len_at = bin_record_begin(s->w, TAG_HEAP_DUMP_SEGMENT);
        s->seg_open = true;
    }
    return b;
}

/*
 * An array cut to `kept` of its n elements. HPROF has no comment record, so the file says
 * so in a STRING record that nothing refers to (readers keep such strings and use none of
 * them; tools that list strings show it), written between two segments; stderr is told
 * once a dump. `by_jvm`: the JVM's dumper cut it (its length is the longest the JVM
 * writes; the JVM printed its own warning).
 */
static void note_truncated(struct hd_session *s, uint32_t id, const struct hd_class *c, uint64_t n, uint32_t kept,
                           bool by_jvm)
{
    char note[512];
    if (by_jvm)
        snprintf(note, sizeof note,
                 "HPROF NOTE: array %x (%s) has %u elements here, the most the JVM's heap dumper "
                 "writes for its type: it was probably longer and cut to fit a u4 record length",
                 id, c->info->name, kept);
    else
        snprintf(note, sizeof note,
                 "HPROF NOTE: array %x (%s) of length %llu truncated to length %u: a HEAP DUMP "
                 "sub-record's length is a u4 (the JDK's heap dumper truncates the same way)",
                 id, c->info->name, (unsigned long long)n, kept);
    seg_close(s);
    bin_name_id(s->w, note);
    if (s->told_truncated) return;
    s->told_truncated = true;
    if (by_jvm)
        log_warning("the JVM's heap dump has array %x (%s) at the longest length it writes (%u): probably truncated; "
                    "noted in the file",
                    id, c->info->name, kept);
    else
        log_warning("cannot dump array %x (%s) of length %llu in the binary format (a record's length is a u4); "
                    "truncating to length %u, as the JDK's heap dumper does; noted in the file",
                    id, c->info->name, (unsigned long long)n, kept);
}

static void bin_prepare(struct hd_session *s, struct hd_class *classes, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct hd_class *c = &classes[i];
        if (!c->info) continue;
        bin_load_class(s->w, c->info);
        for (uint32_t k = 0; k < c->nfields; k++) c->fields[k].name_id = bin_name_id(s->w, c->fields[k].name);
        for (uint32_t k = 0; k < c->nstatics; k++) c->statics[k].name_id = bin_name_id(s->w, c->statics[k].name);
    }
}

static void bin_begin(struct hd_session *s, uint64_t nobjects, uint64_t nbytes) { s->seg_open = false; }

static void bin_root(struct hd_session *s, const struct hd_root_info *r)
{
    struct buf *b = seg_room(s, 17);
    buf_u1(b, (uint8_t)r->kind);
    buf_u4(b, r->id);
    switch (r->kind) {
    case HD_ROOT_JNI_GLOBAL: buf_u4(b, r->gref); break;
    case HD_ROOT_JNI_LOCAL:
    case HD_ROOT_JAVA_FRAME:
        buf_u4(b, r->thread_serial);
        buf_u4(b, (uint32_t)r->frame);
        break;
    case HD_ROOT_NATIVE_STACK:
    case HD_ROOT_THREAD_BLOCK: buf_u4(b, r->thread_serial); break;
    case HD_ROOT_THREAD_OBJECT:
        buf_u4(b, r->thread_serial);
        buf_u4(b, r->trace_serial);
        break;
    default: break;
    }
}

/* A static field's value, or 0 for a primitive one under primfields=n. */
static void put_static(struct hd_session *s, struct buf *b, int type, const uint8_t *v)
{
    static const uint8_t zero[8];
    buf_put(b, type == HD_OBJECT || s->w->opt->primfields ? v : zero, hd_type_size(type));
}

/* primfields=n: an instance's primitive values (laid out as its class's own fields,
 * then its super's, and so on) set to 0. */
static void zero_primitives(const struct hd_class *c, uint8_t *v)
{
    for (const struct hd_class *k = c; k; k = k->super) {
        for (uint32_t i = 0; i < k->nfields; i++) {
            unsigned n = hd_type_size(k->fields[i].type);
            if (k->fields[i].type != HD_OBJECT) memset(v, 0, n);
            v += n;
        }
    }
}

static void bin_class_dump(struct hd_session *s, const struct hd_class *c)
{
    size_t need = 64 + (size_t)c->nstatics * 13 + (size_t)c->nfields * 5;
    struct buf *b = seg_room(s, need);
    buf_u1(b, HD_CLASS_DUMP);
    buf_u4(b, c->info->object_id);
    buf_u4(b, SERIAL_TRACE_BASE);
    buf_u4(b, c->super ? c->super->info->object_id : 0);
    buf_u4(b, c->loader_id);
    buf_u4(b, c->signers_id);
    buf_u4(b, c->domain_id);
    buf_u4(b, 0);
    buf_u4(b, 0);
    buf_u4(b, c->is_array ? 0 : c->inst_bytes);
    buf_u2(b, 0); /* constant pool entries */
    buf_u2(b, (uint16_t)c->nstatics);
    const uint8_t *v = c->static_values;
    for (uint32_t k = 0; k < c->nstatics; k++) {
        buf_u4(b, c->statics[k].name_id);
        buf_u1(b, c->statics[k].type);
        put_static(s, b, c->statics[k].type, v);
        v += hd_type_size(c->statics[k].type);
    }
    buf_u2(b, (uint16_t)c->nfields);
    for (uint32_t k = 0; k < c->nfields; k++) {
        buf_u4(b, c->fields[k].name_id);
        buf_u1(b, c->fields[k].type);
    }
}

static void bin_instance(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                         const uint8_t *values)
{
    /* One room for the whole sub-record: a dump writes tens of millions of these. */
    uint8_t *p = buf_room(seg_room(s, 17 + (size_t)c->inst_bytes), 17 + (size_t)c->inst_bytes);
    if (!p) return;
    p[0] = HD_INSTANCE_DUMP;
    be_store_u4(p + 1, id);
    be_store_u4(p + 5, trace);
    be_store_u4(p + 9, c->info->object_id);
    be_store_u4(p + 13, c->inst_bytes);
    if (c->inst_bytes) memcpy(p + 17, values, c->inst_bytes);
    if (!s->w->opt->primfields) zero_primitives(c, p + 17);
}

static void bin_obj_array(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                          uint32_t n, const uint32_t *elems)
{
    uint32_t all = n;
    n = hd_array_fit(n, 4, OBJ_HEADER);
    if (n != all || n == (uint32_t)((U4_MAX - JVM_OBJ_HEADER) / 8)) note_truncated(s, id, c, all, n, n == all);
    struct buf *b = seg_room(s, 17 + (size_t)n * 4);
    buf_u1(b, HD_OBJ_ARRAY_DUMP);
    buf_u4(b, id);
    buf_u4(b, trace);
    buf_u4(b, n);
    buf_u4(b, c->info->object_id);
    if (buf_reserve(b, (size_t)n * 4) != 0) return;
    uint8_t *p = b->data + b->len;
    for (uint32_t i = 0; i < n; i++) be_store_u4(p + 4 * (size_t)i, elems[i]);
    b->len += (size_t)n * 4;
}

static void bin_prim_array(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                           uint32_t n, int type, const uint8_t *elems)
{
    unsigned es = hd_type_size(type);
    if (!s->w->opt->primarrays) n = 0;
    uint32_t all = n;
    n = hd_array_fit(n, es, PRIM_HEADER);
    if (n != all || (es > 1 && n == (uint32_t)((U4_MAX - JVM_PRIM_HEADER) / es)))
        note_truncated(s, id, c, all, n, n == all);
    size_t len = 14 + (size_t)n * es;
    uint8_t *p = buf_room(seg_room(s, len), len);
    if (!p) return;
    p[0] = HD_PRIM_ARRAY_DUMP;
    be_store_u4(p + 1, id);
    be_store_u4(p + 5, trace);
    be_store_u4(p + 9, n);
    p[13] = (uint8_t)type;
    if (n) memcpy(p + 14, elems, (size_t)n * es);
}

static void bin_end(struct hd_session *s)
{
    seg_room(s, 0); /* at least one segment, even for an empty dump */
    seg_close(s);
    size_t at = bin_record_begin(s->w, TAG_HEAP_DUMP_END);
    bin_record_end(s->w, at);
}

const struct heap_dump_writer heap_dump_binary = {
    .prepare = bin_prepare,
    .begin = bin_begin,
    .root = bin_root,
    .class_dump = bin_class_dump,
    .instance = bin_instance,
    .obj_array = bin_obj_array,
    .prim_array = bin_prim_array,
    .end = bin_end,
};
