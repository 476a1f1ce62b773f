/* SPDX-License-Identifier: Apache-2.0 */
/* The views' pieces: the stack profile model, collapsed stacks, the protobuf encoder,
 * gzip's stored blocks, pprof's layout and the flame graph's data. */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "util/gzip.h"
#include "util/protobuf.h"
#include "writers/stack_profile.h"
#include "writers/views.h"

static const char *text(struct buf *b)
{
    buf_u1(b, 0);
    b->len--;
    return (const char *)b->data;
}

static void model_and_collapsed(void)
{
    struct stack_profile p;
    sp_init(&p);
    sp_add_type(&p, "samples", "count");
    uint32_t hot = sp_frame(&p, "A.hot", "A.java", 7, SP_JAVA);
    uint32_t hot2 = sp_frame(&p, "A.hot", "A.java", 9, SP_JAVA); /* another line: another frame */
    uint32_t main_ = sp_frame(&p, "A.main", "A.java", 3, SP_JAVA);
    uint32_t semi = sp_frame(&p, "B.x;y", NULL, 0, SP_NATIVE);
    CHECK(sp_frame(&p, "A.hot", "A.java", 7, SP_JAVA) == hot && hot2 != hot, "frames are interned by name, file, line");
    uint32_t s1[] = {hot, main_}, s2[] = {hot2, main_}, s3[] = {semi, main_};
    int64_t one = 1, five = 5, zero = 0;
    sp_add(&p, s1, 2, &five);
    sp_add(&p, s1, 2, &one);
    sp_add(&p, s2, 2, &one);
    sp_add(&p, s3, 2, &zero);
    CHECK(p.nstacks == 3 && p.stacks[0].v[0] == 6, "the same stack added twice adds up (3 stacks, 6 in the first)");
    CHECK(sp_total(&p, 0) == 7, "the total adds every stack");
    struct buf b;
    buf_init(&b);
    CHECK(view_collapsed(&p, 0, &b) == 0, "collapsed stacks written");
    CHECK_STR(text(&b), "A.main;A.hot 7\n", "collapsed: root first, stacks of the same names merged, zeros left out");
    buf_reset(&b);
    int64_t two = 2;
    sp_add(&p, s3, 2, &two);
    view_collapsed(&p, 0, &b);
    CHECK_STR(text(&b), "A.main;A.hot 7\nA.main;B.x_y 2\n", "collapsed: ';' in a name becomes '_', lines sorted");
    buf_reset(&b);
    CHECK(view_flamegraph(&p, NULL, &b) == 0 && strstr(text(&b), "nodes:[6,0,9,\n") &&
              strstr(text(&b), "names:[\"\",\"all\",\"A.main\",\"A.hot\",\"B.x_y\"]"),
          "flame graph: the root holds the total, names listed once");
    CHECK(!strstr(text(&b), "/*@PROFILE@*/"), "flame graph: the page's data mark is replaced");
    buf_free(&b);
    sp_free(&p);
}

static void protobuf(void)
{
    struct buf b, m;
    buf_init(&b);
    buf_init(&m);
    pb_varint(&b, 300);
    CHECK(b.len == 2 && b.data[0] == 0xac && b.data[1] == 0x02, "varint 300 = ac 02");
    buf_reset(&b);
    pb_int(&b, 2, -1);
    CHECK(b.len == 11 && b.data[0] == 0x10 && b.data[10] == 0x01, "int64 -1: ten bytes after the key");
    buf_reset(&b);
    pb_uint(&b, 1, 0);
    CHECK(b.len == 0, "a zero field is left out");
    pb_uint(&m, 1, 150);
    pb_message(&b, 3, &m);
    CHECK(b.len == 5 && b.data[0] == 0x1a && b.data[1] == 3 && b.data[2] == 0x08 && b.data[3] == 0x96 &&
              b.data[4] == 0x01 && m.len == 0,
          "a nested message: key, length, body (and the message buffer emptied)");
    buf_free(&b);
    buf_free(&m);
}

