/* SPDX-License-Identifier: Apache-2.0 */
/* Top-level records: the header, the record loop, and every record but the heap dump's
 * (handed to heap.c). Notes the definitions of strings, classes, frames, traces and
 * threads that later records and heap.c look up.
 * Calls heap.c, lines.c, problems.c, reader.c, format.c and table.c. */
#include "hd.h"

#include <string.h>

/* A fixed-size record, or a variable one once its counts are known. */
static int want_len(hd_state *st, uint64_t off, const char *name, uint64_t len, uint64_t want)
{
    if (len == want) return 1;
    hd_error(st, off, "%s: record length %llu, but its content takes %llu bytes", name, (unsigned long long)len,
             (unsigned long long)want);
    return 0;
}

static int min_len(hd_state *st, uint64_t off, const char *name, uint64_t len, uint64_t min)
{
    if (len >= min) return 1;
    hd_error(st, off, "%s: record length %llu is shorter than its fixed part (%llu bytes)", name,
             (unsigned long long)len, (unsigned long long)min);
    return 0;
}

/* Same id defined again: an error even when the content is the same, as each id is
 * defined once in a well-formed file (a repeat means its writer lost track of it). */
static void redefined(hd_state *st, int same, uint64_t off, const char *name, const char *idfmt, uint64_t id,
                      uint64_t first)
{
    st->dup_defs++;
    if (!st->check) return;
    char idtxt[32];
    snprintf(idtxt, sizeof idtxt, idfmt, (unsigned long long)id);
    hd_error(st, off, "%s %s defined again%s (first at 0x%llx)", name, idtxt,
             same ? ", the same" : " with different content", (unsigned long long)first);
}

static int same_def(const void *a, const void *b, size_t size)
{
    return memcmp((const char *)a + sizeof(uint64_t), (const char *)b + sizeof(uint64_t), size - sizeof(uint64_t)) == 0;
}

/* Adds definition VAL (a struct whose first member is `def`) to st->ARR under KEY,
 * or compares it with the earlier definition of KEY. */
#define DEFINE(MAP, ARR, N, CAP, KIND, KEY, VAL, WHAT, IDFMT)                                             \
    do {                                                                                                  \
        uint64_t *slot_;                                                                                  \
        if (hd_map_put(&st->MAP, (KEY), st->N, &slot_)) {                                                 \
            HD_GROW(st->ARR, st->N, st->CAP);                                                             \
            st->ARR[st->N++] = (VAL);                                                                     \
            hd_defined(st, (KIND), (KEY), (VAL).def);                                                     \
        } else {                                                                                          \
            redefined(st, same_def(&st->ARR[*slot_], &(VAL), sizeof(VAL)), (VAL).def, WHAT, IDFMT, (KEY), \
                      st->ARR[*slot_].def);                                                               \
        }                                                                                                 \
    } while (0)

static int rec_string(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    int I = st->idsize;
    if (!min_len(st, off, "STRING", b->left, (uint64_t)I)) return 0;
    uint64_t id = hd_b_id(b);
    uint64_t n = b->left;
    /* The pool grows as the text arrives, a MiB at a time: when the file's size is not
     * known (a pipe), the length is not checked before, and may be anything. + 1: an
     * empty text still points into the pool. */
    uint64_t got = 0;
    do {
        uint64_t want = n - got < (1u << 20) ? n - got : (1u << 20);
        if (buf_reserve(&st->pool, (size_t)(got + want) + 1)) hd_out_of_memory((size_t)(got + want) + 1);
        if (hd_read(b->r, st->pool.data + st->pool.len + got, (size_t)want) < want) return 0;
        got += want;
    } while (got < n);
    unsigned char *text = st->pool.data + st->pool.len;
    b->left = 0;
    uint64_t *slot;
    if (hd_map_put(&st->strings, id, st->nstr, &slot)) {
        HD_GROW(st->strv, st->nstr, st->capstr);
        st->strv[st->nstr++] = (hd_string){off, st->pool.len, n};
        st->pool.len += n;
        hd_defined(st, K_STRING, id, off);
    } else {
        hd_string *old = &st->strv[*slot];
        int same = old->len == n && memcmp(st->pool.data + old->off, text, (size_t)n) == 0;
        redefined(st, same, off, "STRING", "0x%llx", id, old->def);
    }
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "STRING id=0x%llx ", (unsigned long long)id);
        hd_put_quoted(&st->line, text, (size_t)n);
        hd_line_end(st);
    }
    return 1;
}

