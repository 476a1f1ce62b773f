/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The index of a heap dump, from the mapped file: every object of the last heap dump gets
 * a dense index (objects sorted by id; an id is found by binary search), its class, kind,
 * allocation trace and shallow size; references become CSR arrays (offsets + targets),
 * counted then filled by `threads` threads over ranges of objects; GC roots a list of
 * object indexes. Three passes over the dump's bodies: count (the memory needed, checked
 * before anything big is allocated), collect (ids and offsets), then the references.
 *
 * Shallow sizes are VisualVM's (org.graalvm.visualvm.lib.jfluid.heap): an instance is a
 * header of idsize + oopsize bytes, then its fields (object fields oopsize bytes each),
 * aligned to 8; an array the header, 4 bytes of length, its elements, aligned to 8. The
 * oop size is 4 when the dump's ids are 8 bytes and the JVM ran with compressed oops (the
 * dump holds the string "java.vm.compressedOopsMode", the system property HotSpot sets
 * then and that VisualVM looks for), else the id size.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "hd.h"
#include "util/hprof_format.h"

/* A bounded cursor over the mapped file. */
struct cur {
    const uint8_t *p;
    uint64_t pos, end;
    bool bad;
};

static uint64_t rd(struct cur *c, int n)
{
    if (c->bad || c->end - c->pos < (uint64_t)n || c->pos > c->end) {
        c->bad = true;
        return 0;
    }
    const uint8_t *s = c->p + c->pos;
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | s[i];
    c->pos += (uint64_t)n;
    return v;
}

static void skip(struct cur *c, uint64_t n)
{
    if (c->bad || c->end - c->pos < n)
        c->bad = true;
    else
        c->pos += n;
}

static uint64_t be(const uint8_t *s, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | s[i];
    return v;
}

/* Seconds of the monotonic clock, for progress lines. */
static double an_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void an_progress(struct an_progress *p, const char *what)
{
    if (p->on) fprintf(stderr, "hprof analyze: %s (%.1f s)\n", what, an_now() - p->t0);
}

/* Size of a value of a basic type in the dump; 0 when the type is invalid. */
static int vsize(int type, int idsize) { return hd_type_size(type, idsize); }

static bool put(struct idmap *m, uint64_t k, uint64_t v) { return idmap_insert(m, k, v, NULL) >= 0; }

/* ------------------------------------------------------------ top-level records */

static int read_records(struct an_heap *h, char *err, size_t errlen)
{
    struct cur c = {h->p, 0, h->size, false};
    const char *hdr = (const char *)h->p;
    size_t hl = strnlen(hdr, (size_t)(h->size < 64 ? h->size : 64));
    if (hl >= 64 || hl == h->size || strncmp(hdr, "JAVA PROFILE 1.0.", 17) != 0)
        return snprintf(err, errlen, "not a binary HPROF file (no \"JAVA PROFILE 1.0.x\" header)"), -1;
    c.pos = hl + 1;
    h->idsize = (int)rd(&c, 4);
    h->time_ms = rd(&c, 8);
    if (c.bad || (h->idsize != 4 && h->idsize != 8))
        return snprintf(err, errlen, "identifier size %d: only 4 and 8 are valid", h->idsize), -1;
    int ids = h->idsize;
    bool seg_open = false;
    size_t capspans = 0;
    while (c.pos < c.end) {
        uint64_t at = c.pos;
        int tag = (int)rd(&c, 1);
        rd(&c, 4);
        uint64_t len = rd(&c, 4);
        if (c.bad) break;                             /* a truncated record header ends the file */
        if (len > c.end - c.pos) len = c.end - c.pos; /* truncated body: what there is */
        struct cur b = {h->p, c.pos, c.pos + len, false};
        bool ok = true;
        switch (tag) {
        case TAG_STRING:
            if (len >= (uint64_t)ids) ok = put(&h->strings, rd(&b, ids), at);
            break;
        case TAG_LOAD_CLASS: {
            uint64_t serial = rd(&b, 4), obj = rd(&b, ids);
            rd(&b, 4);
            uint64_t name = rd(&b, ids);
            if (!b.bad) ok = put(&h->class_names, obj, name) && put(&h->class_serial, serial, obj);
            break;
        }
        case TAG_STACK_FRAME:
            if (len >= (uint64_t)ids) ok = put(&h->frames, rd(&b, ids), at);
            break;
        case TAG_STACK_TRACE:
            if (len >= 4) ok = put(&h->traces, rd(&b, 4), at);
            break;
        case TAG_HEAP_DUMP:
        case TAG_HEAP_DUMP_SEGMENT:
            if (tag == TAG_HEAP_DUMP || !seg_open) {
                h->nspans = 0;
                h->dumps++;
            }
            seg_open = tag == TAG_HEAP_DUMP_SEGMENT;
            if (h->nspans == capspans) {
                capspans = capspans ? capspans * 2 : 16;
                uint64_t *a = realloc(h->span_off, capspans * sizeof *a), *l;
                if (a) h->span_off = a;
                l = a ? realloc(h->span_len, capspans * sizeof *l) : NULL;
                if (!l) return snprintf(err, errlen, "out of memory"), -1;
                h->span_len = l;
            }
            h->span_off[h->nspans] = c.pos;
            h->span_len[h->nspans++] = len;
            break;
        case TAG_HEAP_DUMP_END: seg_open = false; break;
        default: break;
        }
        if (!ok) return snprintf(err, errlen, "out of memory"), -1;
        c.pos += len;
    }
    if (!h->dumps) return snprintf(err, errlen, "the file holds no heap dump (HEAP DUMP or HEAP DUMP SEGMENT)"), -1;
    return 0;
}

