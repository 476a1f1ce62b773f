/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the heap dump writers (writers/heap_dump_*.c), without a JVM. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options/options.h"
#include "tables/classes.h"
#include "tables/sites.h"
#include "tables/strings.h"
#include "tables/traces.h"
#include "unit.h"
#include "util/buf.h"
#include "writers/heap_dump.h"
#include "writers/output.h"
#include "writers/writer.h"

static char *slurp(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return NULL;
    char *p = malloc((size_t)st.st_size + 1);
    *n = (size_t)read(fd, p, (size_t)st.st_size);
    p[*n] = 0;
    close(fd);
    return p;
}

/* Two classes: Base (int a) and Derived extends Base (Object ref, long b). */
static struct class_info ci_base = {.serial = 100001, .object_id = 0x50000001, .name = "Base"};
static struct class_info ci_der = {.serial = 100002, .object_id = 0x50000002, .name = "Derived"};
static struct class_info ci_arr = {.serial = 100003, .object_id = 0x50000003, .name = "Derived[]"};
static struct class_info ci_ints = {.serial = 100004, .object_id = 0x50000004, .name = "int[]"};

static void make_classes(struct hd_class *c)
{
    memset(c, 0, 4 * sizeof *c);
    static struct hd_field base_f[] = {{"a", HD_INT, 0}};
    static struct hd_field der_f[] = {{"ref", HD_OBJECT, 0}, {"b", HD_LONG, 0}};
    static struct hd_field der_s[] = {{"count", HD_INT, 0}, {"self", HD_OBJECT, 0}};
    static uint8_t der_sv[8] = {0, 0, 0, 7, 0x50, 0, 0, 0x10};
    ci_base.load_written = ci_der.load_written = ci_arr.load_written = ci_ints.load_written = false;
    c[0].info = &ci_base;
    c[0].fields = base_f;
    c[0].nfields = 1;
    c[0].inst_bytes = 4;
    c[1].info = &ci_der;
    c[1].super = &c[0];
    c[1].fields = der_f;
    c[1].nfields = 2;
    c[1].statics = der_s;
    c[1].nstatics = 2;
    c[1].static_values = der_sv;
    c[1].inst_bytes = 16;
    c[1].obj_size = 32;
    c[2].info = &ci_arr;
    c[2].is_array = true;
    c[2].elem_type = HD_OBJECT;
    c[2].super = &c[0];
    c[3].info = &ci_ints;
    c[3].is_array = true;
    c[3].elem_type = HD_INT;
}

static void write_dump(const struct heap_dump_writer *wr, struct writer_ctx *w, struct hd_class *c, int ninstances)
{
    struct hd_session s = {.w = w};
    output_lock(w->out);
    wr->prepare(&s, c, 4);
    wr->begin(&s, 3, 100);
    struct hd_root_info r = {.kind = HD_ROOT_JNI_GLOBAL, .id = 0x50000010, .gref = 1, .trace_serial = 300000};
    wr->root(&s, &r);
    struct hd_root_info t = {.kind = HD_ROOT_JAVA_FRAME, .id = 0x50000010, .thread_serial = 200001, .frame = 2};
    wr->root(&s, &t);
    /* Derived: ref (own) = 0x50000010, b = 0x0102030405060708, then Base's a = -1 */
    uint8_t v[16] = {0x50, 0, 0, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff};
    /* allocation site traces: 300007, 300008, 300009 */
    for (int i = 0; i < ninstances; i++) wr->instance(&s, 0x50000010 + (uint32_t)i, 300007, &c[1], 32, v);
    uint32_t elems[3] = {0x50000010, 0, 0x50000011};
    wr->obj_array(&s, 0x60000000, 300008, &c[2], 32, 3, elems);
    uint8_t ints[8] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    wr->prim_array(&s, 0x60000001, 300009, &c[3], 24, 2, HD_INT, ints);
    for (int k = 0; k < 4; k++) wr->class_dump(&s, &c[k]);
    wr->end(&s);
    output_flush(w->out);
    output_unlock(w->out);
}

/* A fresh temporary file as the output (path: a mkstemp template). 0 on success. */
static int open_out(struct output *o, char *path, bool text)
{
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    char err[256], *chosen = NULL;
    return output_open_file(o, path, text, 1, &chosen, err, sizeof err);
}

