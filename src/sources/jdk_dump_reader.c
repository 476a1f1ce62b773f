/*
 * The JDK's heap dump, read and rewritten in hprof's terms (see jdk_dump_reader.h).
 *
 * Pass 1 (jdr_open) checks every record's bounds and indexes what pass 2 needs: the
 * names (UTF8), the classes (LOAD CLASS, CLASS DUMP), the thread roots, the marker, and
 * which 1 MiB chunks of the address space hold objects. Pass 2 (jdr_write) writes.
 *
 * New object IDs need no table per object: an object's ID is base + (rank of its chunk
 * among the used ones) * 2^17 + (its offset in the chunk) / 8, objects being 8-byte
 * aligned. A 1 GiB heap needs about 2^27 IDs. Class mirrors and thread objects keep the
 * IDs hprof gave them (the `special` table); chunks holding one are flagged so that the
 * table is looked in only for those.
 */
#include "sources/jdk_dump_reader.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tables/classes.h"
#include "util/buf.h"
#include "tables/ids.h"
#include "util/hprof_format.h"

#define ID_BYTES 8                          /* the JDK's IDs; the only size read */
#define CHUNK_SHIFT 20                      /* 1 MiB chunks */
#define SLOT_BITS (CHUNK_SHIFT - 3)         /* 8-byte slots per chunk: 2^17 */
#define ADDR_BITS 48                        /* user-space addresses */
#define MAX_SPAN_CHUNKS (1u << 24)          /* 16 TiB between the lowest and highest object */
#define RANK_SPECIAL 0x80000000u            /* chunk holds a class mirror or thread object */
#define MAX_CANDIDATES 64

/* A map from 64-bit IDs (never 0) to 64-bit values, open addressing. */
struct idmap {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap, n;
};

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    return i;
}

static bool idmap_put(struct idmap *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct idmap g = {.cap = m->cap ? m->cap * 2 : 1024};
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = idmap_slot(&g, m->keys[i]);
                g.keys[j] = m->keys[i];
                g.vals[j] = m->vals[i];
                g.n++;
            }
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    size_t i = idmap_slot(m, key);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

static bool idmap_get(const struct idmap *m, uint64_t key, uint64_t *val)
{
    if (!m->cap || !key) return false;
    size_t i = idmap_slot(m, key);
    if (!m->keys[i]) return false;
    *val = m->vals[i];
    return true;
}

static void idmap_free(struct idmap *m)
{
    free(m->keys);
    free(m->vals);
}

/* One step of turning the JDK's instance values into hprof's: a value at `src`. */
struct op {
    uint32_t src;
    uint8_t type;
};

struct cls {
    uint64_t id;
    uint64_t name_id;                /* LOAD CLASS: its name's STRING ID */
    char *name;                      /* that name, NUL-terminated */
    const uint8_t *dump;             /* CLASS DUMP body (after the class ID), or NULL */
    const struct jdr_order *order;
    int64_t super;                   /* index of its super class, -1 none */
    struct op *own;                  /* own instance values, hprof's order, offsets from */
    uint32_t nown, own_src;          /* the start of its own part (own_src bytes) */
    struct op *ops;                  /* a whole instance's values, built at first use */
    uint32_t nops, src_bytes;
    int ops_state;                   /* 0 not built, 1 built, -1 cannot be */
};