/* ------------------------------------------------------------ heap sub-records */

/* What a walk over the dump's sub-records gathers: counts (first walk), then ids and
 * offsets of the objects and the ids of the roots (second walk, into arrays the counts
 * sized). */
struct sink {
    struct an_counts cnt;
    uint64_t nroots;
    uint64_t *pairs; /* id, offset: 2 per object */
    uint64_t *roots;
    uint64_t np, nr;
    bool collect, compressed, traces;
};

static const char COMPRESSED[] = "java.vm.compressedOopsMode";

static void obj(struct sink *s, uint64_t id, uint64_t off)
{
    if (!s->collect) {
        s->cnt.objects++;
    } else if (s->np < s->cnt.objects) {
        s->pairs[2 * s->np] = id;
        s->pairs[2 * s->np++ + 1] = off;
    }
}

static void root(struct sink *s, uint64_t id)
{
    if (!s->collect)
        s->nroots++;
    else if (s->nr < s->nroots)
        s->roots[s->nr++] = id;
}

/* One sub-record at c; false when it cannot be read (unknown tag, or past the end). */
static bool sub(const struct an_heap *h, struct cur *c, struct sink *s)
{
    int ids = h->idsize;
    uint64_t at = c->pos;
    int tag = (int)rd(c, 1);
    switch (tag) {
    case 0xFF: /* ROOT UNKNOWN */
    case 0x05: /* STICKY CLASS */
    case 0x07: /* MONITOR USED */ root(s, rd(c, ids)); break;
    case 0x01: /* JNI GLOBAL */ root(s, rd(c, ids)), skip(c, (uint64_t)ids); break;
    case 0x02: /* JNI LOCAL */
    case 0x03: /* JAVA FRAME */
    case 0x08: /* THREAD OBJECT */ root(s, rd(c, ids)), skip(c, 8); break;
    case 0x04: /* NATIVE STACK */
    case 0x06: /* THREAD BLOCK */ root(s, rd(c, ids)), skip(c, 4); break;
    case 0x20: { /* CLASS DUMP */
        uint64_t id = rd(c, ids);
        skip(c, 4 + 6 * (uint64_t)ids + 4);
        uint64_t n = rd(c, 2);
        for (uint64_t i = 0; i < n && !c->bad; i++) {
            skip(c, 2);
            int t = (int)rd(c, 1);
            if (!vsize(t, ids)) return false;
            skip(c, (uint64_t)vsize(t, ids));
        }
        n = rd(c, 2);
        for (uint64_t i = 0; i < n && !c->bad; i++) {
            skip(c, (uint64_t)ids);
            int t = (int)rd(c, 1);
            if (!vsize(t, ids)) return false;
            if (t == HD_OBJECT) s->cnt.ref_slots++;
            skip(c, (uint64_t)vsize(t, ids));
        }
        n = rd(c, 2);
        skip(c, n * (uint64_t)(ids + 1));
        s->cnt.classes++;
        if (!c->bad) obj(s, id, at);
        break;
    }
    case 0x21: { /* INSTANCE DUMP */
        uint64_t id = rd(c, ids);
        s->traces |= rd(c, 4) != 0;
        skip(c, (uint64_t)ids);
        uint64_t len = rd(c, 4);
        skip(c, len);
        s->cnt.ref_slots += len / (uint64_t)ids;
        if (!c->bad) obj(s, id, at);
        break;
    }
    case 0x22: { /* OBJECT ARRAY DUMP */
        uint64_t id = rd(c, ids);
        s->traces |= rd(c, 4) != 0;
        uint64_t n = rd(c, 4);
        skip(c, (uint64_t)ids);
        if (n > (c->end - c->pos) / (uint64_t)ids) return false;
        skip(c, n * (uint64_t)ids);
        s->cnt.ref_slots += n;
        if (!c->bad) obj(s, id, at);
        break;
    }
    case 0x23: { /* PRIMITIVE ARRAY DUMP */
        uint64_t id = rd(c, ids);
        s->traces |= rd(c, 4) != 0;
        uint64_t n = rd(c, 4);
        int t = (int)rd(c, 1);
        if (!vsize(t, ids) || t == HD_OBJECT) return false;
        if (n > (c->end - c->pos) / (uint64_t)vsize(t, ids)) return false;
        if (s->collect && t == HD_BYTE && n == sizeof COMPRESSED - 1 &&
            !memcmp(c->p + c->pos, COMPRESSED, sizeof COMPRESSED - 1))
            s->compressed = true;
        skip(c, n * (uint64_t)vsize(t, ids));
        if (!c->bad) obj(s, id, at);
        break;
    }
    default: return false;
    }
    return !c->bad;
}