/* An array class loaded again, under another serial, with the same name: HotSpot's heap
 * dumper in JDK 17 writes each array class twice (on its own and with its element class).
 * Counted as they come; problems.c says them once the file is read, a warning in the JVM's
 * own dumps and an error in any other file. */
static int array_again(hd_state *st, uint32_t first_serial, uint64_t name)
{
    uint64_t *first = hd_map_get(&st->classes_by_serial, first_serial);
    size_t n, m;
    const unsigned char *a = hd_string_text(st, name, &n);
    const unsigned char *b = first ? hd_string_text(st, st->clsv[*first].name, &m) : NULL;
    return a && b && n == m && n > 1 && a[0] == '[' && memcmp(a, b, n) == 0;
}

static int rec_load_class(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    int I = st->idsize;
    if (!want_len(st, off, "LOAD_CLASS", b->left, 8 + 2 * (uint64_t)I)) return 0;
    hd_class c = {0};
    c.serial = hd_b_u4(b);
    c.obj = hd_b_id(b);
    c.trace = hd_b_u4(b);
    c.name = hd_b_id(b);
    c.def = off;
    if (hd_b_bad(b)) return 0;
    if (c.serial == 0 && st->check) hd_error(st, off, "LOAD_CLASS: class serial number 0 (must be > 0)");
    hd_use(st, K_TRACE, c.trace, off, "LOAD_CLASS", 1);
    hd_use(st, K_STRING, c.name, off, "LOAD_CLASS", 0);
    DEFINE(classes_by_serial, clsv, ncls, capcls, K_CLASS, c.serial, c, "LOAD_CLASS", "serial %llu");
    uint64_t *slot;
    if (!hd_map_put(&st->classes_by_obj, c.obj, c.serial, &slot) && *slot != c.serial) {
        if (st->check && array_again(st, (uint32_t)*slot, c.name)) {
            if (!st->array_reloads++) st->array_reload_off = off;
        } else if (st->check)
            hd_error(st, off, "LOAD_CLASS: class object ID 0x%llx defined again, by serial %u (first by serial %llu)",
                     (unsigned long long)c.obj, c.serial, (unsigned long long)*slot);
        st->dup_defs++;
        *slot = c.serial;
    }
    hd_defined(st, K_CLASSOBJ, c.obj, off);
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "LOAD_CLASS serial=%u obj=0x%llx trace=%u name=", c.serial, (unsigned long long)c.obj,
                   c.trace);
        hd_put_sid(st, c.name, 1);
        hd_line_end(st);
    }
    return 1;
}

static int rec_unload_class(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!want_len(st, off, "UNLOAD_CLASS", b->left, 4)) return 0;
    uint32_t serial = hd_b_u4(b);
    if (hd_b_bad(b)) return 0;
    hd_use(st, K_CLASS, serial, off, "UNLOAD_CLASS", 0);
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "UNLOAD_CLASS serial=%u name=", serial);
        uint64_t *slot = hd_map_get(&st->classes_by_serial, serial);
        if (slot)
            hd_put_sid(st, st->clsv[*slot].name, 1);
        else
            buf_put(&st->line, "?", 1);
        hd_line_end(st);
    }
    return 1;
}