/* prims: primfields=y,primarrays=y (the default), else both n. */
static void test_binary(bool prims)
{
    char path[] = "/tmp/hprof-unit-heap-XXXXXX";
    struct output o;
    struct string_table strings;
    strings_init(&strings);
    struct options opt;
    memset(&opt, 0, sizeof opt);
    opt.heap = HEAP_DUMP;
    opt.format = 'b';
    opt.depth = 4;
    opt.primfields = opt.primarrays = prims;
    if (open_out(&o, path, false) != 0) {
        CHECK(0, "binary heap dump: output opens");
        return;
    }
    struct trace empty = {.serial = 300000};
    struct writer_ctx w = {.out = &o, .strings = &strings, .opt = &opt, .empty_trace = &empty};
    struct hd_class c[4];
    make_classes(c);
    output_lock(&o);
    binary_writer.file_header(&w);
    binary_writer.trace(&w, &empty); /* as a section's preamble does: written once */
    output_unlock(&o);
    /* enough instances (33 bytes each) for more than one 4 MiB segment */
    write_dump(&heap_dump_binary, &w, c, 300000);
    output_close(&o);

    size_t n;
    uint8_t *p = (uint8_t *)slurp(path, &n);
    CHECK(p && n > 20 && memcmp(p, "JAVA PROFILE 1.0.2", 19) == 0, "binary heap dump: header JAVA PROFILE 1.0.2");
    size_t at = 19 + 4 + 8;
    int traces = 0, segments = 0, ends = 0, strings_seen = 0, loads = 0, bad = 0, subs = 0, instances = 0;
    uint32_t biggest = 0;
    while (p && at + 9 <= n) {
        uint8_t tag = p[at];
        uint32_t len = be_load_u4(p + at + 5);
        size_t body = at + 9;
        if (body + len > n) {
            bad++;
            break;
        }
        if (tag == 0x01) strings_seen++;
        if (tag == 0x02) loads++;
        if (tag == 0x05) traces += len == 12 && be_load_u4(p + body) == 300000 ? 1 : 100;
        if (tag == 0x2C) ends++;
        if (tag == 0x1C) {
            segments++;
            if (len > biggest) biggest = len;
            size_t q = body;
            while (q < body + len) { /* walk the sub-records exactly to the end */
                uint8_t st = p[q++];
                subs++;
                if (st == 0x01)
                    q += 8;
                else if (st == 0x03)
                    q += 12;
                else if (st == 0x21) {
                    instances++;
                    uint32_t nb = be_load_u4(p + q + 12);
                    if (instances == 1 && !prims)
                        CHECK(nb == 16 && be_load_u4(p + q + 16) == 0x50000010 && be_load_u8(p + q + 20) == 0 &&
                                  be_load_u4(p + q + 28) == 0,
                              "primfields=n: INSTANCE DUMP keeps its layout and references, primitives 0");
                    if (instances == 1 && prims)
                        CHECK(nb == 16 && be_load_u4(p + q + 8) == 0x50000002 && be_load_u4(p + q + 16) == 0x50000010 &&
                                  p[q + 20] == 1 && p[q + 27] == 8 && be_load_u4(p + q + 28) == 0xffffffffu &&
                                  be_load_u4(p + q + 4) == 300007,
                              "binary heap dump: INSTANCE DUMP trace and values, own fields first, then the super's");
                    q += 16 + nb;
                } else if (st == 0x22) {
                    CHECK(be_load_u4(p + q + 4) == 300008, "binary heap dump: OBJECT ARRAY DUMP trace");
                    q += 16 + 4 * (size_t)be_load_u4(p + q + 8);
                } else if (st == 0x23) {
                    CHECK(be_load_u4(p + q + 4) == 300009, "binary heap dump: PRIMITIVE ARRAY DUMP trace");
                    CHECK(be_load_u4(p + q + 8) == (prims ? 2 : 0),
                          "primarrays=%c: PRIMITIVE ARRAY DUMP of %d elements", prims ? 'y' : 'n', prims ? 2 : 0);
                    q += 13 + 4 * (size_t)be_load_u4(p + q + 8);
                } else if (st == 0x20) {
                    uint32_t cid = be_load_u4(p + q);
                    size_t q0 = q;
                    q += 36;
                    q += 2; /* no constant pool entries */
                    uint16_t ns = (uint16_t)(p[q] << 8 | p[q + 1]);
                    q += 2;
                    if (cid == 0x50000002)
                        CHECK(be_load_u4(p + q + 5) == (prims ? 7u : 0u) && be_load_u4(p + q + 14) == 0x50000010,
                              "primfields=%c: a primitive static %s, a reference static kept", prims ? 'y' : 'n',
                              prims ? "kept" : "written as 0");
                    for (uint16_t i = 0; i < ns; i++) q += 5 + (p[q + 4] == HD_LONG ? 8 : 4);
                    uint16_t nf = (uint16_t)(p[q] << 8 | p[q + 1]);
                    q += 2 + 5 * (size_t)nf;
                    if (cid == 0x50000002)
                        CHECK(be_load_u4(p + q0 + 8) == 0x50000001 && be_load_u4(p + q0 + 32) == 16 && ns == 2 &&
                                  nf == 2,
                              "binary heap dump: CLASS DUMP with super, instance size (supers included), statics, "
                              "fields");
                } else {
                    bad++;
                    break;
                }
            }
            if (q != body + len) bad++;
        }
        at = body + len;
    }
    CHECK(p && at == n && !bad, "binary heap dump: records and sub-records parse exactly to the end");
    CHECK(segments > 1 && biggest <= 4u * 1024 * 1024 + 64, "binary heap dump: %d segments of at most 4 MiB", segments);
    CHECK(ends == 1, "binary heap dump: one HEAP DUMP END");
    CHECK(traces == 1, "binary file: the empty trace 300000 written once, by the file header");
    CHECK(instances == 300000 && subs == 300000 + 2 + 2 + 4, "binary heap dump: every sub-record written");
    CHECK(loads == 4 && strings_seen >= 4 + 5, "binary heap dump: LOAD CLASS and field names before the dump");
    free(p);
    unlink(path);
}

