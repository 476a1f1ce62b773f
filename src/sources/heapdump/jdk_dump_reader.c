/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JDK's heap dump, read and rewritten in hprof's terms (see jdk_dump_reader.h):
 * pass 1 (jdr_open) and what the caller then says of the dump's objects.
 *
 * Pass 1 checks every record's bounds and indexes what pass 2 (jdk_dump_rewrite.c)
 * needs: the names (STRING), the classes (LOAD CLASS, CLASS DUMP), the thread roots, the
 * marker, and which 1 MiB chunks of the address space hold objects.
 *
 * New object IDs need no table per object: an object's ID is base + (rank of its chunk
 * among the used ones) * 2^17 + (its offset in the chunk) / 8, objects being 8-byte
 * aligned. A 1 GiB heap needs about 2^27 IDs. Class mirrors and thread objects keep the
 * IDs hprof gave them (the `special` table); chunks holding one are flagged so that the
 * table is looked in only for those.
 */
#include "sources/heapdump/jdk_dump_reader.h"

#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/jdk_dump_internal.h"
#include "tables/classes.h"
#include "util/buf.h"
#include "util/hprof_format.h"

/* ---- pass 1: the index ---- */

static struct cls *class_for(struct jdr *r, uint64_t id)
{
    uint64_t k;
    if (idmap_get(&r->class_ix, id, &k)) return &r->cls[k];
    if (!grow_array((void **)&r->cls, &r->cls_cap, r->ncls + 1, sizeof *r->cls)) return NULL;
    k = r->ncls;
    if (!idmap_put(&r->class_ix, id, k)) return NULL;
    r->ncls++;
    memset(&r->cls[k], 0, sizeof r->cls[k]);
    r->cls[k].id = id;
    r->cls[k].super = -1;
    return &r->cls[k];
}

#define CHUNK_BITS_BYTES ((size_t)1 << (SLOT_BITS - 3))

static bool mark_object(struct jdr *r, uint64_t id)
{
    if (!id || (id & 7) || id >> ADDR_BITS) return jd_fail(r, "an object ID that is not an 8-byte aligned address");
    uint64_t c = id >> CHUNK_SHIFT;
    if (!r->mark_bits || c != r->mark_chunk) {
        uint64_t k;
        if (!idmap_get(&r->chunk_ix, c + 1, &k)) {
            if (!grow_array((void **)&r->bits, &r->bits_cap, r->nbits + 1, sizeof *r->bits))
                return jd_fail(r, "out of memory");
            k = r->nbits;
            r->bits[k] = calloc(CHUNK_BITS_BYTES, 1);
            if (!r->bits[k] || !idmap_put(&r->chunk_ix, c + 1, k)) return jd_fail(r, "out of memory");
            r->nbits++;
            if (r->nbits == 1 || c < r->lo) r->lo = c;
            if (r->nbits == 1 || c > r->hi) r->hi = c;
        }
        r->mark_chunk = c;
        r->mark_bits = r->bits[k];
    }
    uint32_t slot = (uint32_t)((id & ((1u << CHUNK_SHIFT) - 1)) >> 3);
    r->mark_bits[slot >> 3] |= (uint8_t)(1u << (slot & 7));
    r->objects++;
    return true;
}

static void note_marker(struct jdr *r, const uint8_t *b, const uint8_t *elems, uint32_t n, unsigned type)
{
    if (type == HD_LONG && n == 4 && be_load_u8(elems) == r->nonce[0] && be_load_u8(elems + 8) == r->nonce[1])
        r->nonce_id = be_load_u8(b);
    if (type == HD_OBJECT && n == r->marker_len && n > 0 && r->ncand < MAX_CANDIDATES) r->cand[r->ncand++] = b;
}

