/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The index of a heap dump, from the mapped file: every object of the last heap dump gets
 * a dense index (objects sorted by id; an id is found by binary search, in the run of its
 * high half, on its low half), its class, kind, allocation trace and shallow size;
 * references become CSR arrays (offsets + targets), counted then filled by `threads`
 * threads over ranges of objects; GC roots a list of object indexes, in VisualVM's order.
 * Three passes over the dump's bodies: count (the memory needed, checked before anything
 * big is allocated), collect (ids and offsets), then the references; each lets the pages
 * it has read go as it goes (an_pages_done).
 *
 * Shallow sizes are VisualVM's (org.graalvm.visualvm.lib.jfluid.heap): an instance is a
 * header of idsize + oopsize bytes, then its fields (object fields oopsize bytes each),
 * aligned to 8; an array the header, 4 bytes of length, its elements, aligned to 8. The
 * oop size is 4 when the dump's ids are 8 bytes and the JVM ran with compressed oops (the
 * dump holds the string "java.vm.compressedOopsMode", the system property HotSpot sets
 * then and that VisualVM looks for), else the id size.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "analyze_classes.h"
#include "analyze_edges.h"
#include "analyze_read.h"
#include "util/hprof_format.h"

/* Seconds of the monotonic clock, for progress lines. */
static double an_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Resident memory so far, MB: the peak, and now the heap's and the mapped dump's
 * (/proc/self/status; 0 where unknown). */
static void an_resident(unsigned long long mb[3])
{
    static const char *const KEY[3] = {"VmHWM:", "RssAnon:", "RssFile:"};
    mb[0] = mb[1] = mb[2] = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f))
        for (int i = 0; i < 3; i++)
            if (!strncmp(line, KEY[i], strlen(KEY[i]))) mb[i] = strtoull(line + strlen(KEY[i]), NULL, 10) >> 10;
    fclose(f);
}

void an_progress(struct an_progress *p, const char *what)
{
    if (!p->on) return;
    unsigned long long mb[3];
    an_resident(mb);
    fprintf(stderr, "hprof analyze: %s (%.1f s; resident %llu MB heap + %llu MB dump, peak %llu MB)\n", what,
            an_now() - p->t0, mb[1], mb[2], mb[0]);
}

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
    uint8_t *root_tag;   /* each root's sub-record tag */
    uint64_t *class_ids; /* of the CLASS DUMPs */
    uint64_t np, nr, nc;
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