static void test_text(void)
{
    char path[] = "/tmp/hprof-unit-heap-XXXXXX";
    struct output o;
    struct options opt;
    memset(&opt, 0, sizeof opt);
    opt.format = 'a';
    if (open_out(&o, path, true) != 0) {
        CHECK(0, "text heap dump: output opens");
        return;
    }
    struct writer_ctx w = {.out = &o, .opt = &opt};
    struct hd_class c[4];
    make_classes(c);
    write_dump(&heap_dump_text, &w, c, 1);
    output_close(&o);
    size_t n;
    char *t = slurp(path, &n);
    /* the records written (sz 32 + 32 + 24), not the source's estimate (3, 100) */
    CHECK(t && strncmp(t, "HEAP DUMP BEGIN (3 objects, 88 bytes) ", 38) == 0, "text heap dump: BEGIN line");
    CHECK(t && strstr(t, "\nROOT 50000010 (kind=<JNI global ref>, id=1, trace=300000)\n"),
          "text heap dump: JNI global root");
    CHECK(t && strstr(t, "\nROOT 50000010 (kind=<Java stack>, thread=200001, frame=2)\n"),
          "text heap dump: Java stack root");
    CHECK(t && strstr(t, "\nOBJ 50000010 (sz=32, trace=300007, class=Derived@50000002)\n\tref\t\t50000010\n"),
          "text heap dump: OBJ line, a short field name with two tabs");
    CHECK(t &&
              strstr(t,
                     "\nARR 60000000 (sz=32, trace=300008, nelems=3, elem "
                     "type=Derived[]@50000003)\n\t[0]\t\t50000010\n\t[2]\t\t50000011\n"),
          "text heap dump: object array, null elements left out");
    CHECK(t && strstr(t, "\nARR 60000001 (sz=24, trace=300009, nelems=2, elem type=int[])\n"),
          "text heap dump: primitive array");
    CHECK(t && strstr(t, "\nCLS 50000002 (name=Derived, trace=300000)\n\tsuper\t\t50000001\n\tstatic self\t50000010\n"),
          "text heap dump: CLS with super and object statics only");
    CHECK(t && n >= 14 && strcmp(t + n - 14, "HEAP DUMP END\n") == 0, "text heap dump: END line last");
    free(t);
    unlink(path);
}

/* Objects over 4 GiB: the text dump's sizes and totals are 64-bit (they wrapped at 2^32). */
static void test_text_big(void)
{
    char path[] = "/tmp/hprof-unit-heap-XXXXXX";
    struct output o;
    struct options opt;
    memset(&opt, 0, sizeof opt);
    opt.format = 'a';
    if (open_out(&o, path, true) != 0) {
        CHECK(0, "text heap dump over 4 GiB: output opens");
        return;
    }
    struct writer_ctx w = {.out = &o, .opt = &opt};
    struct hd_class c[4];
    make_classes(c);
    struct hd_session s = {.w = &w};
    uint32_t elems[1] = {0x50000010};
    output_lock(&o);
    heap_dump_text.begin(&s, 5000000000ull, 9600000048ull);
    heap_dump_text.prim_array(&s, 0x60000001, 300009, &c[3], 4800000016ull, 1200000000u, HD_INT, NULL);
    heap_dump_text.obj_array(&s, 0x60000002, 300008, &c[2], 4800000024ull, 1, elems);
    heap_dump_text.instance(&s, 0x60000003, 300007, &c[1], (1ull << 32) + 32, (const uint8_t[16]){0});
    heap_dump_text.end(&s);
    output_flush(&o);
    output_unlock(&o);
    output_close(&o);
    size_t n;
    char *t = slurp(path, &n);
    /* BEGIN sums the sz= of the records written (4800000016 + 4800000024 + 4294967328) */
    static const char begin[] = "HEAP DUMP BEGIN (3 objects, 13894967368 bytes) ";
    CHECK(t && strncmp(t, begin, sizeof begin - 1) == 0, "text heap dump: BEGIN's byte total past 2^32 in full");
    CHECK(t && strstr(t, "\nARR 60000001 (sz=4800000016, trace=300009, nelems=1200000000, elem type=int[])\n"),
          "text heap dump: a primitive array of 4.8 GB has its whole sz");
    CHECK(t && strstr(t, "\nARR 60000002 (sz=4800000024, trace=300008, nelems=1, "),
          "text heap dump: object array sz past 2^32");
    CHECK(t && strstr(t, "\nOBJ 60000003 (sz=4294967328, "), "text heap dump: instance sz past 2^32");
    free(t);
    unlink(path);
}

