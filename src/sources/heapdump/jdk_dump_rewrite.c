/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pass 2 of the reader of the JDK's heap dump: jdr_write hands every root and object of
 * the dump to the writer in hprof's terms (IDs from jdk_dump_reader.c, classes from
 * jdk_dump_classes.c), then the classes, and the Class objects the dump refers to and
 * does not hold.
 */
#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/jdk_dump_internal.h"
#include "sources/heapdump/jdk_dump_reader.h"
#include "tables/classes.h"
#include "tables/ids.h"
#include "util/buf.h"
#include "util/hprof_format.h"

/* The class (set) an object of the dump names, -1 if none. */
static int64_t set_class(struct jdr *r, uint64_t id)
{
    if (id != r->last_cid) {
        r->last_cid = id;
        r->last_k = jd_class_index(r, id);
        if (r->last_k >= 0 && !r->out[r->last_k].info) r->last_k = -1;
    }
    return r->last_k;
}

static uint32_t thread_serial(const struct jdr *r, uint32_t jdk_serial)
{
    return jdk_serial < r->nserials ? r->serial_of[jdk_serial] : 0;
}

static void write_root(struct jdr *r, const uint8_t *p)
{
    const uint8_t *b = p + 1;
    uint64_t obj = be_load_u8(b);
    struct hd_root_info ri = {.kind = p[0], .id = jd_map_ref(r, obj), .trace_serial = SERIAL_TRACE_BASE};
    if (!ri.id) return;
    switch (p[0]) {
    case HD_ROOT_JNI_GLOBAL: ri.gref = ++r->gref; break;
    case HD_ROOT_JNI_LOCAL:
    case HD_ROOT_JAVA_FRAME:
        ri.thread_serial = thread_serial(r, be_load_u4(b + ID_BYTES));
        ri.frame = (int32_t)be_load_u4(b + ID_BYTES + 4);
        break;
    case HD_ROOT_NATIVE_STACK:
    case HD_ROOT_THREAD_BLOCK: ri.thread_serial = thread_serial(r, be_load_u4(b + ID_BYTES)); break;
    case HD_ROOT_THREAD_OBJECT: {
        uint32_t jdk = be_load_u4(b + ID_BYTES);
        ri.thread_serial = thread_serial(r, jdk);
        if (ri.thread_serial && r->trace_of[jdk]) ri.trace_serial = r->trace_of[jdk];
        break;
    }
    case HD_ROOT_STICKY_CLASS: {
        int64_t k = set_class(r, obj);
        ri.name = k >= 0 ? r->out[k].info->name : "<Unknown Class>";
        break;
    }
    default: break;
    }
    /* a root of a thread hprof does not know (the agent's own, ...): of no kind */
    bool on_thread = p[0] == HD_ROOT_JNI_LOCAL || p[0] == HD_ROOT_JAVA_FRAME || p[0] == HD_ROOT_NATIVE_STACK ||
        p[0] == HD_ROOT_THREAD_BLOCK || p[0] == HD_ROOT_THREAD_OBJECT;
    if (on_thread && !ri.thread_serial) ri.kind = HD_ROOT_UNKNOWN;
    r->wr->root(r->s, &ri);
    /* as the JVMTI walk writes it: a thread's object is also its block's root */
    if (ri.kind == HD_ROOT_THREAD_OBJECT) {
        ri.kind = HD_ROOT_THREAD_BLOCK;
        r->wr->root(r->s, &ri);
    }
}

/* The class of the instance at b if its values can be written as hprof's, else -1. */
static int64_t instance_class(struct jdr *r, const uint8_t *b)
{
    int64_t k = set_class(r, be_load_u8(b + ID_BYTES + 4));
    if (k < 0) return -1;
    struct cls *c = &r->cls[k];
    if (!c->ops_state) jd_build_ops(r, c);
    return c->ops_state > 0 && be_load_u4(b + 2 * ID_BYTES + 4) == c->src_bytes ? k : -1;
}

static void write_instance(struct jdr *r, const uint8_t *b)
{
    uint32_t id = jd_map_id(r, be_load_u8(b));
    if (!id) return; /* hidden */
    int64_t k = instance_class(r, b);
    const struct hd_class *o = k >= 0 ? &r->out[k] : NULL;
    if (!o || !grow_array((void **)&r->vals, &r->vals_cap, o->inst_bytes + 1, 1)) {
        r->left_out++;
        return;
    }
    const struct cls *c = &r->cls[k];
    const uint8_t *v = b + 2 * ID_BYTES + 8;
    uint8_t *d = r->vals;
    for (uint32_t i = 0; i < c->nops; i++) d = jd_put_value(r, d, c->ops[i].type, v + c->ops[i].src);
    r->wr->instance(r->s, id, SERIAL_TRACE_BASE, o, 0, r->vals);
}

static void write_obj_array(struct jdr *r, const uint8_t *b)
{
    uint32_t id = jd_map_id(r, be_load_u8(b));
    uint32_t n = be_load_u4(b + ID_BYTES + 4);
    int64_t k = set_class(r, be_load_u8(b + ID_BYTES + 8));
    if (!id) return;
    if (k < 0 || !grow_array((void **)&r->elems, &r->elems_cap, (size_t)n + 1, sizeof *r->elems)) {
        r->left_out++;
        return;
    }
    const uint8_t *e = b + 2 * ID_BYTES + 8;
    for (uint32_t i = 0; i < n; i++) r->elems[i] = jd_map_ref(r, be_load_u8(e + (size_t)i * ID_BYTES));
    r->wr->obj_array(r->s, id, SERIAL_TRACE_BASE, &r->out[k], 0, n, r->elems);
}