/* Every sub-record of the last dump; the count of those that could not be read. */
static uint64_t walk(const struct an_heap *h, struct sink *s)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < h->nspans; i++) {
        struct cur c = {h->p, h->span_off[i], h->span_off[i] + h->span_len[i], false};
        while (c.pos < c.end)
            if (!sub(h, &c, s)) {
                bad++;
                break; /* the rest of this record cannot be framed */
            }
    }
    return bad;
}

static int cmp_pair(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t an_find(const struct an_heap *h, uint64_t id)
{
    uint32_t lo = 0, hi = h->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->n && h->ids[lo] == id ? lo : AN_NONE;
}

const uint8_t *an_string(const struct an_heap *h, uint64_t sid, size_t *len)
{
    uint64_t off;
    if (!sid || !idmap_get(&h->strings, sid, &off)) return NULL;
    uint64_t rl = be(h->p + off + 5, 4);
    if (off + 9 + rl > h->size) rl = h->size - off - 9;
    *len = (size_t)(rl - (uint64_t)h->idsize);
    return h->p + off + 9 + h->idsize;
}

/* ------------------------------------------------------------ classes */

/* Whether a string is s, '/' and '.' alike: the JVM's dumps name classes
 * "java/lang/String", this agent's and the original HPROF's "java.lang.String". */
static bool name_is(const struct an_heap *h, uint64_t sid, const char *s)
{
    size_t n;
    const uint8_t *t = an_string(h, sid, &n);
    if (!t || n != strlen(s)) return false;
    for (size_t i = 0; i < n; i++)
        if (t[i] != (uint8_t)s[i] && !(t[i] == '.' && s[i] == '/')) return false;
    return true;
}

static uint64_t find_sid(const struct an_heap *h, const char *s)
{
    for (size_t i = 0; i < h->strings.cap; i++) {
        uint64_t k = h->strings.keys[i];
        if (k && name_is(h, k, s)) return k;
    }
    return 0;
}

/* A cursor on a CLASS DUMP at off, past its constant pool: at the count of its statics. */
static struct cur statics_at(const struct an_heap *h, uint64_t off)
{
    int ids = h->idsize;
    struct cur c = {h->p, off + 1 + (uint64_t)ids + 4 + 6 * (uint64_t)ids + 4, h->size, false};
    uint64_t n = rd(&c, 2);
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        skip(&c, 2);
        skip(&c, (uint64_t)vsize((int)rd(&c, 1), ids));
    }
    return c;
}

/* The same past its statics too: at the count of its instance fields. */
static struct cur fields_at(const struct an_heap *h, uint64_t off)
{
    struct cur c = statics_at(h, off);
    uint64_t n = rd(&c, 2);
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        skip(&c, (uint64_t)h->idsize);
        skip(&c, (uint64_t)vsize((int)rd(&c, 1), h->idsize));
    }
    return c;
}

/* A class's own fields from its CLASS DUMP: bytes, strong object-field offsets, and the
 * bytes VisualVM counts for them; with_ids: the oop size. */