static int rec_frame(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    int I = st->idsize;
    if (!want_len(st, off, "FRAME", b->left, 4 * (uint64_t)I + 8)) return 0;
    hd_frame f = {0};
    f.id = hd_b_id(b);
    f.method = hd_b_id(b);
    f.sig = hd_b_id(b);
    f.source = hd_b_id(b);
    f.cls = hd_b_u4(b);
    f.line = (int32_t)hd_b_u4(b);
    f.def = off;
    if (hd_b_bad(b)) return 0;
    hd_use(st, K_STRING, f.method, off, "FRAME", 0);
    hd_use(st, K_STRING, f.sig, off, "FRAME", 0);
    hd_use(st, K_STRING, f.source, off, "FRAME", 1);
    hd_use(st, K_CLASS, f.cls, off, "FRAME", 0);
    DEFINE(frames, frv, nfr, capfr, K_FRAME, f.id, f, "FRAME", "0x%llx");
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "FRAME id=0x%llx method=", (unsigned long long)f.id);
        hd_put_sid(st, f.method, 0);
        buf_put(&st->line, " sig=", 5);
        hd_put_sid(st, f.sig, 0);
        buf_put(&st->line, " source=", 8);
        hd_put_sid(st, f.source, 0);
        buf_printf(&st->line, " class=%u(", f.cls);
        hd_put_class_serial(st, f.cls);
        buf_printf(&st->line, ") line=%d", f.line);
        hd_line_end(st);
    }
    return 1;
}

static int rec_trace(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    int I = st->idsize;
    uint64_t len = b->left;
    if (!min_len(st, off, "TRACE", len, 12)) return 0;
    hd_trace t = {0};
    t.serial = hd_b_u4(b);
    t.thread = hd_b_u4(b);
    t.nframes = hd_b_u4(b);
    t.def = off;
    if (hd_b_bad(b) || !want_len(st, off, "TRACE", len, 12 + (uint64_t)t.nframes * (uint64_t)I)) return 0;
    hd_use(st, K_THREAD, t.thread, off, "TRACE", 1);
    t.first = st->ntrframes;
    for (uint32_t i = 0; i < t.nframes && !hd_b_bad(b); i++) {
        uint64_t fid = hd_b_id(b);
        hd_use(st, K_FRAME, fid, off, "TRACE", 0);
        HD_GROW(st->trframes, st->ntrframes, st->captrframes);
        st->trframes[st->ntrframes++] = fid;
    }
    if (hd_b_bad(b)) return 0;
    uint64_t *slot;
    int is_new = hd_map_put(&st->traces, t.serial, st->ntr, &slot);
    if (is_new) {
        HD_GROW(st->trv, st->ntr, st->captr);
        st->trv[st->ntr++] = t;
        hd_defined(st, K_TRACE, t.serial, off);
    } else {
        hd_trace *o = &st->trv[*slot];
        int same = o->thread == t.thread && o->nframes == t.nframes &&
            (!t.nframes || memcmp(&st->trframes[o->first], &st->trframes[t.first], t.nframes * sizeof(uint64_t)) == 0);
        redefined(st, same, off, "TRACE", "serial %llu", t.serial, o->def);
    }
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "TRACE serial=%u thread=%u nframes=%u frames=", t.serial, t.thread, t.nframes);
        for (uint32_t i = 0; i < t.nframes; i++)
            buf_printf(&st->line, i ? ",0x%llx" : "0x%llx", (unsigned long long)st->trframes[t.first + i]);
        if (!t.nframes) buf_put(&st->line, "-", 1);
        hd_line_end(st);
    }
    if (!is_new) st->ntrframes = t.first; /* a repeated definition keeps the first one's frames */
    return 1;
}