static void write_prim_array(struct jdr *r, const uint8_t *b)
{
    uint32_t id = jd_map_id(r, be_load_u8(b));
    if (!id) return;
    unsigned t = b[ID_BYTES + 8];
    int64_t k = r->prim_class[t];
    const struct hd_class *o = k >= 0 && r->out[k].info ? &r->out[k] : NULL;
    r->wr->prim_array(r->s, id, SERIAL_TRACE_BASE, o, 0, be_load_u4(b + ID_BYTES + 4), (int)t, b + ID_BYTES + 9);
}

static bool write_sub(struct jdr *r, const uint8_t *p)
{
    switch (p[0]) {
    case HD_CLASS_DUMP: break; /* written at the end, from r->out */
    case HD_INSTANCE_DUMP: write_instance(r, p + 1); break;
    case HD_OBJ_ARRAY_DUMP: write_obj_array(r, p + 1); break;
    case HD_PRIM_ARRAY_DUMP: write_prim_array(r, p + 1); break;
    default: write_root(r, p); break;
    }
    return true;
}

/*
 * Before the writing pass, when some class of the dump is not hprof's (one loaded and
 * unloaded while the JVM dumped, say): its CLASS DUMP, its instances and its arrays
 * cannot be written, and neither can an instance whose values do not fit its class.
 * Each is hidden, as the agent's own objects are, so that a reference to it reads as
 * null rather than naming an object the file does not hold.
 */
static bool hide_unwritable(struct jdr *r, const uint8_t *p)
{
    const uint8_t *b = p + 1;
    uint64_t id = be_load_u8(b);
    bool object = true, keep;
    switch (p[0]) {
    case HD_CLASS_DUMP:
        keep = set_class(r, id) >= 0;
        object = false;
        break;
    case HD_INSTANCE_DUMP: keep = instance_class(r, b) >= 0; break;
    case HD_OBJ_ARRAY_DUMP: keep = set_class(r, be_load_u8(b + ID_BYTES + 8)) >= 0; break;
    default: return true;
    }
    if (!keep && jd_map_id(r, id)) {
        jdr_hide(r, id);
        r->left_out += object;
    }
    return true;
}

static bool some_class_unset(const struct jdr *r)
{
    for (uint32_t k = 0; k < r->ncls; k++)
        if (!r->out[k].info) return true;
    return false;
}

/* The objects values referred to and the dump does not hold (see map_ref): Class
 * objects, written as such with their fields unset (the dump does not tell them). */
static void write_missing(struct jdr *r)
{
    const struct hd_class *c = r->class_class >= 0 && r->out[r->class_class].info ? &r->out[r->class_class] : NULL;
    if (!c || !r->missing.n || !grow_array((void **)&r->vals, &r->vals_cap, c->inst_bytes + 1, 1)) return;
    memset(r->vals, 0, c->inst_bytes);
    for (size_t i = 0; i < r->missing.cap; i++)
        if (r->missing.keys[i]) r->wr->instance(r->s, (uint32_t)r->missing.vals[i], SERIAL_TRACE_BASE, c, 0, r->vals);
}

/* hprof's serial of each of the dump's thread serials, through the thread objects. */
static void map_thread_serials(struct jdr *r)
{
    uint32_t max = 0;
    for (uint32_t i = 0; i < r->ntroots; i++)
        if (r->troots[i].serial > max && r->troots[i].serial < (1u << 22)) max = r->troots[i].serial;
    r->serial_of = calloc((size_t)max + 1, sizeof *r->serial_of);
    r->trace_of = calloc((size_t)max + 1, sizeof *r->trace_of);
    if (!r->serial_of || !r->trace_of) return;
    r->nserials = max + 1;
    for (uint32_t i = 0; i < r->ntroots; i++) {
        uint64_t ours, trace;
        if (r->troots[i].serial > max || !idmap_get(&r->thread_serial, r->troots[i].id, &ours)) continue;
        r->serial_of[r->troots[i].serial] = (uint32_t)ours;
        if (idmap_get(&r->thread_trace, r->troots[i].id, &trace)) r->trace_of[r->troots[i].serial] = (uint32_t)trace;
    }
}

uint64_t jdr_write(struct jdr *r, const struct heap_dump_writer *wr, struct hd_session *s, uint32_t base,
                   const uint64_t *monitors, uint32_t nmonitors)
{
    r->wr = wr;
    r->s = s;
    r->base = base;
    r->gref = 0;
    r->left_out = 0;
    r->last_cid = 0;
    r->last_k = -1;
    map_thread_serials(r);
    jd_lay_out_classes(r);
    if (some_class_unset(r)) jd_each_sub(r, hide_unwritable);
    wr->prepare(s, r->out, r->ncls);
    wr->begin(s, r->objects, 0);
    for (uint32_t i = 0; i < nmonitors; i++) {
        struct hd_root_info ri = {
            .kind = HD_ROOT_MONITOR_USED, .id = jd_map_id(r, monitors[i]), .trace_serial = SERIAL_TRACE_BASE};
        if (ri.id) wr->root(s, &ri);
    }
    r->discarding = r->release && r->discard_fd >= 0;
    jd_each_sub(r, write_sub);
    r->discarding = false;
    write_missing(r);
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->out[k].info) wr->class_dump(s, &r->out[k]);
    wr->end(s);
    return r->left_out;
}