struct jdr {
    const uint8_t *data;
    size_t len;
    size_t body;                     /* where the records start */
    bool release;                    /* madvise pages done with (jdr_open's `mapped`) */
    int discard_fd;                  /* >= 0: free the file's blocks behind the writing pass */
    bool discarding;                 /* in that pass */
    const char *why;
    struct idmap strings;            /* STRING ID -> offset of its record */
    struct idmap class_ix;           /* class object ID -> index in cls */
    struct cls *cls;
    struct hd_class *out;            /* what the writer sees, index for index */
    uint32_t ncls;
    size_t cls_cap;
    struct { uint64_t id; uint32_t serial; } *troots;    /* ROOT THREAD OBJECT: the JDK's serials */
    uint32_t ntroots;
    size_t troots_cap;
    struct idmap special;            /* dump ID -> hprof's ID (classes, threads) */
    struct idmap thread_serial;      /* dump thread object ID -> hprof's serial */
    uint32_t *serial_of;             /* the JDK's thread serial -> hprof's */
    uint32_t nserials;
    /* chunks */
    struct idmap chunk_ix;           /* chunk number (address >> 20) -> index in bits */
    uint8_t **bits;                  /* per used chunk: a bit per 8-byte slot, set where an
                                        object of the dump starts; by rank once ranked */
    uint32_t nbits;
    size_t bits_cap;
    uint64_t mark_chunk;             /* the chunk marked last, and its bits */
    uint8_t *mark_bits;
    uint64_t lo, hi;                 /* lowest and highest used chunk */
    uint32_t *rank;                  /* [chunk - lo]: 1 + rank, 0 unused; | RANK_SPECIAL */
    uint32_t nused;
    uint32_t base;
    uint32_t gref;                   /* JNI global roots numbered */
    int64_t prim_class[12];          /* class of the arrays of each basic type, -1 none */
    int64_t object_class;            /* java/lang/Object, -1 none */
    uint64_t last_cid;               /* the class looked up last, and its index */
    int64_t last_k;
    /* marker */
    uint64_t nonce[2];
    uint32_t marker_len;
    uint64_t nonce_id, marker_id;
    const uint8_t *marker_elems;
    const uint8_t *cand[MAX_CANDIDATES];
    uint32_t ncand;
    uint64_t objects, left_out;
    struct idmap missing;            /* objects referred to and not in the dump */
    int64_t class_class;             /* java/lang/Class, -1 none */
    /* pass 2: where it writes, and its buffers */
    const struct heap_dump_writer *wr;
    struct hd_session *s;
    uint8_t *vals;
    size_t vals_cap;
    uint32_t *elems;
    size_t elems_cap;
};

/* Size of a value of basic type t in the JDK's dump; 0 for a type that is none. */
static unsigned src_size(unsigned t)
{
    switch (t) {
    case HD_OBJECT: return ID_BYTES;
    case HD_BOOLEAN: case HD_BYTE: return 1;
    case HD_CHAR: case HD_SHORT: return 2;
    case HD_FLOAT: case HD_INT: return 4;
    case HD_DOUBLE: case HD_LONG: return 8;
    default: return 0;
    }
}

static bool fail(struct jdr *r, const char *why)
{
    if (!r->why) r->why = why;
    return false;
}


/* ---- the shape of records ---- */

/* Bytes of a CLASS DUMP body from p (after its class ID); 0 when it passes `end`. */
static size_t class_dump_size(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p + 4 + 6 * ID_BYTES + 4;
    if (q + 2 > end) return 0;
    unsigned n = be_load_u2(q);
    q += 2;
    for (unsigned i = 0; i < n; i++) {                   /* constant pool: u2 index, type, value */
        if (q + 3 > end) return 0;
        unsigned sz = src_size(q[2]);
        if (!sz || q + 3 + sz > end) return 0;
        q += 3 + sz;
    }
    if (q + 2 > end) return 0;
    n = be_load_u2(q);
    q += 2;
    for (unsigned i = 0; i < n; i++) {                   /* statics: name, type, value */
        if (q + ID_BYTES + 1 > end) return 0;
        unsigned sz = src_size(q[ID_BYTES]);
        if (!sz || q + ID_BYTES + 1 + sz > end) return 0;
        q += ID_BYTES + 1 + sz;
    }
    if (q + 2 > end) return 0;
    n = be_load_u2(q);
    q += 2;
    if ((size_t)(end - q) < (size_t)n * (ID_BYTES + 1)) return 0;
    for (unsigned i = 0; i < n; i++)                     /* instance fields: name, type */
        if (!src_size(q[i * (ID_BYTES + 1) + ID_BYTES])) return 0;
    q += (size_t)n * (ID_BYTES + 1);
    return (size_t)(q - p);
}