static void gzip(void)
{
    CHECK(gzip_crc32("123456789", 9) == 0xcbf43926u, "CRC-32 of \"123456789\" is cbf43926");
    struct buf b;
    buf_init(&b);
    gzip_stored(&b, "hello", 5);
    CHECK(b.len == 10 + 5 + 5 + 8 && b.data[0] == 0x1f && b.data[1] == 0x8b && b.data[10] == 1 && b.data[11] == 5 &&
              b.data[13] == 0xfa && memcmp(b.data + 15, "hello", 5) == 0,
          "gzip: header, one final stored block (len 5, nlen ~5), the bytes");
    buf_reset(&b);
    size_t n = 200000;
    char *big = calloc(1, n);
    gzip_stored(&b, big, n);
    CHECK(b.len == 10 + 4 * 5 + n + 8 && b.data[10] == 0, "gzip: 200000 bytes in four blocks, the first not final");
    free(big);
    buf_free(&b);
}

static void kinds(void)
{
    CHECK(view_kind_of_path("a/b.html") == VIEW_HTML && view_kind_of_path("x.pb.gz") == VIEW_PPROF &&
              view_kind_of_path("x.collapsed") == VIEW_COLLAPSED && view_kind_of_path("x.gz") == 0 &&
              view_kind_of_path(".html") == 0,
          "the output's extension picks the view");
}

/* Whether the bytes of `want` are in `in`. */
static bool holds(const struct buf *in, const struct buf *want)
{
    return want->len && memmem(in->data, in->len, want->data, want->len) != NULL;
}

/* What fleet tools read of a rolling window: its time and duration, and the labels
 * every sample carries (service_name, host, pid). */
static void window_labels(void)
{
    struct stack_profile p;
    sp_init(&p);
    sp_add_type(&p, "samples", "count");
    uint32_t f = sp_frame(&p, "A.hot", "A.java", 7, SP_JAVA);
    int64_t three = 3;
    sp_add(&p, &f, 1, &three);
    p.time_nanos = 1795860900000000000;
    p.duration_nanos = 60000000000;
    sp_label(&p, "service_name", "shop");
    sp_label(&p, "host", "web1");
    sp_label(&p, "pid", "4242");
    struct buf gz, want, label;
    buf_init(&gz);
    buf_init(&want);
    buf_init(&label);
    CHECK(view_pprof(&p, &gz) == 0 && gz.len > 10 + 5 + 8, "pprof of a window written");
    struct buf raw = {.data = gz.data + 15, .len = gz.len - 15 - 8}; /* one stored block: small */
    pb_int(&want, 9, p.time_nanos);
    pb_int(&want, 10, p.duration_nanos);
    CHECK(holds(&raw, &want), "pprof: time_nanos (9) and duration_nanos (10) of the window");
    buf_reset(&want);
    pb_uint(&label, 1, sp_string(&p, "service_name"));
    pb_uint(&label, 2, sp_string(&p, "shop"));
    pb_message(&want, 3, &label);
    pb_uint(&label, 1, sp_string(&p, "host"));
    pb_uint(&label, 2, sp_string(&p, "web1"));
    pb_message(&want, 3, &label);
    CHECK(holds(&raw, &want), "pprof: the sample carries string labels service_name and host (Label key, str)");
    buf_reset(&want);
    pb_string(&want, 6, "4242");
    CHECK(holds(&raw, &want), "pprof: the pid label's value is in the string table");
    /* Function 1: id, name, file, and no system_name (pprof simplifies a name equal to
     * its system_name as C++: `char[] (apportioned)` would lose its parentheses). */
    buf_reset(&want);
    buf_reset(&label);
    pb_uint(&label, 1, 1);
    pb_uint(&label, 2, sp_string(&p, "A.hot"));
    pb_uint(&label, 4, sp_string(&p, "A.java"));
    pb_message(&want, 5, &label);
    CHECK(holds(&raw, &want), "pprof: a function is its id, name and file, without a system_name");
    buf_free(&gz);
    buf_free(&want);
    buf_free(&label);
    sp_free(&p);
}