/* What pass 2 needs of the (well-formed) sub-record at p. */
static bool index_sub(struct jdr *r, const uint8_t *p)
{
    const uint8_t *b = p + 1;
    switch (p[0]) {
    case HD_ROOT_THREAD_OBJECT:
        if (!grow_array((void **)&r->troots, &r->troots_cap, r->ntroots + 1, sizeof *r->troots))
            return jd_fail(r, "out of memory");
        r->troots[r->ntroots].id = be_load_u8(b);
        r->troots[r->ntroots].serial = be_load_u4(b + ID_BYTES);
        r->troots[r->ntroots++].trace = be_load_u4(b + ID_BYTES + 4);
        return true;
    case HD_CLASS_DUMP: {
        struct cls *c = class_for(r, be_load_u8(b));
        if (!c) return jd_fail(r, "out of memory");
        c->dump = b + ID_BYTES;
        return mark_object(r, c->id);
    }
    case HD_INSTANCE_DUMP: return mark_object(r, be_load_u8(b));
    case HD_OBJ_ARRAY_DUMP:
        note_marker(r, b, b + 2 * ID_BYTES + 8, be_load_u4(b + ID_BYTES + 4), HD_OBJECT);
        return mark_object(r, be_load_u8(b));
    case HD_PRIM_ARRAY_DUMP:
        note_marker(r, b, b + ID_BYTES + 9, be_load_u4(b + ID_BYTES + 4), b[ID_BYTES + 8]);
        return mark_object(r, be_load_u8(b));
    default: return true;
    }
}

static bool index_records(struct jdr *r)
{
    const uint8_t *p = r->data, *end = r->data + r->len;
    const uint8_t *nul = memchr(p, 0, r->len < 32 ? r->len : 32);
    if (!nul || r->len < 17 || memcmp(p, "JAVA PROFILE 1.0.", 17) != 0) return jd_fail(r, "not an HPROF file");
    p = nul + 1;
    if (end - p < 12) return jd_fail(r, "the header is cut short");
    if (be_load_u4(p) != ID_BYTES) return jd_fail(r, "its IDs are not 8 bytes");
    p += 12;
    r->body = (size_t)(p - r->data);
    while (p < end) {
        const uint8_t *rec = p, *b;
        unsigned tag;
        uint32_t n;
        if (!jd_next_record(r, &p, end, &tag, &b, &n)) return false;
        if (tag == TAG_STRING) {
            if (n < ID_BYTES || !idmap_put(&r->strings, be_load_u8(b), (uint64_t)(rec - r->data)))
                return jd_fail(r, "a bad STRING record");
        } else if (tag == TAG_LOAD_CLASS) {
            struct cls *c = n >= 8 + 2 * ID_BYTES ? class_for(r, be_load_u8(b + 4)) : NULL;
            if (!c) return jd_fail(r, "a bad LOAD CLASS record");
            c->name_id = be_load_u8(b + 8 + ID_BYTES);
            if (be_load_u4(b)) idmap_put(&r->class_serial, be_load_u4(b), (uint64_t)(c - r->cls));
        } else if (tag == TAG_STACK_TRACE && n >= 12 && (n - 12) / ID_BYTES >= be_load_u4(b + 8)) {
            if (be_load_u4(b)) idmap_put(&r->stack_traces, be_load_u4(b), (uint64_t)(rec - r->data));
        } else if (tag == TAG_STACK_FRAME && n >= 4 * ID_BYTES + 8) {
            idmap_put(&r->stack_frames, be_load_u8(b), (uint64_t)(rec - r->data));
        }
    }
    return jd_each_sub(r, index_sub);
}

/* The dump's object `id` keeps hprof's ID `ours`. */
static void name_special(struct jdr *r, uint64_t id, uint32_t ours)
{
    uint64_t c = id >> CHUNK_SHIFT;
    if (!r->rank || c < r->lo || c > r->hi || !r->rank[c - r->lo]) return;
    if (idmap_put(&r->special, id, ours)) r->rank[c - r->lo] |= RANK_SPECIAL;
}

