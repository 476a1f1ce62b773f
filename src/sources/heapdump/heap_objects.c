/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The record of the object the walk is visiting. The walk reports an object's references
 * together (HotSpot does): the reference to its class first, then its fields or elements.
 * So the record is begun when the walk moves to an object, filled from what it reports
 * (values big-endian at the places the class's layout gives), and handed to the writer
 * when the walk moves to the next one: the dump streams, and nothing is kept per object.
 *
 * Objects the walk never visits are read through JNI instead (walk_write_object_jni,
 * for heap_unvisited.c), into the same records.
 */
#include "sources/heapdump/heap_objects.h"

#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/heap_names.h"
#include "sources/heapdump/heap_classes.h"
#include "sources/heapdump/heap_roots.h"
#include "sources/host.h"
#include "util/buf.h"

/* n values of es bytes each, in the machine's order at src, big-endian to dst (which may
 * be src). One loop per size: byte arrays, most of a heap's array data, are one copy. */
static void to_big_endian(uint8_t *dst, const uint8_t *src, size_t n, unsigned es)
{
    switch (es) {
    case 2:
        for (size_t i = 0; i < n; i++, src += 2, dst += 2) {
            uint16_t v;
            memcpy(&v, src, 2);
            be_store_u2(dst, v);
        }
        break;
    case 4:
        for (size_t i = 0; i < n; i++, src += 4, dst += 4) {
            uint32_t v;
            memcpy(&v, src, 4);
            be_store_u4(dst, v);
        }
        break;
    case 8:
        for (size_t i = 0; i < n; i++, src += 8, dst += 8) {
            uint64_t v;
            memcpy(&v, src, 8);
            be_store_u8(dst, v);
        }
        break;
    default:
        if (dst != src) memmove(dst, src, n);
        break;
    }
}

/* A value of basic type `type` at p, big-endian. */
static void put_value(uint8_t *p, int type, jvalue v)
{
    switch (type) {
    case HD_BOOLEAN: p[0] = v.z; break;
    case HD_BYTE: p[0] = (uint8_t)v.b; break;
    case HD_CHAR: be_store_u2(p, v.c); break;
    case HD_SHORT: be_store_u2(p, (uint16_t)v.s); break;
    case HD_FLOAT: to_big_endian(p, (const uint8_t *)&v.f, 1, 4); break;
    case HD_LONG: be_store_u8(p, (uint64_t)v.j); break;
    case HD_DOUBLE: to_big_endian(p, (const uint8_t *)&v.d, 1, 8); break;
    default: be_store_u4(p, (uint32_t)v.i); break;
    }
}

/* Object array sizes (text sz=): fitted to what JVMTI says of a few small arrays. */
void walk_measure_arrays(struct walk *w)
{
    JNIEnv *jni = w->jni;
    jvmtiEnv *jvmti = w->h->jvmti;
    jlong sz[4] = {0, 0, 0, 0};
    jclass obj = (*jni)->FindClass(jni, "java/lang/Object");
    for (int n = 0; obj && n < 4 && !(*jni)->ExceptionCheck(jni); n++) { /* none after an OutOfMemoryError */
        jobjectArray arr = (*jni)->NewObjectArray(jni, n, obj, NULL);
        if (arr) {
            (*jvmti)->GetObjectSize(jvmti, arr, &sz[n]);
            (*jni)->DeleteLocalRef(jni, arr);
        }
    }
    if (obj) (*jni)->DeleteLocalRef(jni, obj);
    (*jni)->ExceptionClear(jni);
    w->arr_base = 16;
    w->ref_size = 4;
    for (int r = 4; r <= 8; r += 4)
        for (int base = 8; base <= 32; base++) {
            bool fits = true;
            for (int n = 0; n < 4; n++)
                if (((base + n * r + 7) & ~7) != sz[n]) fits = false;
            if (fits) {
                w->arr_base = base;
                w->ref_size = r;
                return;
            }
        }
}

/* Object `id` (of class c) is written. */
static void written(struct walk *w, uint32_t id, struct hd_class *c)
{
    if (walk_mark(w, id, MARK_WRITTEN)) walk_count_pending(w, c, -1);
}

/* Writes the object being visited (its record is complete). */
void walk_finish(struct walk *w)
{
    uint32_t id = (uint32_t)(w->cur >> 1);
    struct hd_class *c = w->cur_cls;
    switch (w->cur_kind) {
    case CUR_INSTANCE: w->wr->instance(w->s, id, walk_trace_of(w, id), c, c->obj_size, w->vals); break;
    case CUR_OBJ_ARRAY: {
        uint64_t size = ((uint64_t)w->arr_base + (uint64_t)w->cur_len * (uint64_t)w->ref_size + 7) & ~7ull;
        w->wr->obj_array(w->s, id, walk_trace_of(w, id), c, size, w->cur_len, w->elems);
        break;
    }
    case CUR_PRIM_ARRAY: /* no elements were reported: an empty array */
        w->wr->prim_array(w->s, id, walk_trace_of(w, id), c, 16, 0, c->elem_type, NULL);
        break;
    default: break;
    }
    written(w, id, c);
    w->done = w->cur;
    w->cur = 0;
    w->cur_kind = CUR_NONE;
}

/* Begins the record of an array of class c tagged `tag` (its length in the tag). */
static void begin_array(struct walk *w, struct hd_class *c, jlong tag)
{
    uint32_t len = (uint32_t)((uint64_t)tag >> TAG_LEN_SHIFT);
    w->cur_len = len;
    if (c->elem_type != HD_OBJECT) {
        w->cur_kind = CUR_PRIM_ARRAY;
        return;
    }
    if (!grow_array((void **)&w->elems, &w->elems_cap, len ? len : 1, sizeof *w->elems)) {
        w->oom = true;
        return;
    }
    memset(w->elems, 0, (size_t)len * sizeof *w->elems);
    w->cur_kind = CUR_OBJ_ARRAY;
}

/* The walk moved to object `tag` (of class `class_tag`): start its record. */
void walk_begin(struct walk *w, jlong tag, jlong class_tag)
{
    jlong id = tag_is_class(tag) ? tag : tag & TAG_ID_MASK;
    if (w->cur == id) return;
    if (w->cur_kind != CUR_NONE) walk_finish(w);
    w->cur = id;
    w->cur_kind = CUR_NONE;
    if (id == w->done) return; /* more of an object already written: ignored */
    if (tag_is_class(tag)) {
        w->cur_cls = walk_class_of_tag(w, tag);
        w->cur_kind = w->cur_cls ? CUR_CLASS : CUR_NONE;
        return;
    }
    struct hd_class *c = walk_class_of_tag(w, class_tag);
    w->cur_cls = c;
    if (!c || !tag_is_object(tag)) return; /* of a class the dump does not know */
    if (c->is_array) {
        begin_array(w, c, tag);
        return;
    }
    if (!grow_array((void **)&w->vals, &w->vals_cap, c->inst_bytes ? c->inst_bytes : 1, 1)) {
        w->oom = true;
        return;
    }
    memset(w->vals, 0, c->inst_bytes);
    w->cur_kind = CUR_INSTANCE;
}

/* A reference from the object being visited to object `id`. (`info` is read only for
 * the kinds that have one.) */
void walk_reference(struct walk *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, uint32_t id)
{
    struct hd_class *c = w->cur_cls;
    if (w->cur_kind == CUR_INSTANCE && kind == JVMTI_HEAP_REFERENCE_FIELD) {
        jint i = info->field.index;
        if (i >= 0 && (uint32_t)i < c->nslots && c->inst_slot_off[i] >= 0 && c->inst_slot_type[i] == HD_OBJECT)
            be_store_u4(w->vals + c->inst_slot_off[i], id);
    } else if (w->cur_kind == CUR_OBJ_ARRAY && kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT) {
        jint i = info->array.index;
        if (i >= 0 && (uint32_t)i < w->cur_len) w->elems[i] = id;
    } else if (w->cur_kind == CUR_CLASS) {
        switch (kind) {
        case JVMTI_HEAP_REFERENCE_STATIC_FIELD: {
            jint i = info->field.index;
            if (i >= 0 && (uint32_t)i < c->nstatic_slots && c->static_slot_off[i] >= 0 &&
                c->static_slot_type[i] == HD_OBJECT)
                be_store_u4(c->static_values + c->static_slot_off[i], id);
            break;
        }
        case JVMTI_HEAP_REFERENCE_CLASS_LOADER: c->loader_id = id; break;
        case JVMTI_HEAP_REFERENCE_SIGNERS: c->signers_id = id; break;
        case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN: c->domain_id = id; break;
        default: break;
        }
    }
}

/* A primitive field of the object being visited: JVMTI field index `i`. */
void walk_primitive(struct walk *w, jvmtiHeapReferenceKind kind, jint i, jvmtiPrimitiveType type, jvalue value)
{
    struct hd_class *c = w->cur_cls;
    int t = (int)hd_type_of((char)type);
    if (w->cur_kind == CUR_INSTANCE && kind == JVMTI_HEAP_REFERENCE_FIELD) {
        if (i >= 0 && (uint32_t)i < c->nslots && c->inst_slot_off[i] >= 0 && c->inst_slot_type[i] == t)
            put_value(w->vals + c->inst_slot_off[i], t, value);
    } else if (w->cur_kind == CUR_CLASS && kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) {
        if (i >= 0 && (uint32_t)i < c->nstatic_slots && c->static_slot_off[i] >= 0 && c->static_slot_type[i] == t)
            put_value(c->static_values + c->static_slot_off[i], t, value);
    }
}

/* The elements of the primitive array being visited: its whole record, written now. */
void walk_prim_array(struct walk *w, jlong size, jint count, jvmtiPrimitiveType type, const void *elements)
{
    if (w->cur_kind != CUR_PRIM_ARRAY) return;
    int t = (int)hd_type_of((char)type);
    unsigned es = hd_type_size(t);
    size_t n = (size_t)(count > 0 ? count : 0);
    if (!grow_array((void **)&w->pbuf, &w->pbuf_cap, n * es + 1, 1)) {
        w->oom = true;
        return;
    }
    to_big_endian(w->pbuf, elements, n, es);
    uint32_t id = (uint32_t)(w->cur >> 1);
    w->wr->prim_array(w->s, id, walk_trace_of(w, id), w->cur_cls, (uint64_t)size, (uint32_t)n, t, w->pbuf);
    written(w, id, w->cur_cls);
    w->cur_kind = CUR_NONE;
    w->done = w->cur;
}

/* ---- objects read through JNI ---- */

static jvalue read_field(JNIEnv *jni, jobject o, jfieldID f, int type)
{
    jvalue v;
    memset(&v, 0, sizeof v);
    switch (type) {
    case HD_BOOLEAN: v.z = (*jni)->GetBooleanField(jni, o, f); break;
    case HD_BYTE: v.b = (*jni)->GetByteField(jni, o, f); break;
    case HD_CHAR: v.c = (*jni)->GetCharField(jni, o, f); break;
    case HD_SHORT: v.s = (*jni)->GetShortField(jni, o, f); break;
    case HD_INT: v.i = (*jni)->GetIntField(jni, o, f); break;
    case HD_LONG: v.j = (*jni)->GetLongField(jni, o, f); break;
    case HD_FLOAT: v.f = (*jni)->GetFloatField(jni, o, f); break;
    case HD_DOUBLE: v.d = (*jni)->GetDoubleField(jni, o, f); break;
    default: break;
    }
    return v;
}

static void write_prim_array_jni(struct walk *w, jobject o, uint32_t id, struct hd_class *c, uint64_t size)
{
    JNIEnv *jni = w->jni;
    jsize n = (*jni)->GetArrayLength(jni, o);
    unsigned es = hd_type_size(c->elem_type);
    if (!grow_array((void **)&w->pbuf, &w->pbuf_cap, (size_t)n * es + 1, 1)) {
        w->oom = true;
        return;
    }
    void *p = w->pbuf;
    switch (c->elem_type) {
    case HD_BOOLEAN: (*jni)->GetBooleanArrayRegion(jni, o, 0, n, p); break;
    case HD_BYTE: (*jni)->GetByteArrayRegion(jni, o, 0, n, p); break;
    case HD_CHAR: (*jni)->GetCharArrayRegion(jni, o, 0, n, p); break;
    case HD_SHORT: (*jni)->GetShortArrayRegion(jni, o, 0, n, p); break;
    case HD_INT: (*jni)->GetIntArrayRegion(jni, o, 0, n, p); break;
    case HD_LONG: (*jni)->GetLongArrayRegion(jni, o, 0, n, p); break;
    case HD_FLOAT: (*jni)->GetFloatArrayRegion(jni, o, 0, n, p); break;
    case HD_DOUBLE: (*jni)->GetDoubleArrayRegion(jni, o, 0, n, p); break;
    default: break;
    }
    to_big_endian(w->pbuf, w->pbuf, (size_t)n, es);
    w->wr->prim_array(w->s, id, walk_trace_of(w, id), c, size, (uint32_t)n, c->elem_type, w->pbuf);
}

static void write_obj_array_jni(struct walk *w, jobject o, uint32_t id, struct hd_class *c, uint64_t size)
{
    JNIEnv *jni = w->jni;
    jsize n = (*jni)->GetArrayLength(jni, o);
    if (!grow_array((void **)&w->elems, &w->elems_cap, (size_t)n + 1, sizeof *w->elems)) {
        w->oom = true;
        return;
    }
    for (jsize i = 0; i < n; i++) {
        jobject e = (*jni)->GetObjectArrayElement(jni, o, i);
        w->elems[i] = walk_id_of_object(w, e);
        if (e) (*jni)->DeleteLocalRef(jni, e);
    }
    w->wr->obj_array(w->s, id, walk_trace_of(w, id), c, size, (uint32_t)n, w->elems);
}

static void write_instance_jni(struct walk *w, jobject o, uint32_t id, struct hd_class *c, uint64_t size)
{
    JNIEnv *jni = w->jni;
    if (!grow_array((void **)&w->vals, &w->vals_cap, (size_t)c->inst_bytes + 1, 1)) {
        w->oom = true;
        return;
    }
    memset(w->vals, 0, c->inst_bytes);
    for (struct hd_class *k = c; k; k = k->super) {
        struct cls_extra *x = &w->ext[k - w->cls];
        uint32_t start = c->inst_bytes - k->inst_bytes;
        for (uint32_t j = 0; j < x->nall && x->fids; j++) {
            if (x->all_static[j]) continue;
            uint8_t *p = w->vals + start + x->all_off[j];
            if (x->all_type[j] == HD_OBJECT) {
                jobject v = (*jni)->GetObjectField(jni, o, x->fids[j]);
                be_store_u4(p, walk_id_of_object(w, v));
                if (v) (*jni)->DeleteLocalRef(jni, v);
            } else {
                put_value(p, x->all_type[j], read_field(jni, o, x->fids[j], x->all_type[j]));
            }
        }
    }
    w->wr->instance(w->s, id, walk_trace_of(w, id), c, size, w->vals);
}

/* Writes object o, tagged `tag`, from what JNI reads of it. */
void walk_write_object_jni(struct walk *w, jobject o, jlong tag)
{
    JNIEnv *jni = w->jni;
    uint32_t id = tag_object_id(tag);
    jclass k = (*jni)->GetObjectClass(jni, o);
    struct hd_class *c = k ? walk_class_of_ref(w, k) : NULL;
    if (k) (*jni)->DeleteLocalRef(jni, k);
    written(w, id, c);
    /* A class loaded while the dump ran has no CLASS DUMP: the object is written as a plain
     * java.lang.Object, so that what refers to it still resolves. */
    if (!c) c = w->object_class;
    if (!c) return;
    jlong size = 0;
    (*w->h->jvmti)->GetObjectSize(w->h->jvmti, o, &size);
    if (c->is_array && c->elem_type != HD_OBJECT)
        write_prim_array_jni(w, o, id, c, (uint64_t)size);
    else if (c->is_array)
        write_obj_array_jni(w, o, id, c, (uint64_t)size);
    else
        write_instance_jni(w, o, id, c, (uint64_t)size);
}