static int rec_alloc_sites(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    uint64_t len = b->left;
    if (!min_len(st, off, "ALLOC_SITES", len, 34)) return 0;
    uint16_t flags = hd_b_u2(b);
    uint32_t cutoff = hd_b_u4(b); /* a float's bits */
    uint32_t live_bytes = hd_b_u4(b), live_objs = hd_b_u4(b);
    uint64_t alloc_bytes = hd_b_u8(b), alloc_objs = hd_b_u8(b);
    uint32_t n = hd_b_u4(b);
    if (hd_b_bad(b) || !want_len(st, off, "ALLOC_SITES", len, 34 + 25 * (uint64_t)n)) return 0;
    st->alloc_sites += n;
    if (st->visit && st->visit->alloc_sites) {
        const uint64_t totals[4] = {live_bytes, live_objs, alloc_bytes, alloc_objs};
        st->visit->alloc_sites(st->visit->ctx, st, totals);
    }
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "ALLOC_SITES flags=0x%x cutoff=", flags);
        hd_put_value(&st->line, HD_FLOAT, cutoff);
        buf_printf(&st->line, " live_bytes=%u live_objs=%u alloc_bytes=%llu alloc_objs=%llu nsites=%u", live_bytes,
                   live_objs, (unsigned long long)alloc_bytes, (unsigned long long)alloc_objs, n);
        hd_line_end(st);
    }
    for (uint32_t i = 0; i < n && !hd_b_bad(b); i++) {
        uint64_t soff = b->r->off;
        uint8_t array = hd_b_u1(b);
        uint32_t cls = hd_b_u4(b), trace = hd_b_u4(b);
        uint32_t lb = hd_b_u4(b), lo = hd_b_u4(b), ab = hd_b_u4(b), ao = hd_b_u4(b);
        if (hd_b_bad(b)) return 0;
        if (array && !hd_type_name(array))
            hd_error(st, soff, "ALLOC_SITES: site %u has invalid array type %u", i, array);
        hd_use(st, K_CLASS, cls, soff, "ALLOC_SITES", 0);
        hd_use(st, K_TRACE, trace, soff, "ALLOC_SITES", 1);
        if (st->visit && st->visit->site) {
            const uint32_t counts[4] = {lb, lo, ab, ao};
            st->visit->site(st->visit->ctx, st, cls, trace, counts);
        }
        if (st->print) {
            hd_line_begin(st, soff, 1, 0);
            buf_printf(&st->line, "SITE array=%u class=%u(", array, cls);
            hd_put_class_serial(st, cls);
            buf_printf(&st->line, ") trace=%u live_bytes=%u live_objs=%u alloc_bytes=%u alloc_objs=%u", trace, lb, lo,
                       ab, ao);
            hd_line_end(st);
        }
    }
    return 1;
}

static int rec_heap_summary(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!want_len(st, off, "HEAP_SUMMARY", b->left, 24)) return 0;
    uint32_t lb = hd_b_u4(b), lo = hd_b_u4(b);
    uint64_t ab = hd_b_u8(b), ao = hd_b_u8(b);
    if (hd_b_bad(b)) return 0;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "HEAP_SUMMARY live_bytes=%u live_objs=%u alloc_bytes=%llu alloc_objs=%llu", lb, lo,
                   (unsigned long long)ab, (unsigned long long)ao);
        hd_line_end(st);
    }
    return 1;
}

static int rec_start_thread(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    int I = st->idsize;
    if (!want_len(st, off, "START_THREAD", b->left, 8 + 4 * (uint64_t)I)) return 0;
    hd_thread t = {0};
    t.serial = hd_b_u4(b);
    t.obj = hd_b_id(b);
    t.trace = hd_b_u4(b);
    t.name = hd_b_id(b);
    t.group = hd_b_id(b);
    t.parent = hd_b_id(b);
    t.def = off;
    if (hd_b_bad(b)) return 0;
    hd_use(st, K_TRACE, t.trace, off, "START_THREAD", 1);
    hd_use(st, K_STRING, t.name, off, "START_THREAD", 1);
    hd_use(st, K_STRING, t.group, off, "START_THREAD", 1);
    hd_use(st, K_STRING, t.parent, off, "START_THREAD", 1);
    size_t known = st->nth;
    DEFINE(threads, thv, nth, capth, K_THREAD, t.serial, t, "START_THREAD", "serial %llu");
    if (st->check && st->nth > known && !hd_map_get(&st->thread_ends, t.serial)) st->live_threads++;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "START_THREAD serial=%u obj=0x%llx trace=%u name=", t.serial, (unsigned long long)t.obj,
                   t.trace);
        hd_put_sid(st, t.name, 1);
        buf_put(&st->line, " group=", 7);
        hd_put_sid(st, t.group, 1);
        buf_put(&st->line, " parent=", 8);
        hd_put_sid(st, t.parent, 1);
        hd_line_end(st);
    }
    return 1;
}

static int rec_end_thread(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!want_len(st, off, "END_THREAD", b->left, 4)) return 0;
    uint32_t serial = hd_b_u4(b);
    if (hd_b_bad(b)) return 0;
    hd_use(st, K_THREAD, serial, off, "END_THREAD", 0);
    if (st->check && hd_map_put(&st->thread_ends, serial, off, NULL) && hd_map_get(&st->threads, serial))
        st->live_threads--;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "END_THREAD serial=%u", serial);
        hd_line_end(st);
    }
    return 1;
}