/* Binary arrays too long for a u4 sub-record length keep as many elements as fit, as the
 * JDK's heap dumper does: (2^32 - 1 - the other fields' bytes) / element size. */
static void test_array_fit(void)
{
    CHECK(hd_array_fit(600000000u, 8, 14) == 536870910u, "binary: long[600M] keeps 536870910 elements (4-byte IDs)");
    CHECK(hd_array_fit(2147483647u, 2, 14) == 2147483640u, "binary: char[2^31-1] keeps 2147483640 elements");
    CHECK(hd_array_fit(2147483647u, 4, 17) == 1073741819u, "binary: Object[2^31-1] keeps 1073741819 references");
    CHECK(hd_array_fit(2147483647u, 1, 14) == 2147483647u, "binary: byte[2^31-1] fits whole");
    CHECK(hd_array_fit(536870910u, 8, 14) == 536870910u && hd_array_fit(536870911u, 8, 14) == 536870910u,
          "binary: the longest long[] that fits is kept whole, one more is cut");
}

/* Binary SITES and HEAP SUMMARY: u4 counts past 4 Gi say 0xFFFFFFFF instead of wrapping. */
static void test_binary_sites_big(void)
{
    char path[] = "/tmp/hprof-unit-heap-XXXXXX";
    struct output o;
    struct string_table strings;
    strings_init(&strings);
    struct options opt;
    memset(&opt, 0, sizeof opt);
    opt.heap = HEAP_SITES;
    opt.format = 'b';
    opt.depth = 4;
    if (open_out(&o, path, false) != 0) {
        CHECK(0, "binary sites over 4 GiB: output opens");
        return;
    }
    struct trace empty = {.serial = 300000};
    struct writer_ctx w = {.out = &o, .strings = &strings, .opt = &opt, .empty_trace = &empty};
    struct class_info ci = {.serial = 100009, .object_id = 0x50000009, .name = "long[]", .signature = "[J"};
    struct site site = {.id = 1,
                        .trace = &empty,
                        .cls = &ci,
                        .live_objs = 1,
                        .live_bytes = 4800000016ull,
                        .shown_objs = 1,
                        .shown_bytes = 4800000016ull};
    atomic_init(&site.alloc_objs, 1);
    atomic_init(&site.alloc_bytes, 4800000016ull);
    struct site *rows[1] = {&site};
    struct site_totals tot = {4800000016ull, 1, 4800000016ull, 1, 0.0};
    output_lock(&o);
    binary_writer.file_header(&w);
    binary_writer.sites(&w, rows, 1, &tot);
    output_flush(&o);
    output_unlock(&o);
    output_close(&o);
    size_t n;
    uint8_t *p = (uint8_t *)slurp(path, &n);
    uint32_t summary_live = 0, site_live = 0, site_alloc = 0;
    uint64_t summary_alloc = 0;
    for (size_t at = 19 + 4 + 8; p && at + 9 <= n;) {
        uint32_t len = be_load_u4(p + at + 5);
        const uint8_t *body = p + at + 9;
        if (p[at] == 0x07) {
            summary_live = be_load_u4(body);
            summary_alloc = be_load_u8(body + 8);
        }
        if (p[at] == 0x06 && len >= 2 + 4 + 24 + 4 + 25) {
            site_live = be_load_u4(body + 2 + 4 + 24 + 4 + 9);
            site_alloc = be_load_u4(body + 2 + 4 + 24 + 4 + 17);
        }
        at += 9 + len;
    }
    CHECK(summary_live == 0xFFFFFFFFu && summary_alloc == 4800000016ull,
          "binary HEAP SUMMARY: live bytes past 4 GiB say the u4's most, allocated bytes (u8) in full");
    CHECK(site_live == 0xFFFFFFFFu && site_alloc == 0xFFFFFFFFu,
          "binary ALLOC SITES: a site's u4 bytes past 4 GiB say the u4's most");
    free(p);
    unlink(path);
}

int main(void)
{
    test_binary(true);
    test_binary(false);
    test_text();
    test_text_big();
    test_array_fit();
    test_binary_sites_big();
    return UNIT_DONE();
}