static void own_fields(struct an_heap *h, struct an_class *k, uint64_t *vv, uint32_t **refs, size_t *cap)
{
    int ids = h->idsize;
    struct cur c = fields_at(h, k->off);
    uint64_t n = rd(&c, 2);
    uint64_t own = 0, v = 0;
    k->refs = (uint32_t)h->nrefoffs;
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        uint64_t name = rd(&c, ids);
        int t = (int)rd(&c, 1);
        if (!vsize(t, ids)) {
            k->bad = true;
            break;
        }
        if (t == HD_OBJECT && !(k->id == h->weak_class && name == h->sid_referent)) {
            if (h->nrefoffs == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                uint32_t *a = realloc(*refs, *cap * sizeof *a);
                if (!a) {
                    k->bad = true;
                    break;
                }
                *refs = a;
            }
            (*refs)[h->nrefoffs++] = (uint32_t)own;
        }
        if (t == HD_OBJECT && k->id == h->weak_class && name == h->sid_referent) h->weak_off = (uint32_t)own;
        own += (uint64_t)vsize(t, ids);
        v += t == HD_OBJECT ? (uint64_t)h->oopsize : (uint64_t)vsize(t, ids);
    }
    if (c.bad || own > UINT32_MAX / 2) k->bad = true;
    k->own_bytes = (uint32_t)own;
    k->nrefs = (uint32_t)(h->nrefoffs - k->refs);
    *vv = v;
}

static uint8_t kind_of(const struct an_heap *h, uint64_t sid)
{
    if (name_is(h, sid, "java/lang/String")) return AN_K_STRING;
    if (name_is(h, sid, "java/util/ArrayList")) return AN_K_ARRAYLIST;
    if (name_is(h, sid, "java/util/HashMap")) return AN_K_HASHMAP;
    return AN_K_PLAIN;
}

static uint64_t align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }

/* Lays out every class: total field bytes, the up link, VisualVM's instance size. Chains
 * of supers are walked with an explicit stack (a file decides how deep they are); a chain
 * that loops or ends at a class not in the dump leaves its classes bad. */
static int layout(struct an_heap *h, uint64_t *vv)
{
    enum { TODO, BUSY, DONE };
    uint8_t *state = calloc(h->nclasses ? h->nclasses : 1, 1);
    uint32_t *stack = malloc((h->nclasses ? h->nclasses : 1) * sizeof *stack);
    if (!state || !stack) return free(state), free(stack), -1;
    bool raw_sizes = false; /* java.lang.Object's CLASS DUMP gives a size: VisualVM then takes those */
    for (uint32_t i = 0; i < h->nclasses; i++) {
        struct an_class *k = &h->classes[i];
        if (!k->super && name_is(h, k->name_sid, "java/lang/Object")) {
            uint64_t raw = be(h->p + k->off + 1 + h->idsize + 4 + 6 * h->idsize, 4);
            raw_sizes = raw > 0 && raw < INT32_MAX;
        }
    }
    for (uint32_t i = 0; i < h->nclasses; i++) {
        uint32_t n = 0, top = i;
        while (state[top] == TODO) {
            state[top] = BUSY;
            stack[n++] = top;
            uint64_t sup = h->classes[top].super, v;
            if (!sup) break;
            if (!idmap_get(&h->class_by_id, sup, &v)) {
                h->classes[top].bad = true;
                break;
            }
            top = (uint32_t)v;
            if (state[top] == BUSY) { /* a loop */
                h->classes[top].bad = true;
                break;
            }
        }
        while (n) {
            uint32_t j = stack[--n];
            struct an_class *k = &h->classes[j];
            struct an_class *s = NULL;
            uint64_t v;
            if (k->super && idmap_get(&h->class_by_id, k->super, &v) && v != j && state[v] == DONE) s = &h->classes[v];
            if (k->super && !s) k->bad = true;
            if (s && s->bad) k->bad = true;
            uint64_t total = (uint64_t)k->own_bytes + (s ? s->total : 0);
            if (total > UINT32_MAX / 2) k->bad = true, total = 0;
            k->total = (uint32_t)total;
            vv[j] += s ? vv[s - h->classes] : 0;
            k->up = k->nrefs ? j + 1 : s ? s->up : 0;
            k->is_ref = k->id == h->weak_class || (s && s->is_ref);
            if (raw_sizes)
                k->shallow = be(h->p + k->off + 1 + h->idsize + 4 + 6 * h->idsize, 4);
            else
                k->shallow = align8((uint64_t)h->idsize + (uint64_t)h->oopsize + vv[j]);
            state[j] = DONE;
        }
    }
    free(state);
    free(stack);
    return 0;
}