static int rec_cpu_samples(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    uint64_t len = b->left;
    if (!min_len(st, off, "CPU_SAMPLES", len, 8)) return 0;
    uint32_t total = hd_b_u4(b), n = hd_b_u4(b);
    if (hd_b_bad(b) || !want_len(st, off, "CPU_SAMPLES", len, 8 + 8 * (uint64_t)n)) return 0;
    st->cpu_total += total;
    st->cpu_traces += n;
    if (st->visit && st->visit->cpu_samples) st->visit->cpu_samples(st->visit->ctx, st, total);
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "CPU_SAMPLES total=%u ntraces=%u", total, n);
        hd_line_end(st);
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n && !hd_b_bad(b); i++) {
        uint64_t soff = b->r->off;
        uint32_t count = hd_b_u4(b), trace = hd_b_u4(b);
        if (hd_b_bad(b)) return 0;
        sum += count;
        hd_use(st, K_TRACE, trace, soff, "CPU_SAMPLES", 1);
        if (st->visit && st->visit->cpu_sample) st->visit->cpu_sample(st->visit->ctx, st, count, trace);
        if (st->print) {
            hd_line_begin(st, soff, 1, 0);
            buf_printf(&st->line, "SAMPLE count=%u trace=%u top=", count, trace);
            hd_put_top(st, trace);
            hd_line_end(st);
        }
    }
    if (st->check && sum > total)
        hd_error(st, off, "CPU_SAMPLES: the traces' counts add up to %llu, more than the total %u",
                 (unsigned long long)sum, total);
    return 1;
}

static int rec_control(hd_state *st, hd_body *b, uint64_t off, uint32_t time)
{
    if (!want_len(st, off, "CONTROL_SETTINGS", b->left, 6)) return 0;
    uint32_t flags = hd_b_u4(b);
    uint16_t depth = hd_b_u2(b);
    if (hd_b_bad(b)) return 0;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "CONTROL_SETTINGS flags=0x%x depth=%u", flags, depth);
        hd_line_end(st);
    }
    return 1;
}

/* A line ended before the format name's NUL: a text file, most likely a text profile. */
static void text_file(hd_state *st, const char *first_line)
{
    if (!strncmp(first_line, "JAVA PROFILE ", 13) && strstr(first_line, ", created "))
        hd_error(st, 0,
                 "this is an HPROF text profile (format=a, like java.hprof.txt), not the binary format: "
                 "read it as text (less, grep); hprof-dump reads binary profiles (format=b, like java.hprof)");
    else
        hd_error(st, 0,
                 "this is a text file, not an HPROF binary file (its first line ends before the "
                 "NUL-terminated format name \"JAVA PROFILE 1.0.x\")");
}

static int header(hd_state *st)
{
    hd_reader *r = &st->r;
    char name[64];
    size_t n = 0;
    for (;;) {
        unsigned char c;
        if (hd_read(r, &c, 1) != 1) {
            hd_error(st, 0, "bad header: the file ends inside the format name");
            return 0;
        }
        if (!c) break;
        if (c == '\n') {
            name[n] = 0;
            text_file(st, name);
            return 0;
        }
        if (n + 1 >= sizeof name) {
            hd_error(st, 0, "bad header: no NUL-terminated format name in the first %zu bytes", sizeof name);
            return 0;
        }
        name[n++] = (char)c;
    }
    name[n] = 0;
    snprintf(st->version, sizeof st->version, "%s", name);
    if (!strcmp(name, "JAVA PROFILE 1.0.1"))
        st->minor = 1;
    else if (!strcmp(name, "JAVA PROFILE 1.0.2"))
        st->minor = 2;
    else {
        struct buf tmp = {0};
        hd_put_quoted(&tmp, (const unsigned char *)name, n);
        hd_error(st, 0, "bad header: format name %s (expected \"JAVA PROFILE 1.0.1\" or \"JAVA PROFILE 1.0.2\")",
                 hd_buf_text(&tmp));
        buf_free(&tmp);
    }
    hd_body b = {r, 12, 4, 0};
    uint64_t idsize = hd_b_u4(&b);
    uint64_t hi = hd_b_u4(&b), lo = hd_b_u4(&b);
    if (r->eof) {
        hd_error(st, r->off, "bad header: the file ends inside the header");
        return 0;
    }
    if (idsize != 4 && idsize != 8) {
        hd_error(st, n + 1, "bad header: identifier size %llu (must be 4 or 8)", (unsigned long long)idsize);
        return 0;
    }
    st->idsize = (int)idsize;
    st->time_ms = hi << 32 | lo;
    if (st->print) {
        hd_line_begin(st, 0, 0, 0);
        buf_put(&st->line, "HEADER version=", 15);
        hd_put_quoted(&st->line, (const unsigned char *)name, n);
        buf_printf(&st->line, " idsize=%d time_ms=%llu", st->idsize, (unsigned long long)st->time_ms);
        hd_line_end(st);
    }
    return 1;
}