/* Ranks the used chunks, lowest address first: bits[] by rank, rank[] by chunk. */
static bool rank_chunks(struct jdr *r)
{
    uint64_t span = r->hi - r->lo + 1;
    if (span > MAX_SPAN_CHUNKS) return jd_fail(r, "its objects are spread over too wide a range of addresses");
    r->rank = calloc((size_t)span, sizeof *r->rank);
    uint8_t **by_rank = calloc(r->nbits, sizeof *by_rank);
    if (!r->rank || !by_rank) {
        free(by_rank);
        return jd_fail(r, "out of memory");
    }
    uint64_t k;
    for (uint64_t c = r->lo; c <= r->hi; c++)
        if (idmap_get(&r->chunk_ix, c + 1, &k)) {
            by_rank[r->nused] = r->bits[k];
            r->rank[c - r->lo] = ++r->nused;
        }
    free(r->bits);
    r->bits = by_rank;
    return true;
}

/* The marker: the Object[] of the caller's length whose element 0 is the long[] that
 * holds the nonce. Both are left out of what is written. */
static void find_marker(struct jdr *r)
{
    for (uint32_t i = 0; i < r->ncand && r->nonce_id; i++)
        if (be_load_u8(r->cand[i] + 2 * ID_BYTES + 8) == r->nonce_id) {
            r->marker_id = be_load_u8(r->cand[i]);
            r->marker_elems = r->cand[i] + 2 * ID_BYTES + 8;
        }
    if (r->marker_id) {
        name_special(r, r->marker_id, 0);
        name_special(r, r->nonce_id, 0);
    }
}

/* The classes pass 2 needs by name: java/lang/Object, java/lang/Class, and the arrays
 * of each basic type. */
static void find_known_classes(struct jdr *r)
{
    r->object_class = r->class_class = -1;
    for (int t = 0; t < 12; t++) r->prim_class[t] = -1;
    for (uint32_t k = 0; k < r->ncls; k++) {
        const char *n = r->cls[k].name;
        if (!n) continue;
        if (strcmp(n, "java/lang/Object") == 0) r->object_class = k;
        if (strcmp(n, "java/lang/Class") == 0) r->class_class = k;
        if (n[0] == '[' && n[1] && !n[2] && n[1] != 'L' && n[1] != '[') r->prim_class[hd_type_of(n[1])] = k;
    }
}

static bool finish_index(struct jdr *r)
{
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->cls[k].name_id && !(r->cls[k].name = jd_string(r, r->cls[k].name_id)))
            return jd_fail(r, "out of memory");
    if (r->nbits && !rank_chunks(r)) return false;
    find_marker(r);
    find_known_classes(r);
    r->out = calloc(r->ncls ? r->ncls : 1, sizeof *r->out);
    return r->out ? true : jd_fail(r, "out of memory");
}

struct jdr *jdr_open(const uint8_t *data, size_t len, bool mapped, const uint64_t nonce[2], uint32_t marker_len,
                     const char **why)
{
    struct jdr *r = calloc(1, sizeof *r);
    if (!r) {
        *why = "out of memory";
        return NULL;
    }
    r->data = data;
    r->len = len;
    r->release = mapped;
    r->discard_fd = -1;
    r->nonce[0] = nonce[0];
    r->nonce[1] = nonce[1];
    r->marker_len = marker_len;
    if (!index_records(r) || !finish_index(r)) {
        *why = r->why;
        jdr_close(r);
        return NULL;
    }
    return r;
}

void jdr_discard_behind(struct jdr *r, int fd) { r->discard_fd = fd; }

uint64_t jdr_marker_element(const struct jdr *r, uint32_t i)
{
    return r->marker_elems && i < r->marker_len ? be_load_u8(r->marker_elems + (size_t)i * ID_BYTES) : 0;
}

uint32_t jdr_class_count(const struct jdr *r) { return r->ncls; }
uint64_t jdr_class_id(const struct jdr *r, uint32_t k) { return k < r->ncls ? r->cls[k].id : 0; }
const char *jdr_class_name(const struct jdr *r, uint32_t k) { return k < r->ncls ? r->cls[k].name : NULL; }
uint64_t jdr_ids_needed(const struct jdr *r) { return (uint64_t)r->nused << SLOT_BITS; }