static int classes(struct an_heap *h)
{
    h->java_lang_class = AN_NONE;
    for (uint32_t i = 0; i < h->n; i++)
        if (h->p[h->off[i]] == 0x20) h->nclasses++;
    h->classes = calloc(h->nclasses ? h->nclasses : 1, sizeof *h->classes);
    uint64_t *vv = calloc(h->nclasses ? h->nclasses : 1, sizeof *vv);
    if (!h->classes || !vv) return free(vv), -1;
    uint32_t j = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        if (h->p[h->off[i]] != 0x20) continue;
        struct an_class *k = &h->classes[j];
        struct cur c = {h->p, h->off[i] + 1, h->size, false};
        k->id = rd(&c, h->idsize);
        rd(&c, 4);
        k->super = rd(&c, h->idsize);
        k->loader = rd(&c, h->idsize);
        k->off = h->off[i];
        k->obj = i;
        uint64_t sid = 0;
        idmap_get(&h->class_names, k->id, &sid);
        k->name_sid = sid;
        k->kind = kind_of(h, sid);
        if (name_is(h, sid, "java/lang/ref/Reference")) h->weak_class = k->id, h->weak_index = j;
        if (name_is(h, sid, "java/lang/Class")) h->java_lang_class = j;
        if (!put(&h->class_by_id, k->id, j)) return free(vv), -1;
        j++;
    }
    for (uint32_t i = 0; i < h->nclasses; i++)
        if (h->classes[i].kind == AN_K_PLAIN && h->classes[i].id == h->weak_class) h->classes[i].kind = AN_K_REFERENCE;
    h->sid_referent = h->weak_class ? find_sid(h, "referent") : 0;
    h->sid_value = find_sid(h, "value");
    h->sid_size = find_sid(h, "size");
    h->sid_elements = find_sid(h, "elementData");
    h->sid_table = find_sid(h, "table");
    size_t cap = 0;
    h->weak_off = UINT32_MAX;
    for (uint32_t i = 0; i < h->nclasses; i++) own_fields(h, &h->classes[i], &vv[i], &h->refoffs, &cap);
    if (h->weak_off == UINT32_MAX) h->weak_class = 0; /* no referent field: no Reference is special */
    int rc = layout(h, vv);
    free(vv);
    return rc;
}

/* ------------------------------------------------------------ objects */

/* The bytes of an instance's field data (NULL for other objects). */
static const uint8_t *an_instance_data(const struct an_heap *h, uint32_t o, uint32_t *len)
{
    uint64_t off = h->off[o];
    if (h->p[off] != 0x21) return NULL;
    uint64_t at = off + 1 + 2 * (uint64_t)h->idsize + 4;
    *len = (uint32_t)be(h->p + at, 4);
    return h->p + at + 4;
}

uint32_t an_class_of_object(const struct an_heap *h, uint32_t o)
{
    uint64_t v;
    return AN_KIND(h, o) == AN_CLASSOBJ && idmap_get(&h->class_by_id, h->ids[o], &v) ? (uint32_t)v : AN_NONE;
}

/* The class index of an object's class id; AN_NONE when not in the dump. */
static uint32_t class_index(const struct an_heap *h, uint64_t id)
{
    uint64_t v;
    return idmap_get(&h->class_by_id, id, &v) ? (uint32_t)v : AN_NONE;
}

const uint8_t *an_prim_array(const struct an_heap *h, uint32_t o, int *type, uint32_t *count)
{
    uint64_t off = h->off[o];
    if (h->p[off] != 0x23) return NULL;
    const uint8_t *p = h->p + off + 1 + h->idsize + 4;
    *count = (uint32_t)be(p, 4);
    *type = p[4];
    return p + 5;
}

/* Class, kind, trace and shallow size of every object. */
static void describe(struct an_heap *h)
{
    int ids = h->idsize;
    for (uint32_t i = 0; i < h->n; i++) {
        const uint8_t *r = h->p + h->off[i];
        uint32_t tr = (uint32_t)be(r + 1 + ids, 4);
        switch (r[0]) {
        case 0x20:
            h->kind[i] = AN_CLASSOBJ;
            h->cls[i] = h->java_lang_class;
            /* VisualVM's ClassDumpInstance: java.lang.Class's instance size */
            h->shallow[i] = h->java_lang_class != AN_NONE ? h->classes[h->java_lang_class].shallow : 0;
            break;
        case 0x21: {
            h->kind[i] = AN_INSTANCE;
            uint32_t k = class_index(h, be(r + 1 + ids + 4, ids));
            h->cls[i] = k;
            h->shallow[i] = k != AN_NONE ? h->classes[k].shallow : align8((uint64_t)ids + (uint64_t)h->oopsize);
            break;
        }
        case 0x22: {
            h->kind[i] = AN_OBJARRAY;
            uint64_t n = be(r + 1 + ids + 4, 4);
            h->cls[i] = class_index(h, be(r + 1 + ids + 8, ids));
            h->shallow[i] = align8((uint64_t)ids + (uint64_t)h->oopsize + 4 + n * (uint64_t)h->oopsize);
            break;
        }
        default: {
            h->kind[i] = AN_PRIMARRAY;
            uint64_t n = be(r + 1 + ids + 4, 4);
            int t = r[1 + ids + 8];
            h->cls[i] = t < 16 ? h->prim_class[t] : AN_NONE;
            h->shallow[i] = align8((uint64_t)ids + (uint64_t)h->oopsize + 4 + n * (uint64_t)vsize(t, ids));
            break;
        }
        }
        if (h->trace) h->trace[i] = tr;
    }
}