/* Bytes of the sub-record at p; 0 when it cannot be read or passes `end`. */
static size_t sub_size(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *b = p + 1;
    uint64_t avail = (uint64_t)(end - b), need, n;
    switch (p[0]) {
    case HD_ROOT_UNKNOWN: case HD_ROOT_STICKY_CLASS: case HD_ROOT_MONITOR_USED: need = ID_BYTES; break;
    case HD_ROOT_JNI_GLOBAL: need = 2 * ID_BYTES; break;
    case HD_ROOT_JNI_LOCAL: case HD_ROOT_JAVA_FRAME: case HD_ROOT_THREAD_OBJECT: need = ID_BYTES + 8; break;
    case HD_ROOT_NATIVE_STACK: case HD_ROOT_THREAD_BLOCK: need = ID_BYTES + 4; break;
    case HD_CLASS_DUMP:
        if (avail < ID_BYTES) return 0;
        need = class_dump_size(b + ID_BYTES, end);
        if (!need) return 0;
        need += ID_BYTES;
        break;
    case HD_INSTANCE_DUMP:
        if (avail < 2 * ID_BYTES + 8) return 0;
        need = 2 * ID_BYTES + 8 + (uint64_t)be_load_u4(b + 2 * ID_BYTES + 4);
        break;
    case HD_OBJ_ARRAY_DUMP:
        if (avail < 2 * ID_BYTES + 8) return 0;
        need = 2 * ID_BYTES + 8 + (uint64_t)be_load_u4(b + ID_BYTES + 4) * ID_BYTES;
        break;
    case HD_PRIM_ARRAY_DUMP: {
        if (avail < ID_BYTES + 9) return 0;
        unsigned t = b[ID_BYTES + 8], sz = src_size(t);
        if (!sz || t == HD_OBJECT) return 0;
        n = be_load_u4(b + ID_BYTES + 4);
        need = ID_BYTES + 9 + n * sz;
        break;
    }
    default: return 0;
    }
    return need <= avail ? (size_t)(1 + need) : 0;
}

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
    if (!id || (id & 7) || id >> ADDR_BITS) return fail(r, "an object ID that is not an 8-byte aligned address");
    uint64_t c = id >> CHUNK_SHIFT;
    if (!r->mark_bits || c != r->mark_chunk) {
        uint64_t k;
        if (!idmap_get(&r->chunk_ix, c + 1, &k)) {
            if (!grow_array((void **)&r->bits, &r->bits_cap, r->nbits + 1, sizeof *r->bits)) return fail(r, "out of memory");
            k = r->nbits;
            r->bits[k] = calloc(CHUNK_BITS_BYTES, 1);
            if (!r->bits[k] || !idmap_put(&r->chunk_ix, c + 1, k)) return fail(r, "out of memory");
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
        if (!grow_array((void **)&r->troots, &r->troots_cap, r->ntroots + 1, sizeof *r->troots)) return fail(r, "out of memory");
        r->troots[r->ntroots].id = be_load_u8(b);
        r->troots[r->ntroots++].serial = be_load_u4(b + ID_BYTES);
        return true;
    case HD_CLASS_DUMP: {
        struct cls *c = class_for(r, be_load_u8(b));
        if (!c) return fail(r, "out of memory");
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

#define RELEASE_STEP ((size_t)64 << 20)

/* Hands back the pages before p (see jdr_release_behind), 64 MiB at a time. */
static void release_before(struct jdr *r, const uint8_t *p, const uint8_t **done)
{
    if (!r->release || (size_t)(p - *done) < RELEASE_STEP) return;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t from = (uintptr_t)*done & ~(uintptr_t)(page - 1), to = (uintptr_t)p & ~(uintptr_t)(page - 1);
    if (to <= from) return;
    /* Freeing the blocks also drops the pages: the kernel can give them straight to the
     * output being written, instead of finding new memory for it. */
    if (!r->discarding || fallocate(r->discard_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                    (off_t)(from - (uintptr_t)r->data), (off_t)(to - from)) != 0)
        madvise((void *)from, to - from, MADV_DONTNEED);
    *done = (const uint8_t *)to;
}

/* The record at *p: its tag, body and body's length; moves *p past it. false when it is
 * cut short. */
static bool next_record(struct jdr *r, const uint8_t **p, const uint8_t *end, unsigned *tag, const uint8_t **body,
                        uint32_t *n)
{
    if (end - *p < 9) return fail(r, "a record header is cut short");
    *tag = (*p)[0];
    *n = be_load_u4(*p + 5);
    *body = *p + 9;
    if ((size_t)(end - *body) < *n) return fail(r, "a record passes the end of the file");
    *p = *body + *n;
    return true;
}

/* Calls fn on every sub-record of every HEAP DUMP (SEGMENT) record; false when one
 * cannot be read or fn says stop. */
static bool each_sub(struct jdr *r, bool (*fn)(struct jdr *r, const uint8_t *p))
{
    const uint8_t *p = r->data + r->body, *end = r->data + r->len, *done = r->data;
    while (p < end) {
        unsigned tag;
        const uint8_t *b;
        uint32_t n;
        if (!next_record(r, &p, end, &tag, &b, &n)) return false;
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            for (const uint8_t *q = b, *qe = b + n; q < qe;) {
                size_t m = sub_size(q, qe);
                if (!m) return fail(r, "a heap dump sub-record it cannot read");
                if (!fn(r, q)) return false;
                q += m;
                release_before(r, q, &done);
            }
        }
    }
    return true;
}

static bool index_records(struct jdr *r)
{
    const uint8_t *p = r->data, *end = r->data + r->len;
    const uint8_t *nul = memchr(p, 0, r->len < 32 ? r->len : 32);
    if (!nul || r->len < 17 || memcmp(p, "JAVA PROFILE 1.0.", 17) != 0) return fail(r, "not an HPROF file");
    p = nul + 1;
    if (end - p < 12) return fail(r, "the header is cut short");
    if (be_load_u4(p) != ID_BYTES) return fail(r, "its IDs are not 8 bytes");
    p += 12;
    r->body = (size_t)(p - r->data);
    while (p < end) {
        const uint8_t *rec = p, *b;
        unsigned tag;
        uint32_t n;
        if (!next_record(r, &p, end, &tag, &b, &n)) return false;
        if (tag == TAG_STRING) {
            if (n < ID_BYTES || !idmap_put(&r->strings, be_load_u8(b), (uint64_t)(rec - r->data)))
                return fail(r, "a bad STRING record");
        } else if (tag == TAG_LOAD_CLASS) {
            struct cls *c = n >= 8 + 2 * ID_BYTES ? class_for(r, be_load_u8(b + 4)) : NULL;
            if (!c) return fail(r, "a bad LOAD CLASS record");
            c->name_id = be_load_u8(b + 8 + ID_BYTES);
        }
    }
    return each_sub(r, index_sub);
}

/* A STRING's text, NUL-terminated (the caller frees it); "?" when there is none. */
static char *string_of(const struct jdr *r, uint64_t id)
{
    uint64_t at;
    if (!idmap_get(&r->strings, id, &at)) return strdup("?");
    const uint8_t *p = r->data + at;
    size_t n = be_load_u4(p + 5) - ID_BYTES;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p + 9 + ID_BYTES, n);
    s[n] = 0;
    return s;
}

static void name_special(struct jdr *r, uint64_t id, uint32_t ours);

/* Ranks the used chunks and finds the marker. */
static bool finish_index(struct jdr *r)
{
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->cls[k].name_id && !(r->cls[k].name = string_of(r, r->cls[k].name_id))) return fail(r, "out of memory");
    if (r->nbits) {
        uint64_t span = r->hi - r->lo + 1;
        if (span > MAX_SPAN_CHUNKS) return fail(r, "its objects are spread over too wide a range of addresses");
        r->rank = calloc((size_t)span, sizeof *r->rank);
        uint8_t **by_rank = calloc(r->nbits, sizeof *by_rank);
        if (!r->rank || !by_rank) {
            free(by_rank);
            return fail(r, "out of memory");
        }
        uint64_t k;
        for (uint64_t c = r->lo; c <= r->hi; c++)
            if (idmap_get(&r->chunk_ix, c + 1, &k)) {
                by_rank[r->nused] = r->bits[k];
                r->rank[c - r->lo] = ++r->nused;
            }
        free(r->bits);
        r->bits = by_rank;
    }
    for (uint32_t i = 0; i < r->ncand && r->nonce_id; i++)
        if (be_load_u8(r->cand[i] + 2 * ID_BYTES + 8) == r->nonce_id) {
            r->marker_id = be_load_u8(r->cand[i]);
            r->marker_elems = r->cand[i] + 2 * ID_BYTES + 8;
        }
    r->object_class = r->class_class = -1;
    for (int t = 0; t < 12; t++) r->prim_class[t] = -1;
    for (uint32_t k = 0; k < r->ncls; k++) {
        const char *n = r->cls[k].name;
        if (!n) continue;
        if (strcmp(n, "java/lang/Object") == 0) r->object_class = k;
        if (strcmp(n, "java/lang/Class") == 0) r->class_class = k;
        if (n[0] == '[' && n[1] && !n[2] && n[1] != 'L' && n[1] != '[') r->prim_class[hd_type_of(n[1])] = k;
    }
    if (r->marker_id) {
        name_special(r, r->marker_id, 0);
        name_special(r, r->nonce_id, 0);
    }
    r->out = calloc(r->ncls ? r->ncls : 1, sizeof *r->out);
    return r->out ? true : fail(r, "out of memory");
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

/* The dump's object `id` keeps hprof's ID `ours`. */
static void name_special(struct jdr *r, uint64_t id, uint32_t ours)
{
    uint64_t c = id >> CHUNK_SHIFT;
    if (!r->rank || c < r->lo || c > r->hi || !r->rank[c - r->lo]) return;
    if (idmap_put(&r->special, id, ours)) r->rank[c - r->lo] |= RANK_SPECIAL;
}

void jdr_set_class(struct jdr *r, uint32_t k, struct class_info *info, const struct jdr_order *order)
{
    if (k >= r->ncls) return;
    r->out[k].info = info;
    r->cls[k].order = order;
    name_special(r, r->cls[k].id, info->object_id);
}

bool jdr_class_is_set(const struct jdr *r, uint32_t k) { return k < r->ncls && r->out[k].info; }

void jdr_hide(struct jdr *r, uint64_t id) { name_special(r, id, 0); }

void jdr_set_thread(struct jdr *r, uint64_t id, uint32_t object_id, uint32_t serial)
{
    name_special(r, id, object_id);
    idmap_put(&r->thread_serial, id, serial);
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
    idmap_free(&r->chunk_ix);
    idmap_free(&r->missing);
    free(r);
}

/* ---- pass 2: writing ---- */

/* hprof's ID of the dump's object `a` (0 for null and for what is no object of it). */
static uint32_t map_id(const struct jdr *r, uint64_t a)
{
    uint64_t c = a >> CHUNK_SHIFT;
    if (!a || !r->rank || c < r->lo || c > r->hi) return 0;
    uint32_t k = r->rank[c - r->lo];
    if (!k) return 0;
    if (k & RANK_SPECIAL) {
        uint64_t v;
        if (idmap_get(&r->special, a, &v)) return (uint32_t)v;
        k &= ~RANK_SPECIAL;
    }
    return r->base + ((k - 1) << SLOT_BITS) + (uint32_t)((a & ((1u << CHUNK_SHIFT) - 1)) >> 3);
}

/* hprof's ID of an object a value refers to. One the dump does not hold is noted, to
 * be written at the end: HotSpot's dumper leaves out the Class objects of classes that
 * are not loaded (the class-data-sharing archive holds those of every archived class),
 * and references to them would not resolve. */
static uint32_t map_ref(struct jdr *r, uint64_t a)
{
    uint32_t id = map_id(r, a);
    if (!id || id < r->base) return id;        /* null, or a class or thread of hprof's */
    uint32_t slot = (id - r->base) & ((1u << SLOT_BITS) - 1);
    const uint8_t *bits = r->bits[(id - r->base) >> SLOT_BITS];
    if (!(bits[slot >> 3] & (1u << (slot & 7)))) idmap_put(&r->missing, a, id);
    return id;
}

/* Index of the dump's class with this ID, -1 if none. */
static int64_t class_index(const struct jdr *r, uint64_t id)
{
    uint64_t k;
    return id && idmap_get(&r->class_ix, id, &k) ? (int64_t)k : -1;
}

/* perm[0..n): the names `have` in the order `want` gives, those it does not name after. */
static void order_names(char *const *have, uint32_t n, const char *const *want, uint32_t nwant, uint32_t *perm)
{
    uint8_t *taken = calloc(n ? n : 1, 1);
    uint32_t j = 0;
    for (uint32_t w = 0; taken && w < nwant; w++)
        for (uint32_t i = 0; i < n; i++)
            if (!taken[i] && strcmp(have[i], want[w]) == 0) {
                taken[i] = 1;
                perm[j++] = i;
                break;
            }
    for (uint32_t i = 0; i < n; i++)
        if (!taken || !taken[i]) perm[j++] = i;
    free(taken);
}

/* The descriptors of one list (statics or instance fields) of a CLASS DUMP. */
struct descs {
    uint32_t n;
    char **names;
    uint8_t *types;
    uint32_t *at, *perm;
};

static void descs_free(struct descs *d)
{
    for (uint32_t i = 0; d->names && i < d->n; i++) free(d->names[i]);
    free(d->names);
    free(d->types);
    free(d->at);
    free(d->perm);
}

/* Reads the list at p (u2 count, then descriptors, each with a value when `values`) and
 * orders it by `want`; returns its end, NULL when out of memory. d->at[i] is where the
 * value is: with values, from p + 2; without, among an instance's values. */
static const uint8_t *descs_read(const struct jdr *r, const uint8_t *p, bool values, const char *const *want,
                                 uint32_t nwant, struct descs *d)
{
    d->n = be_load_u2(p);
    size_t m = (size_t)d->n + 1;
    d->names = calloc(m, sizeof *d->names);
    d->types = malloc(m);
    d->at = malloc(m * sizeof *d->at);
    d->perm = malloc(m * sizeof *d->perm);
    if (!d->names || !d->types || !d->at || !d->perm) return NULL;
    const uint8_t *q = p + 2;
    uint32_t off = 0;
    for (uint32_t i = 0; i < d->n; i++) {       /* name, type[, value] */
        if (!(d->names[i] = string_of(r, be_load_u8(q)))) return NULL;
        d->types[i] = q[ID_BYTES];
        q += ID_BYTES + 1;
        d->at[i] = values ? (uint32_t)(q - (p + 2)) : off;
        off += src_size(d->types[i]);
        if (values) q += src_size(d->types[i]);
    }
    order_names(d->names, d->n, want, nwant, d->perm);
    return q;
}

/* Takes the names of d into hprof's fields, in d's order. */
static struct hd_field *fields_of(struct descs *d)
{
    struct hd_field *f = calloc((size_t)d->n + 1, sizeof *f);
    for (uint32_t j = 0; f && j < d->n; j++) {
        uint32_t i = d->perm[j];
        f[j].name = d->names[i];
        f[j].type = d->types[i];
        d->names[i] = NULL;
    }
    return f;
}

/* A value of the dump, as hprof writes it, to d; returns the byte after it. */
static uint8_t *put_value(struct jdr *r, uint8_t *d, unsigned type, const uint8_t *v)
{
    if (type == HD_OBJECT) {
        be_store_u4(d, map_ref(r, be_load_u8(v)));
        return d + 4;
    }
    memcpy(d, v, src_size(type));
    return d + src_size(type);
}

/* The statics of class o, from the list at p; returns the list's end (NULL: no memory). */
static const uint8_t *lay_out_statics(struct jdr *r, struct hd_class *o, const struct jdr_order *ord,
                                      const uint8_t *p)
{
    struct descs d = {0};
    const uint8_t *end = descs_read(r, p, true, ord ? ord->statics : NULL, ord ? ord->nstatics : 0, &d);
    if (end) {
        for (uint32_t j = 0; j < d.n; j++) o->static_bytes += hd_type_size(d.types[j]);
        o->static_values = calloc(o->static_bytes + 1, 1);
        o->statics = fields_of(&d);
        if (o->static_values && o->statics) {
            uint8_t *v = o->static_values;
            for (uint32_t j = 0; j < d.n; j++) v = put_value(r, v, o->statics[j].type, p + 2 + d.at[d.perm[j]]);
            o->nstatics = d.n;
        } else {
            end = NULL;
        }
    }
    descs_free(&d);
    return end;
}

/* The own instance fields of class k, from the list at p. false: no memory. */
static bool lay_out_fields(struct jdr *r, uint32_t k, const uint8_t *p)
{
    struct cls *c = &r->cls[k];
    struct hd_class *o = &r->out[k];
    const struct jdr_order *ord = c->order;
    struct descs d = {0};
    bool ok = descs_read(r, p, false, ord ? ord->inst : NULL, ord ? ord->ninst : 0, &d) != NULL;
    if (ok) {
        c->own = malloc(((size_t)d.n + 1) * sizeof *c->own);
        for (uint32_t j = 0; c->own && j < d.n; j++) {
            uint32_t i = d.perm[j];
            c->own[j].src = d.at[i];
            c->own[j].type = d.types[i];
            o->own_bytes += hd_type_size(d.types[i]);
            c->own_src += src_size(d.types[i]);
        }
        o->fields = c->own ? fields_of(&d) : NULL;
        ok = o->fields != NULL;
        if (ok) o->nfields = c->nown = d.n;
    }
    descs_free(&d);
    return ok;
}

/* hprof's view of class k from its CLASS DUMP. false: no memory. */
static bool lay_out(struct jdr *r, uint32_t k)
{
    struct cls *c = &r->cls[k];
    struct hd_class *o = &r->out[k];
    const char *sig = o->info->signature;
    o->is_array = sig && sig[0] == '[';
    if (o->is_array) o->elem_type = (uint8_t)hd_type_of(sig[1]);
    if (!c->dump) {             /* array classes may have none */
        if (r->object_class >= 0 && r->object_class != k && r->out[r->object_class].info)
            o->super = &r->out[r->object_class];
        return true;
    }
    const uint8_t *p = c->dump + 4;
    c->super = class_index(r, be_load_u8(p));
    if (c->super >= 0 && r->out[c->super].info) o->super = &r->out[c->super];
    o->loader_id = map_ref(r, be_load_u8(p + ID_BYTES));
    o->signers_id = map_ref(r, be_load_u8(p + 2 * ID_BYTES));
    o->domain_id = map_ref(r, be_load_u8(p + 3 * ID_BYTES));
    p += 6 * ID_BYTES + 4;
    unsigned ncp = be_load_u2(p);
    p += 2;
    for (unsigned i = 0; i < ncp; i++) p += 3 + src_size(p[2]);
    p = lay_out_statics(r, o, c->order, p);
    return p && lay_out_fields(r, k, p);
}

/* An instance's values, own class first, as steps (see struct op). */
static void build_ops(struct jdr *r, struct cls *c)
{
    uint32_t n = 0, depth = 0;
    c->ops_state = -1;
    for (int64_t x = c - r->cls; x >= 0; x = r->cls[x].super) {
        if (!r->out[x].info || ++depth > 1024) return;
        n += r->cls[x].nown;
    }
    c->ops = malloc(((size_t)n + 1) * sizeof *c->ops);
    if (!c->ops) return;
    uint32_t src = 0;
    for (int64_t x = c - r->cls; x >= 0; x = r->cls[x].super) {
        const struct cls *s = &r->cls[x];
        for (uint32_t j = 0; j < s->nown; j++) c->ops[c->nops++] = (struct op){src + s->own[j].src, s->own[j].type};
        src += s->own_src;
    }
    c->src_bytes = src;
    c->ops_state = 1;
}

/* The class (set) an object of the dump names, -1 if none. */
static int64_t set_class(struct jdr *r, uint64_t id)
{
    if (id != r->last_cid) {
        r->last_cid = id;
        r->last_k = class_index(r, id);
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
    struct hd_root_info ri = {.kind = p[0], .id = map_ref(r, obj), .trace_serial = SERIAL_TRACE_BASE};
    if (!ri.id) return;
    switch (p[0]) {
    case HD_ROOT_JNI_GLOBAL: ri.gref = ++r->gref; break;
    case HD_ROOT_JNI_LOCAL:
    case HD_ROOT_JAVA_FRAME:
        ri.thread_serial = thread_serial(r, be_load_u4(b + ID_BYTES));
        ri.frame = (int32_t)be_load_u4(b + ID_BYTES + 4);
        break;
    case HD_ROOT_NATIVE_STACK:
    case HD_ROOT_THREAD_BLOCK:
    case HD_ROOT_THREAD_OBJECT: ri.thread_serial = thread_serial(r, be_load_u4(b + ID_BYTES)); break;
    case HD_ROOT_STICKY_CLASS: {
        int64_t k = set_class(r, obj);
        ri.name = k >= 0 ? r->out[k].info->name : "<Unknown Class>";
        break;
    }
    default: break;
    }
    r->wr->root(r->s, &ri);
    /* as the JVMTI walk writes it: a thread's object is also its block's root */
    if (p[0] == HD_ROOT_THREAD_OBJECT) {
        ri.kind = HD_ROOT_THREAD_BLOCK;
        r->wr->root(r->s, &ri);
    }
}

static void write_instance(struct jdr *r, const uint8_t *b)
{
    uint32_t id = map_id(r, be_load_u8(b));
    if (!id) return;                                 /* hidden */
    int64_t k = set_class(r, be_load_u8(b + ID_BYTES + 4));
    struct cls *c = k >= 0 ? &r->cls[k] : NULL;
    if (c && !c->ops_state) build_ops(r, c);
    uint32_t n = be_load_u4(b + 2 * ID_BYTES + 4);
    const struct hd_class *o = c ? &r->out[k] : NULL;
    if (!c || c->ops_state < 0 || n != c->src_bytes || !grow_array((void **)&r->vals, &r->vals_cap, o->inst_bytes + 1, 1)) {
        r->left_out++;
        return;
    }
    const uint8_t *v = b + 2 * ID_BYTES + 8;
    uint8_t *d = r->vals;
    for (uint32_t i = 0; i < c->nops; i++) d = put_value(r, d, c->ops[i].type, v + c->ops[i].src);
    r->wr->instance(r->s, id, SERIAL_TRACE_BASE, o, 0, r->vals);
}

static void write_obj_array(struct jdr *r, const uint8_t *b)
{
    uint32_t id = map_id(r, be_load_u8(b));
    uint32_t n = be_load_u4(b + ID_BYTES + 4);
    int64_t k = set_class(r, be_load_u8(b + ID_BYTES + 8));
    if (!id) return;
    if (k < 0 || !grow_array((void **)&r->elems, &r->elems_cap, (size_t)n + 1, sizeof *r->elems)) {
        r->left_out++;
        return;
    }
    const uint8_t *e = b + 2 * ID_BYTES + 8;
    for (uint32_t i = 0; i < n; i++) r->elems[i] = map_ref(r, be_load_u8(e + (size_t)i * ID_BYTES));
    r->wr->obj_array(r->s, id, SERIAL_TRACE_BASE, &r->out[k], 0, n, r->elems);
}

static void write_prim_array(struct jdr *r, const uint8_t *b)
{
    uint32_t id = map_id(r, be_load_u8(b));
    if (!id) return;
    unsigned t = b[ID_BYTES + 8];
    int64_t k = r->prim_class[t];
    const struct hd_class *o = k >= 0 && r->out[k].info ? &r->out[k] : NULL;
    r->wr->prim_array(r->s, id, SERIAL_TRACE_BASE, o, 0, be_load_u4(b + ID_BYTES + 4), (int)t, b + ID_BYTES + 9);
}

static bool write_sub(struct jdr *r, const uint8_t *p)
{
    switch (p[0]) {
    case HD_CLASS_DUMP: break;                       /* written at the end, from r->out */
    case HD_INSTANCE_DUMP: write_instance(r, p + 1); break;
    case HD_OBJ_ARRAY_DUMP: write_obj_array(r, p + 1); break;
    case HD_PRIM_ARRAY_DUMP: write_prim_array(r, p + 1); break;
    default: write_root(r, p); break;
    }
    return true;
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
    if (!r->serial_of) return;
    r->nserials = max + 1;
    for (uint32_t i = 0; i < r->ntroots; i++) {
        uint64_t ours;
        if (r->troots[i].serial <= max && idmap_get(&r->thread_serial, r->troots[i].id, &ours))
            r->serial_of[r->troots[i].serial] = (uint32_t)ours;
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
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->out[k].info && !lay_out(r, k)) r->out[k].info = NULL;
    for (uint32_t k = 0; k < r->ncls; k++) {
        struct hd_class *o = &r->out[k];
        uint32_t depth = 0;
        for (const struct hd_class *x = o; x && x->info && depth++ < 1024; x = x->super) o->inst_bytes += x->own_bytes;
    }
    wr->prepare(s, r->out, r->ncls);
    wr->begin(s, r->objects, 0);
    for (uint32_t i = 0; i < nmonitors; i++) {
        struct hd_root_info ri = {.kind = HD_ROOT_MONITOR_USED, .id = map_id(r, monitors[i]),
                                  .trace_serial = SERIAL_TRACE_BASE};
        if (ri.id) wr->root(s, &ri);
    }
    r->discarding = r->release && r->discard_fd >= 0;
    each_sub(r, write_sub);
    r->discarding = false;
    write_missing(r);
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->out[k].info) wr->class_dump(s, &r->out[k]);
    wr->end(s);
    return r->left_out;
}