void jdr_set_class(struct jdr *r, uint32_t k, struct class_info *info, const struct jdr_order *order)
{
    if (k >= r->ncls) return;
    r->out[k].info = info;
    r->cls[k].order = order;
    name_special(r, r->cls[k].id, info->object_id);
}

bool jdr_class_is_set(const struct jdr *r, uint32_t k) { return k < r->ncls && r->out[k].info; }
struct class_info *jdr_class_info(const struct jdr *r, uint32_t k) { return k < r->ncls ? r->out[k].info : NULL; }

void jdr_hide(struct jdr *r, uint64_t id) { name_special(r, id, 0); }

void jdr_set_thread(struct jdr *r, uint64_t id, uint32_t object_id, uint32_t serial)
{
    name_special(r, id, object_id);
    idmap_put(&r->thread_serial, id, serial);
}

void jdr_set_thread_trace(struct jdr *r, uint64_t id, uint32_t trace_serial)
{
    idmap_put(&r->thread_trace, id, trace_serial);
}

/* The JDK's STACK TRACE record for the thread whose object is `id`: its body, NULL if
 * none. */
static const uint8_t *thread_trace_record(const struct jdr *r, uint64_t id, uint32_t *nframes)
{
    uint64_t at = 0;
    uint32_t i = 0;
    while (i < r->ntroots && r->troots[i].id != id) i++;
    if (i == r->ntroots || !idmap_get(&r->stack_traces, r->troots[i].trace, &at)) return NULL;
    const uint8_t *b = r->data + at + 9;
    *nframes = be_load_u4(b + 8);
    return b + 12;
}

uint32_t jdr_thread_frames(const struct jdr *r, uint64_t id, struct jdr_frame *out, uint32_t max)
{
    uint32_t n = 0;
    const uint8_t *ids = thread_trace_record(r, id, &n);
    if (!ids) return 0;
    for (uint32_t i = 0; i < n && i < max; i++) {
        uint64_t at;
        struct jdr_frame *f = &out[i];
        memset(f, 0, sizeof *f);
        f->class_k = UINT32_MAX;
        if (!idmap_get(&r->stack_frames, be_load_u8(ids + (size_t)i * ID_BYTES), &at)) continue;
        const uint8_t *b = r->data + at + 9;
        uint64_t k;
        f->method = jd_string(r, be_load_u8(b + ID_BYTES));
        f->signature = jd_string(r, be_load_u8(b + 2 * ID_BYTES));
        if (idmap_get(&r->class_serial, be_load_u4(b + 4 * ID_BYTES), &k)) f->class_k = (uint32_t)k;
        f->line = (int32_t)be_load_u4(b + 4 * ID_BYTES + 4);
    }
    return n;
}

void jdr_frames_free(struct jdr_frame *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(f[i].method);
        free(f[i].signature);
    }
}

void jdr_close(struct jdr *r)
{
    if (!r) return;
    for (uint32_t k = 0; k < r->ncls; k++) {
        free(r->cls[k].name);
        free(r->cls[k].own);
        free(r->cls[k].ops);
        if (r->out) hd_class_free(&r->out[k]);
    }
    free(r->cls);
    free(r->out);
    free(r->troots);
    free(r->serial_of);
    for (uint32_t i = 0; r->bits && i < r->nbits; i++) free(r->bits[i]);
    free(r->bits);
    free(r->rank);
    free(r->vals);
    free(r->elems);
    idmap_free(&r->strings);
    idmap_free(&r->class_ix);
    idmap_free(&r->special);
    idmap_free(&r->thread_serial);
    idmap_free(&r->thread_trace);
    idmap_free(&r->stack_traces);
    idmap_free(&r->stack_frames);
    idmap_free(&r->class_serial);
    free(r->trace_of);
    idmap_free(&r->chunk_ix);
    idmap_free(&r->missing);
    free(r);
}

/* ---- the new IDs ---- */

/* Index of the dump's class with this ID, -1 if none. */
int64_t jd_class_index(const struct jdr *r, uint64_t id)
{
    uint64_t k;
    return id && idmap_get(&r->class_ix, id, &k) ? (int64_t)k : -1;
}