/* The classes of primitive arrays, by element type: HotSpot's dumps have a CLASS DUMP
 * for each ("[I"), the original HPROF's none (then they get no class). */
static void prim_classes(struct an_heap *h)
{
    static const struct {
        int type;
        const char *name, *java;
    } P[] = {{HD_BOOLEAN, "[Z", "boolean[]"}, {HD_CHAR, "[C", "char[]"}, {HD_FLOAT, "[F", "float[]"},
             {HD_DOUBLE, "[D", "double[]"},   {HD_BYTE, "[B", "byte[]"}, {HD_SHORT, "[S", "short[]"},
             {HD_INT, "[I", "int[]"},         {HD_LONG, "[J", "long[]"}};
    for (int t = 0; t < 16; t++) h->prim_class[t] = AN_NONE;
    for (uint32_t i = 0; i < h->nclasses; i++)
        for (size_t j = 0; j < sizeof P / sizeof P[0]; j++)
            if (h->prim_class[P[j].type] == AN_NONE &&
                (name_is(h, h->classes[i].name_sid, P[j].name) || name_is(h, h->classes[i].name_sid, P[j].java)))
                h->prim_class[P[j].type] = i;
}

/* ------------------------------------------------------------ references */

/* The strong references of object o: counted, and written to out when not NULL. */
static uint32_t refs_of(const struct an_heap *h, uint32_t o, uint32_t *out, uint64_t *unresolved)
{
    int ids = h->idsize;
    const uint8_t *r = h->p + h->off[o];
    uint32_t n = 0;
#define REF(p)                             \
    do {                                   \
        uint64_t id_ = be((p), ids);       \
        if (id_) {                         \
            uint32_t t_ = an_find(h, id_); \
            if (t_ == AN_NONE)             \
                ++*unresolved;             \
            else {                         \
                if (out) out[n] = t_;      \
                n++;                       \
            }                              \
        }                                  \
    } while (0)
    switch (AN_KIND(h, o)) {
    case AN_INSTANCE: {
        uint32_t k = h->cls[o], len;
        if (k == AN_NONE || h->classes[k].bad) return 0;
        const uint8_t *data = an_instance_data(h, o, &len);
        if (len != h->classes[k].total) return 0;
        uint32_t total = h->classes[k].total;
        for (uint32_t u = h->classes[k].up; u;) {
            const struct an_class *c = &h->classes[u - 1];
            uint32_t base = total - c->total;
            for (uint32_t i = 0; i < c->nrefs; i++) REF(data + base + h->refoffs[c->refs + i]);
            uint64_t v;
            if (!c->super || !idmap_get(&h->class_by_id, c->super, &v)) break;
            u = h->classes[v].up;
        }
        /* a Reference's referent: an edge of its own, last, that only dominators see */
        if (h->classes[k].is_ref && out != NULL) {
            uint32_t before = n;
            REF(data + total - h->classes[h->weak_index].total + h->weak_off);
            if (n > before) h->kind[o] |= AN_WEAK_LAST;
        } else if (h->classes[k].is_ref) {
            REF(data + total - h->classes[h->weak_index].total + h->weak_off);
        }
        break;
    }
    case AN_OBJARRAY: {
        uint64_t cnt = be(r + 1 + ids + 4, 4);
        const uint8_t *e = r + 1 + ids + 8 + ids;
        for (uint64_t i = 0; i < cnt; i++) REF(e + i * (uint64_t)ids);
        break;
    }
    case AN_CLASSOBJ: { /* its static object fields, and its loader (as VisualVM has it) */
        REF(r + 1 + ids + 4 + ids);
        struct cur c = statics_at(h, h->off[o]);
        uint64_t m = rd(&c, 2);
        for (uint64_t i = 0; i < m && !c.bad; i++) {
            skip(&c, (uint64_t)ids);
            int t = (int)rd(&c, 1);
            if (t == HD_OBJECT && !c.bad && c.end - c.pos >= (uint64_t)ids) REF(h->p + c.pos);
            skip(&c, (uint64_t)vsize(t, ids));
        }
        break;
    }
    default: break;
    }
#undef REF
    return n;
}

struct edge_job {
    const struct an_heap *h;
    uint32_t from, to;
    bool fill;
    uint64_t unresolved;
};

static void *edge_work(void *arg)
{
    struct edge_job *j = arg;
    const struct an_heap *h = j->h;
    for (uint32_t o = j->from; o < j->to; o++) {
        if (!j->fill)
            h->eoff[o + 1] = refs_of(h, o, NULL, &j->unresolved);
        else
            refs_of(h, o, h->edge + h->eoff[o], &j->unresolved);
    }
    return NULL;
}