/* Values a file hands in are held so that any sum of stacks fits: the views add freely. */
static void held_values(void)
{
    struct stack_profile p;
    sp_init(&p);
    sp_add_type(&p, "cpu", "nanoseconds");
    uint32_t a = sp_frame(&p, "A.a", NULL, 0, SP_JAVA), b = sp_frame(&p, "A.b", NULL, 0, SP_JAVA),
             c = sp_frame(&p, "A.c", NULL, 0, SP_JAVA);
    int64_t big = INT64_MAX / 2 + 1, neg = -5;
    sp_add(&p, &a, 1, &big);
    sp_add(&p, &b, 1, &big);
    sp_add(&p, &c, 1, &neg);
    sp_add(&p, &a, 1, &big);
    CHECK(sp_total(&p, 0) == INT64_MAX && p.stacks[0].v[0] == INT64_MAX / 2 + 1 && p.stacks[1].v[0] == INT64_MAX / 2 &&
              p.stacks[2].v[0] == 0,
          "values past 64 bits in all are held at what the total can take; a negative one adds 0");
    struct buf out;
    buf_init(&out);
    CHECK(view_collapsed(&p, 0, &out) == 0 && view_flamegraph(&p, NULL, &out) == 0 && view_pprof(&p, &out) == 0,
          "and every view is written from them");
    buf_free(&out);
    sp_free(&p);
}

/* A profile of `n` stacks: `deep` of them `len` method frames long (and a pseudo-frame
 * on top, which does not count), the others 1 frame; depth: what the profiler said. */
static void cut_profile(struct stack_profile *p, int depth, uint32_t len, int deep, int n)
{
    sp_init(p);
    sp_add_type(p, "samples", "count");
    p->depth = depth;
    uint32_t fr[70];
    fr[0] = sp_frame(p, "[GC]", NULL, 0, SP_PSEUDO);
    for (uint32_t k = 1; k <= len && k < 70; k++) {
        char name[32];
        snprintf(name, sizeof name, "p.C.m%u", k);
        fr[k] = sp_frame(p, name, NULL, 0, SP_JAVA);
    }
    int64_t one = 1;
    for (int i = 0; i < n; i++) sp_add(p, i < deep ? fr : fr + len, i < deep ? len + 1 : 1, &one);
}

static void cut_depth(void)
{
    static const struct {
        int depth, len, deep, n, want;
        const char *what;
    } cases[] = {
        {4, 4, 10, 10, 4, "depth=4, every stack 4 deep: cut at 4 (the pseudo-frame not counted)"},
        {4, 3, 10, 10, 0, "depth=4, stacks 3 deep: nothing was cut"},
        {0, 4, 10, 10, 4, "depth not known: the deepest stack is taken for the limit"},
        {8, 8, 1, 20, 0, "depth=8: a twentieth cut is not worth a note"},
        {16, 16, 6, 10, 16, "depth=16: most stacks cut"},
        {16, 16, 4, 10, 0, "depth=16: fewer than half cut"},
        {64, 64, 10, 10, 0, "depth=64: never a note, however many were cut"},
    };
    struct stack_profile p;
    struct buf b;
    buf_init(&b);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cut_profile(&p, cases[i].depth, (uint32_t)cases[i].len, cases[i].deep, cases[i].n);
        CHECK(view_cut_depth(&p) == cases[i].want && (*view_cut_note(&p, &b) != 0) == (cases[i].want != 0),
              cases[i].what);
        sp_free(&p);
    }
    cut_profile(&p, 4, 4, 10, 10);
    CHECK_STR(view_cut_note(&p, &b),
              "stacks cut at depth 4: run with depth=64 (view= does this) for a readable flame graph",
              "the note says the depth and the fix");
    sp_free(&p);
    buf_free(&b);
}

int main(void)
{
    cut_depth();
    model_and_collapsed();
    held_values();
    window_labels();
    protobuf();
    gzip();
    kinds();
    return UNIT_DONE();
}