/* One record's body: 1 when it was read whole (its length is then checked), 0 when the
 * record reported its own problem. */
static int record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time)
{
    switch (tag) {
    case 0x01: return rec_string(st, b, off, time);
    case 0x02: return rec_load_class(st, b, off, time);
    case 0x03: return rec_unload_class(st, b, off, time);
    case 0x04: return rec_frame(st, b, off, time);
    case 0x05: return rec_trace(st, b, off, time);
    case 0x06: return rec_alloc_sites(st, b, off, time);
    case 0x07: return rec_heap_summary(st, b, off, time);
    case 0x0A: return rec_start_thread(st, b, off, time);
    case 0x0B: return rec_end_thread(st, b, off, time);
    case 0x0D: return rec_cpu_samples(st, b, off, time);
    case 0x0E: return rec_control(st, b, off, time);
    case 0x40:
    case 0x41:
    case 0x42:
    case 0x43:
    case 0x44: return hd_timeline_record(st, b, tag, off, time);
    case 0x0C:
    case 0x1C:
    case 0x2C: hd_heap_record(st, b, tag, off, time); return 0;
    default:
        hd_error(st, off, "unknown record tag 0x%02x (length %llu)", tag, (unsigned long long)b->left);
        if (st->print) {
            hd_line_begin(st, off, 0, time);
            buf_printf(&st->line, "UNKNOWN tag=0x%02x length=%llu", tag, (unsigned long long)b->left);
            hd_line_end(st);
        }
        return 0;
    }
}

void hd_run(hd_state *st)
{
    hd_reader *r = &st->r;
    if (!header(st)) return;
    for (;;) {
        uint64_t off = r->off;
        size_t avail = hd_fill(r, 9);
        if (r->err || avail == 0) break;
        if (avail < 9) {
            hd_error(st, off, "truncated record: the file ends inside a record header (%zu of 9 bytes)", avail);
            break;
        }
        hd_body hb = {r, 9, 4, 0};
        int tag = hd_b_u1(&hb);
        uint32_t time = hd_b_u4(&hb);
        uint32_t len = hd_b_u4(&hb);
        const char *name = hd_tag_name(tag);
        st->records++;
        st->rec_count[tag]++;
        if (st->fsize && off + 9 + len > st->fsize) {
            char lbl[16];
            snprintf(lbl, sizeof lbl, "tag 0x%02x", tag);
            hd_error(st, off, "truncated record: %s record of length %u, but only %llu bytes follow", name ? name : lbl,
                     len, (unsigned long long)(st->fsize - off - 9));
            break;
        }
        hd_body b = {r, len, st->idsize, 0};
        int done = record(st, &b, tag, off, time);
        if (r->err) break;
        if (!r->eof && done && b.left)
            hd_error(st, off, "%s: record length %u, but its content ends %llu bytes earlier", name, len,
                     (unsigned long long)b.left);
        hd_b_skip(&b, b.left);
        if (r->eof) {
            hd_error(st, off, "truncated record: the file ends inside this %s record (length %u)",
                     name ? name : "unknown", len);
            break;
        }
    }
    hd_heap_finish(st);
    if (r->err) st->io_error = r->err;
}