/* Runs the count or the fill over the objects in h->threads ranges. */
static void edges_pass(struct an_heap *h, bool fill)
{
    enum { MAXT = 16 };
    struct edge_job jobs[MAXT];
    pthread_t tid[MAXT];
    int nt = h->threads < 1 ? 1 : h->threads > MAXT ? MAXT : h->threads;
    if (h->n < 100000) nt = 1;
    for (int t = 0; t < nt; t++) {
        jobs[t] = (struct edge_job){h, (uint32_t)((uint64_t)h->n * t / nt), (uint32_t)((uint64_t)h->n * (t + 1) / nt),
                                    fill, 0};
        if (t && pthread_create(&tid[t], NULL, edge_work, &jobs[t]) != 0) edge_work(&jobs[t]), tid[t] = 0;
    }
    edge_work(&jobs[0]);
    for (int t = 1; t < nt; t++)
        if (tid[t]) pthread_join(tid[t], NULL);
    if (!fill)
        for (int t = 0; t < nt; t++) h->unresolved += jobs[t].unresolved;
}

static int edges(struct an_heap *h)
{
    h->eoff = calloc((size_t)h->n + 1, sizeof *h->eoff);
    if (!h->eoff) return -1;
    edges_pass(h, false);
    for (uint32_t o = 0; o < h->n; o++) h->eoff[o + 1] += h->eoff[o];
    h->nedges = h->eoff[h->n];
    h->edge = malloc((h->nedges ? h->nedges : 1) * sizeof *h->edge);
    if (!h->edge) return -1;
    edges_pass(h, true);
    return 0;
}

/* ------------------------------------------------------------ the whole load */

/* Memory the analysis needs for a dump with these counts, in bytes. */
static uint64_t an_memory_needed(const struct an_counts *c)
{
    /* per object: id, offset, shallow, retained, CSR offset of each direction (8 each),
     * class, trace, edge, plus five u32 arrays of the dominator pass, kind (1); per
     * reference two u32 (each direction); per class its record */
    return c->objects * (6 * 8 + 3 * 4 + 5 * 4 + 1) + c->ref_slots * 8 + c->classes * sizeof(struct an_class);
}

static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

int an_heap_load(struct an_heap *h, const struct an_file *f, uint64_t max_mem, int threads, bool progress, char *err,
                 size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->p = f->p;
    h->size = f->size;
    h->threads = threads;
    h->progress.on = progress;
    h->progress.t0 = an_now();
    if (read_records(h, err, errlen)) return -1;
    struct sink s = {0};
    uint64_t bad = walk(h, &s);
    if (s.cnt.objects >= AN_NONE - 1) return fail(err, errlen, "more than 4 billion objects");
    uint64_t need = an_memory_needed(&s.cnt);
    char msg[256];
    snprintf(msg, sizeof msg, "%llu objects, %llu reference slots, %llu classes: about %llu MB of memory",
             (unsigned long long)s.cnt.objects, (unsigned long long)s.cnt.ref_slots, (unsigned long long)s.cnt.classes,
             (unsigned long long)(need >> 20));
    an_progress(&h->progress, msg);
    if (need > max_mem) {
        snprintf(err, errlen, "the dump has %s; %llu MB may be used (--max-memory, or what the machine has free)", msg,
                 (unsigned long long)(max_mem >> 20));
        return -2;
    }
    (void)bad;
    s.collect = true;
    s.pairs = malloc((s.cnt.objects ? s.cnt.objects : 1) * 16);
    s.roots = malloc((s.nroots ? s.nroots : 1) * 8);
    if (!s.pairs || !s.roots) return free(s.pairs), free(s.roots), fail(err, errlen, "out of memory");
    walk(h, &s);
    /* HotSpot writes objects mostly in address order: sort only when needed */
    bool sorted = true;
    for (uint64_t i = 1; i < s.np && sorted; i++) sorted = s.pairs[2 * i - 2] < s.pairs[2 * i];
    if (!sorted) qsort(s.pairs, s.np, 16, cmp_pair);
    h->ids = malloc((s.np ? s.np : 1) * 8);
    h->off = malloc((s.np ? s.np : 1) * 8);
    if (!h->ids || !h->off) return free(s.pairs), free(s.roots), fail(err, errlen, "out of memory");
    uint32_t n = 0;
    for (uint64_t i = 0; i < s.np; i++) {
        if (n && h->ids[n - 1] == s.pairs[2 * i]) continue; /* an id defined twice: the first counts */
        h->ids[n] = s.pairs[2 * i];
        h->off[n++] = s.pairs[2 * i + 1];
    }
    h->n = n;
    free(s.pairs);
    h->oopsize = h->idsize == 8 && s.compressed ? 4 : h->idsize;
    an_progress(&h->progress, "objects indexed");
    h->cls = malloc(((size_t)n + 1) * sizeof *h->cls);
    h->kind = malloc((size_t)n + 1);
    h->shallow = malloc(((size_t)n + 1) * sizeof *h->shallow);
    h->trace = s.traces ? malloc(((size_t)n + 1) * sizeof *h->trace) : NULL;
    if (!h->cls || !h->kind || !h->shallow || (s.traces && !h->trace) || classes(h))
        return free(s.roots), fail(err, errlen, "out of memory");
    prim_classes(h);
    describe(h);
    /* roots: each object once */
    h->roots = malloc((s.nr ? s.nr : 1) * sizeof *h->roots);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    if (!h->roots || !seen) return free(s.roots), free(seen), fail(err, errlen, "out of memory");
    for (uint64_t i = 0; i < s.nr; i++) {
        uint32_t o = an_find(h, s.roots[i]);
        if (o != AN_NONE && !seen[o]) seen[o] = 1, h->roots[h->nroots++] = o;
    }

    free(seen);
    free(s.roots);
    if (edges(h)) return fail(err, errlen, "out of memory");
    an_progress(&h->progress, "references indexed");
    return 0;
}