static void root(struct sink *s, uint64_t id, int tag)
{
    if (!s->collect) {
        s->nroots++;
    } else if (s->nr < s->nroots) {
        s->root_tag[s->nr] = (uint8_t)tag;
        s->roots[s->nr++] = id;
    }
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
    case 0x07: /* MONITOR USED */ root(s, rd(c, ids), tag); break;
    case 0x01: /* JNI GLOBAL */ root(s, rd(c, ids), tag), skip(c, (uint64_t)ids); break;
    case 0x02: /* JNI LOCAL */
    case 0x03: /* JAVA FRAME */
    case 0x08: /* THREAD OBJECT */ root(s, rd(c, ids), tag), skip(c, 8); break;
    case 0x04: /* NATIVE STACK */
    case 0x06: /* THREAD BLOCK */ root(s, rd(c, ids), tag), skip(c, 4); break;
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
        if (!c->bad && s->collect && s->nc < s->cnt.classes) s->class_ids[s->nc++] = id;
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
    uint64_t bad = 0, k = 0;
    for (size_t i = 0; i < h->nspans; i++) {
        struct cur c = {h->p, h->span_off[i], h->span_off[i] + h->span_len[i], false};
        while (c.pos < c.end) {
            if (!sub(h, &c, s)) {
                bad++;
                break; /* the rest of this record cannot be framed */
            }
            an_pages_done(h, ++k);
        }
    }
    an_pages_done(h, 0);
    return bad;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------ objects */

/* The class index of an object's class id; AN_NONE when not in the dump. */
static uint32_t class_index(const struct an_heap *h, uint64_t id)
{
    uint64_t v;
    return idmap_get(&h->class_by_id, id, &v) ? (uint32_t)v : AN_NONE;
}

/* VisualVM's shallow size of object o, from its record. */
static uint64_t shallow_of(const struct an_heap *h, uint32_t o)
{
    int ids = h->idsize;
    const uint8_t *r = h->p + an_off(h, o);
    uint64_t hdr = (uint64_t)ids + (uint64_t)h->oopsize;
    switch (r[0]) {
    case 0x20: /* VisualVM's ClassDumpInstance: java.lang.Class's instance size */
        return h->java_lang_class != AN_NONE ? h->classes[h->java_lang_class].shallow : 0;
    case 0x21: return h->cls[o] != AN_NONE ? h->classes[h->cls[o]].shallow : align8(hdr);
    case 0x22: return align8(hdr + 4 + be(r + 1 + ids + 4, 4) * (uint64_t)h->oopsize);
    default: return align8(hdr + 4 + be(r + 1 + ids + 4, 4) * (uint64_t)vsize(r[1 + ids + 8], ids));
    }
}

uint64_t an_shallow_big(const struct an_heap *h, uint32_t o) { return shallow_of(h, o); }

/* Class, kind, trace and shallow size of every object. */
static void describe(struct an_heap *h)
{
    int ids = h->idsize;
    for (uint32_t i = 0; i < h->n; i++) {
        const uint8_t *r = h->p + an_off(h, i);
        uint32_t tr = (uint32_t)be(r + 1 + ids, 4);
        switch (r[0]) {
        case 0x20:
            h->kind[i] = AN_CLASSOBJ;
            h->cls[i] = h->java_lang_class;
            break;
        case 0x21:
            h->kind[i] = AN_INSTANCE;
            h->cls[i] = class_index(h, be(r + 1 + ids + 4, ids));
            break;
        case 0x22:
            h->kind[i] = AN_OBJARRAY;
            h->cls[i] = class_index(h, be(r + 1 + ids + 8, ids));
            break;
        default: {
            int t = r[1 + ids + 8];
            h->kind[i] = AN_PRIMARRAY;
            h->cls[i] = t < 16 ? h->prim_class[t] : AN_NONE;
            break;
        }
        }
        uint64_t sz = shallow_of(h, i);
        h->shallow[i] = sz < AN_BIG ? (uint32_t)sz : AN_BIG;
        if (h->trace) h->trace[i] = tr;
        an_pages_done(h, i + 1);
    }
}

/* The index of the objects from the (id, offset) pairs, by id, an id defined twice
 * counting once (the first); -1 out of memory. */
static int index_objects(struct an_heap *h, const uint64_t *pairs, uint64_t np)
{
    size_t cap = np ? np : 1;
    h->id_lo = malloc(cap * sizeof *h->id_lo);
    h->off_lo = malloc(cap * sizeof *h->off_lo);
    h->off_hi = malloc(cap);
    if (!h->id_lo || !h->off_lo || !h->off_hi) return -1;
    uint32_t n = 0, caprun = 0;
    for (uint64_t i = 0; i < np; i++) {
        uint64_t id = pairs[2 * i], off = pairs[2 * i + 1];
        if (i && pairs[2 * i - 2] == id) continue; /* an id defined twice: the first counts */
        if (!h->nruns || h->run_hi[h->nruns - 1] != id >> 32) {
            if (h->nruns + 1 >= caprun) {
                caprun = caprun ? caprun * 2 : 16;
                uint64_t *hi = realloc(h->run_hi, caprun * sizeof *hi);
                if (hi) h->run_hi = hi;
                uint32_t *at = hi ? realloc(h->run_at, caprun * sizeof *at) : NULL;
                if (!at) return -1;
                h->run_at = at;
            }
            h->run_hi[h->nruns] = id >> 32;
            h->run_at[h->nruns++] = n;
        }
        h->id_lo[n] = (uint32_t)id;
        h->off_lo[n] = (uint32_t)off;
        h->off_hi[n++] = (uint8_t)(off >> 32);
    }
    if (!h->run_at && !(h->run_at = malloc(sizeof *h->run_at))) return -1;
    h->run_at[h->nruns] = n;
    h->n = n;
    return 0;
}

/* ------------------------------------------------------------ the whole load */

/* Memory the analysis needs for a dump with these counts, in bytes. */
static uint64_t an_memory_needed(const struct an_counts *c)
{
    /* per object: the index (id 4, offset 5, class 4, kind 1, shallow 4, trace 4, CSR
     * offset 4) and, at the peak, six u32 arrays of the dominator pass (analyze_dom.c);
     * per reference two u32 (each direction); per class its record */
    return c->objects * (4 + 5 + 4 + 1 + 4 + 4 + 4 + 6 * 4) + c->ref_slots * 8 + c->classes * sizeof(struct an_class);
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
    h->drop_pages = f->fd >= 0;
    if (f->size >> 40) return fail(err, errlen, "a dump of 1 TB or more");
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
    s.root_tag = malloc(s.nroots ? s.nroots : 1);
    s.class_ids = malloc((s.cnt.classes ? s.cnt.classes : 1) * 8);
    if (!s.pairs || !s.roots || !s.root_tag || !s.class_ids)
        return free(s.pairs), free(s.roots), free(s.root_tag), free(s.class_ids), fail(err, errlen, "out of memory");
    walk(h, &s);
    /* HotSpot writes objects mostly in address order: sort only when needed */
    bool sorted = true;
    for (uint64_t i = 1; i < s.np && sorted; i++) sorted = s.pairs[2 * i - 2] < s.pairs[2 * i];
    if (!sorted) qsort(s.pairs, s.np, 16, cmp_pair);
    int rc = index_objects(h, s.pairs, s.np);
    free(s.pairs);
    uint32_t nclass = 0, *class_objs = rc ? NULL : malloc((s.nc ? s.nc : 1) * sizeof *class_objs);
    if (!class_objs) rc = -1;
    for (uint64_t i = 0; !rc && i < s.nc; i++) {
        uint32_t o = an_find(h, s.class_ids[i]);
        if (o != AN_NONE) class_objs[nclass++] = o;
    }
    if (nclass) qsort(class_objs, nclass, sizeof *class_objs, cmp_u32);
    uint32_t kept = 0; /* each once */
    for (uint32_t i = 0; i < nclass; i++)
        if (!kept || class_objs[kept - 1] != class_objs[i]) class_objs[kept++] = class_objs[i];
    free(s.class_ids);
    if (rc) return free(s.roots), free(s.root_tag), fail(err, errlen, "out of memory");
    uint32_t n = h->n;
    h->oopsize = h->idsize == 8 && s.compressed ? 4 : h->idsize;
    an_progress(&h->progress, "objects indexed");
    h->cls = malloc(((size_t)n + 1) * sizeof *h->cls);
    h->kind = malloc((size_t)n + 1);
    h->shallow = malloc(((size_t)n + 1) * sizeof *h->shallow);
    h->trace = s.traces ? malloc(((size_t)n + 1) * sizeof *h->trace) : NULL;
    if (!h->cls || !h->kind || !h->shallow || (s.traces && !h->trace) || an_classes_index(h, class_objs, kept))
        return free(s.roots), free(s.root_tag), free(class_objs), fail(err, errlen, "out of memory");
    free(class_objs);
    an_prim_classes(h);
    describe(h);
    /* roots: each object once */
    h->roots = malloc((s.nr ? s.nr : 1) * sizeof *h->roots);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    if (!h->roots || !seen) return free(s.roots), free(s.root_tag), free(seen), fail(err, errlen, "out of memory");
    /* in VisualVM's order, from which its nearest-root paths and the class edges below
     * follow: by kind (UNKNOWN, then by tag 1 to 8), each kind in file order */
    for (int rank = 0; rank <= 8; rank++)
        for (uint64_t i = 0; i < s.nr; i++) {
            if ((s.root_tag[i] == 0xFF ? 0 : s.root_tag[i]) != rank) continue;
            uint32_t o = an_find(h, s.roots[i]);
            if (o != AN_NONE && !seen[o]) seen[o] = 1, h->roots[h->nroots++] = o;
        }
    free(s.root_tag);

    free(seen);
    free(s.roots);
    an_pages_done(h, 0);
    if (an_edges_index(h) || an_class_edges(h)) return fail(err, errlen, "out of memory");
    an_pages_done(h, 0);
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
    free(h->id_lo);
    free(h->run_hi);
    free(h->run_at);
    free(h->off_lo);
    free(h->off_hi);
    free(h->cls);
    free(h->kind);
    free(h->shallow);
    free(h->trace);
    free(h->classes);
    free(h->refoffs);
    free(h->eoff32);
    free(h->eoff64);
    free(h->edge);
    free(h->roots);
    memset(h, 0, sizeof *h);
}