void an_heap_free(struct an_heap *h)
{
    idmap_free(&h->strings);
    idmap_free(&h->class_names);
    idmap_free(&h->class_serial);
    idmap_free(&h->frames);
    idmap_free(&h->traces);
    idmap_free(&h->class_by_id);
    free(h->span_off);
    free(h->span_len);
    free(h->ids);
    free(h->off);
    free(h->cls);
    free(h->kind);
    free(h->shallow);
    free(h->trace);
    free(h->classes);
    free(h->refoffs);
    free(h->eoff);
    free(h->edge);
    free(h->roots);
    memset(h, 0, sizeof *h);
}

/* ------------------------------------------------------------ names and fields */

void an_class_name(const struct an_heap *h, uint32_t cls, struct buf *b)
{
    size_t n = 0;
    const uint8_t *s = cls != AN_NONE ? an_string(h, h->classes[cls].name_sid, &n) : NULL;
    if (!s) {
        if (cls == AN_NONE)
            buf_put(b, "?", strlen("?"));
        else
            buf_printf(b, "class#0x%llx", (unsigned long long)h->classes[cls].id);
        return;
    }
    size_t dims = 0;
    while (dims < n && s[dims] == '[') dims++;
    const uint8_t *e = s + dims;
    size_t en = n - dims;
    if (dims && en == 1) {
        static const char *const P[] = {"Z", "boolean", "B", "byte", "C", "char",  "S", "short",
                                        "I", "int",     "J", "long", "F", "float", "D", "double"};
        for (size_t i = 0; i < 16; i += 2)
            if (*e == P[i][0]) buf_put(b, P[i + 1], strlen(P[i + 1]));
    } else {
        if (dims && en >= 2 && *e == 'L') e++, en -= 2; /* "[Ljava/lang/Object;" */
        for (size_t i = 0; i < en; i++) buf_u1(b, (uint8_t)(e[i] == '/' ? '.' : (char)e[i]));
    }
    for (size_t i = 0; i < dims; i++) buf_put(b, "[]", strlen("[]"));
}

const uint8_t *an_field(const struct an_heap *h, uint32_t o, uint64_t name_sid, int *type)
{
    uint32_t len, k = h->cls[o];
    const uint8_t *data = an_instance_data(h, o, &len);
    if (!data || !name_sid || k == AN_NONE || h->classes[k].bad || len != h->classes[k].total) return NULL;
    uint32_t base = 0;
    /* walks the chain of supers (bounded by the instance's bytes: each class adds some, or
     * the loop ends at the first class with no fields left to look in) */
    for (uint32_t guard = 0; guard <= h->nclasses; guard++) {
        const struct an_class *c = &h->classes[k];
        struct cur cu = fields_at(h, c->off);
        uint64_t m = rd(&cu, 2);
        uint32_t at = base;
        for (uint64_t i = 0; i < m && !cu.bad; i++) {
            uint64_t name = rd(&cu, h->idsize);
            int t = (int)rd(&cu, 1);
            if (name == name_sid) {
                *type = t;
                return data + at;
            }
            at += (uint32_t)vsize(t, h->idsize);
        }
        base += c->own_bytes;
        uint64_t v;
        if (!c->super || !idmap_get(&h->class_by_id, c->super, &v)) break;
        k = (uint32_t)v;
    }
    return NULL;
}
