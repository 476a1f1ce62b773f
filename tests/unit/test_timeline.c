/* SPDX-License-Identifier: Apache-2.0 */
/* timeline=: the per-interval aggregation and leak statistics (tables/timeline.c), the
 * jvmstat reader (util/perfdata.c) on a made-up buffer, and the records of both writers
 * (binary read back by hprof-dump's reader). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options/options.h"
#include "tables/classes.h"
#include "tables/run_info.h"
#include "tables/sites.h"
#include "tables/strings.h"
#include "tables/timeline.h"
#include "tables/traces.h"
#include "unit.h"
#include "util/jvmstat.h"
#include "util/perfdata.h"
#include "writers/output.h"
#include "writers/timeline_html.h"
#include "writers/timeline_records.h"
#include "writers/writer.h"

static struct class_info cls_a = {.serial = 100001, .name = "A", .signature = "LA;"};
static struct class_info cls_b = {.serial = 100002, .name = "B", .signature = "LB;"};
static struct trace tr_a = {.serial = 300001}, tr_b = {.serial = 300002};

static void alloc(struct site *s, uint64_t objs, uint64_t bytes)
{
    atomic_fetch_add(&s->alloc_objs, objs);
    atomic_fetch_add(&s->alloc_bytes, bytes);
}

static void test_intervals(void)
{
    struct site_table st;
    struct timeline_table t;
    sites_init(&st);
    timeline_init(&t);
    struct site *a = sites_of(&st, &tr_a, &cls_a), *b = sites_of(&st, &tr_b, &cls_b);
    alloc(a, 10, 160);
    alloc(b, 1, 1000);
    timeline_snapshot(&t, &st, 1);
    alloc(a, 5, 80); /* after GC 1: the next interval's */
    a->live_objs = 10, a->live_bytes = 160;
    struct alloc_row *rows;
    struct alloc_totals tot;
    int n = timeline_interval(&t, &st, 1, true, &rows, &tot);
    CHECK(n == 2 && rows[0].site == b && rows[1].site == a, "interval at GC 1: two rows, most bytes allocated first");
    CHECK(n == 2 && rows[1].alloc_objs == 10 && rows[1].alloc_bytes == 160 && rows[1].live_objs == 10,
          "interval at GC 1: counts at the GC's snapshot, not the allocations after it");
    CHECK(tot.alloc_objs == 11 && tot.alloc_bytes == 1160 && tot.live_bytes == 160, "interval totals");
    free(rows);
    /* GC 2 and GC 3 before the records: GC 2's interval goes on to GC 3's. */
    timeline_snapshot(&t, &st, 2);
    alloc(a, 1, 16);
    timeline_snapshot(&t, &st, 3);
    CHECK(timeline_interval(&t, &st, 2, true, &rows, &tot) == TL_LATER, "a GC whose snapshot was replaced: TL_LATER");
    free(rows);
    n = timeline_interval(&t, &st, 3, true, &rows, &tot);
    CHECK(n == 1 && rows[0].alloc_objs == 6 && tot.alloc_objs == 6, "... and the later GC's record covers both (6)");
    free(rows);
    /* A site that allocated nothing and whose live counts did not change: left out. */
    n = timeline_interval(&t, &st, 0, true, &rows, &tot);
    CHECK(n == 0 && tot.live_bytes == 160, "an interval where nothing changed has no rows (the totals still count)");
    free(rows);
    a->live_objs = 0, a->live_bytes = 0;
    n = timeline_interval(&t, &st, 0, true, &rows, &tot);
    CHECK(n == 1 && rows[0].site == a && rows[0].live_objs == 0 && rows[0].alloc_objs == 0,
          "a site whose live count dropped is listed, with nothing allocated");
    free(rows);
    /* Not at a GC (the command): counts now; b has nothing: left out. */
    alloc(a, 2, 32);
    n = timeline_interval(&t, &st, 0, false, &rows, &tot);
    CHECK(n == 1 && rows[0].alloc_objs == 2 && rows[0].live_objs == 0,
          "without live counts: allocations since the last");
    free(rows);
}

static void test_suspects(void)
{
    struct site_table st;
    struct timeline_table t;
    sites_init(&st);
    timeline_init(&t);
    static struct trace tl = {.serial = 300010}, tc = {.serial = 300011}, tf = {.serial = 300012};
    struct site *leak = sites_of(&st, &tl, &cls_a), *churn = sites_of(&st, &tc, &cls_b),
                *flat = sites_of(&st, &tf, &cls_b);
    for (int i = 1; i <= 100; i++) { /* past TL_POINTS: the series halve */
        leak->live_bytes = 100u * (uint64_t)i;
        churn->live_bytes = (i * 7919) % 13 * 10u; /* up and down */
        flat->live_bytes = 5000;
        alloc(churn, 1000, 16000);
        struct alloc_row *rows;
        struct alloc_totals tot;
        timeline_interval(&t, &st, 0, true, &rows, &tot);
        free(rows);
    }
    struct suspect s[4];
    int n = timeline_suspects(&t, &st, s, 4);
    CHECK(n == 1 && s[0].site == leak, "leak suspects: the growing site, not the churning or the flat one (%d)", n);
    CHECK(n == 1 && s[0].first_live == 100 && s[0].last_live == 10000 && s[0].highs == 100 && s[0].intervals == 100,
          "leak suspects: first and last live, a new high in each of 100 intervals");
    const uint64_t *v = timeline_series(&t, leak->id);
    CHECK(t.npoints <= TL_POINTS && t.npoints >= TL_POINTS / 2 && v && v[0] == 100 &&
              v[1] == 100u * (t.point_interval[1] + 1),
          "series: bounded (%u points, a point every %u), values at the intervals they name", t.npoints, t.stride);
    struct gc_record g = {.used_after = 1};
    for (uint32_t i = 1; i <= 3000; i++) {
        g.seq = i;
        timeline_add_gc(&t, &g, i, 0);
    }
    CHECK(t.nheap <= TL_HEAP_POINTS && t.heap[0].gc == 1 && t.heap[1].gc == 1 + t.stride_heap,
          "heap series: bounded (%u of 3000 GCs, every %u-th)", t.nheap, t.stride_heap);
}

/* A buffer laid out as HotSpot's jvmstat memory, with the counters named. */
static size_t make_perfdata(unsigned char *b, size_t cap, const char *const *names, const int64_t *values, int n)
{
    memset(b, 0, cap);
    b[0] = 0xca, b[1] = 0xfe, b[2] = 0xc0, b[3] = 0xc0, b[4] = 1;
    size_t off = 32;
    for (int i = 0; i < n; i++) {
        unsigned char *e = b + off;
        size_t nlen = strlen(names[i]) + 1, name_at = 20, data_at = (20 + nlen + 7) & ~(size_t)7;
        int32_t len = (int32_t)(data_at + 8), v[5] = {len, (int32_t)name_at, 0, 0, (int32_t)data_at};
        memcpy(e, &v[0], 12);
        e[12] = 'J';
        memcpy(e + 16, &v[4], 4);
        memcpy(e + name_at, names[i], nlen);
        memcpy(e + data_at, &values[i], 8);
        off += (size_t)len;
    }
    int32_t first = 32, count = n;
    memcpy(b + 24, &first, 4);
    memcpy(b + 28, &count, 4);
    return off;
}

static void test_perfdata(void)
{
    static _Alignas(8) unsigned char b[4096];
    const char *names[] = {"sun.gc.generation.0.space.0.used",     "sun.gc.generation.0.capacity",
                           "sun.gc.generation.1.space.0.used",     "sun.gc.generation.1.capacity",
                           "sun.gc.generation.0.space.0.capacity", "sun.rt.vmInitDoneTime"};
    const int64_t values[] = {1000, 8000, 500, 20000, 7777, 1795569957653};
    size_t len = make_perfdata(b, sizeof b, names, values, 6);
    struct perfdata p;
    memset(&p, 0, sizeof p);
    uint64_t used, committed;
    CHECK(perfdata_open(&p, b, len) && perfdata_heap(&p, &used, &committed) && used == 1500 && committed == 28000,
          "perfdata: heap used sums the spaces, committed the generations (space capacities not counted)");
    const volatile int64_t *t = perfdata_long(&p, "sun.rt.vmInitDoneTime");
    CHECK(t && *t == 1795569957653, "perfdata: a named long counter");
    CHECK(!perfdata_long(&p, "sun.rt.nothing"), "perfdata: an unknown name is not found");
    int64_t *live = (int64_t *)(void *)(b + ((const unsigned char *)(uintptr_t)p.used[0] - b));
    *live = 3000; /* the JVM updates it in place */
    CHECK(perfdata_heap(&p, &used, &committed) && used == 3500, "perfdata: values are read as they change");
    b[4] = 0;
    CHECK(!perfdata_open(&p, b, len), "perfdata: a big-endian buffer is refused");
    b[4] = 1;
    CHECK(!perfdata_open(&p, b, 20), "perfdata: a buffer shorter than its prologue is refused");
    int32_t bad = 5000;
    memcpy(b + 32, &bad, 4); /* the first entry's length past the end */
    CHECK(perfdata_open(&p, b, len) && !perfdata_heap(&p, &used, &committed), "perfdata: a broken entry ends the scan");
}

/* The tool's reader (hprof list, stat) on the same layout: longs, sums, a string. */
static void test_jvmstat(void)
{
    static _Alignas(8) unsigned char b[4096];
    const char *names[] = {"sun.gc.generation.0.space.0.used", "sun.gc.generation.1.space.0.used", "sun.os.hrt.ticks",
                           "sun.rt.javaCommand"};
    const int64_t values[] = {1000, 500, 42, 0};
    size_t len = make_perfdata(b, sizeof b, names, values, 4);
    /* The last entry made a string: a byte vector of 16 with the command line. */
    size_t last = len - 48; /* 20 header + 19 name, aligned to 40, + 8 */
    int32_t vlen = 8;
    memcpy(b + last + 8, &vlen, 4);
    b[last + 12] = 'B';
    memcpy(b + len - 8, "Main a\0x", 8);
    b[5] = 2, b[7] = 1; /* version 2.0, accessible */
    int32_t used = (int32_t)len;
    memcpy(b + 8, &used, 4);
    struct jvmstat j;
    char err[128], cmd[64];
    int64_t v = 0;
    CHECK(jvmstat_open(&j, b, len, err, sizeof err) == 0, "jvmstat: opens (%s)", err);
    CHECK(jvmstat_long(&j, "sun.os.hrt.ticks", &v) && v == 42, "jvmstat: a long by name");
    CHECK(jvmstat_sum(&j, "sun.gc.generation.", ".used") == 1500, "jvmstat: a sum over names");
    CHECK(jvmstat_string(&j, "sun.rt.javaCommand", cmd, sizeof cmd) && strcmp(cmd, "Main a") == 0,
          "jvmstat: a string, cut at its NUL");
    CHECK(!jvmstat_long(&j, "sun.rt.javaCommand", &v), "jvmstat: a string is not a long");
    CHECK(jvmstat_long_or(&j, "nothing", -7) == -7, "jvmstat: an unknown name gives the default");
    b[7] = 0;
    CHECK(jvmstat_open(&j, b, len, err, sizeof err) != 0 && strstr(err, "not finished"),
          "jvmstat: a JVM still starting is said");
    b[7] = 1, b[5] = 3;
    CHECK(jvmstat_open(&j, b, len, err, sizeof err) != 0 && strstr(err, "version 3"),
          "jvmstat: an unknown version is said");
    b[0] = 0;
    CHECK(jvmstat_open(&j, b, len, err, sizeof err) != 0 && strstr(err, "not a jvmstat"), "jvmstat: not one at all");
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = calloc(1, 1 << 20);
    *n = s ? fread(s, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    return s;
}

static void test_writers(void)
{
    char dir[] = "/tmp/hprof-unit-tl-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "writers: a temporary directory");
        return;
    }
    struct site_table st;
    sites_init(&st);
    struct site *a = sites_of(&st, &tr_a, &cls_a);
    struct alloc_row rows[1] = {{a, 1000, 16000, 3000, 48000}};
    struct alloc_interval iv = {3, 7, true, {1000, 16000, 3000, 48000}};
    struct gc_record g = {7, 0, 1234567, 5000, 4000, 9000, 1000, 16000};
    struct run_info ri;
    memset(&ri, 0, sizeof ri);
    run_info_add(&ri, "command", "Main a b");
    run_info_add(&ri, "pid", "42");
    struct suspect s = {a, 100, 48000, 9, 10};
    struct options opt;
    memset(&opt, 0, sizeof opt);
    opt.format = 'b';
    struct string_table strings;
    strings_init(&strings);
    char path[300], err[256], *chosen = NULL;
    for (int bin = 0; bin < 2; bin++) {
        snprintf(path, sizeof path, "%s/t.%s", dir, bin ? "hprof" : "txt");
        tr_a.written = false; /* each format writes the trace once */
        struct output o;
        if (output_open_file(&o, path, !bin, 1, &chosen, err, sizeof err) != 0) {
            CHECK(0, "writers: output opens (%s)", err);
            return;
        }
        static struct trace empty = {.serial = 300000};
        struct writer_ctx w = {.out = &o, .strings = &strings, .opt = &opt, .empty_trace = &empty, .run = &ri};
        const struct writer *wr = bin ? &binary_writer : &text_writer;
        output_lock(&o);
        if (bin) {
            wr->file_header(&w);
            wr->run_header(&w, &ri);
        } else {
            text_tl_run_header(&w);
        }
        wr->trace(&w, &tr_a);
        wr->allocs(&w, &iv, rows, 1);
        wr->gc(&w, &g);
        wr->heap_size(&w, 9000, 7);
        iv.live = false;
        wr->allocs(&w, &iv, rows, 1);
        iv.live = true;
        if (!bin) wr->leak_suspects(&w, &s, 1, 10);
        output_unlock(&o);
        output_close(&o);
    }
    size_t n;
    snprintf(path, sizeof path, "%s/t.txt", dir);
    char *text = slurp(path, &n);
    CHECK(text && strstr(text, "RUN command: Main a b\nRUN pid: 42\n\n"), "text: the run header, a line per field");
    CHECK(text &&
              strstr(text,
                     "ALLOCS LIVE BEGIN (interval 3, at collection 7, allocated 1000 objects 16000 bytes, live 3000 "
                     "objects 48000 bytes) "),
          "text: ALLOCS LIVE's opening line");
    CHECK(text && strstr(text, "\n   1         1000        16000        3000       48000 300001 A\nALLOCS LIVE END\n"),
          "text: a row and the end");
    CHECK(text &&
              strstr(text,
                     "\nGC 7 (at 0.000 ms, took 1.234 ms, heap used 5000 -> 4000 bytes, committed 9000 bytes, "
                     "allocated 1000 objects 16000 bytes)\nHEAP SIZE (committed 9000 bytes, after collection 7)\n"),
          "text: GC and HEAP SIZE");
    CHECK(text && strstr(text, "\nALLOCS BEGIN (interval 3, at collection 7, allocated 1000 objects 16000 bytes) "),
          "text: ALLOCS without live counts");
    CHECK(text && strstr(text, "\n   1       47900         100       48000   9/10  300001 A\nLEAK SUSPECTS END\n"),
          "text: a leak suspect");
    free(text);
    /* The binary file, read back by hprof-dump (the tool's reader of every record). */
    char cmd[700];
    snprintf(cmd, sizeof cmd,
             "build/hprof-dump --check %s/t.hprof >%s/check.txt 2>&1 && build/hprof-dump %s/t.hprof >%s/dump.txt 2>&1",
             dir, dir, dir, dir);
    int rc = system(cmd);
    snprintf(path, sizeof path, "%s/dump.txt", dir);
    text = slurp(path, &n);
    CHECK(rc == 0, "binary: hprof-dump --check accepts the records");
    CHECK(text && strstr(text, "RUN_HEADER fields=2") && strstr(text, "RUN command = \"Main a b\""),
          "binary: RUN_HEADER read back");
    CHECK(text &&
              strstr(text,
                     "GC seq=7 start_us=0 duration_ns=1234567 used_before=5000 used_after=4000 committed=9000 "
                     "alloc_objs=1000 alloc_bytes=16000"),
          "binary: GC read back");
    CHECK(text && strstr(text, "HEAP_SIZE committed=9000 gc=7"), "binary: HEAP_SIZE read back");
    CHECK(text &&
              strstr(text,
                     "ALLOCS_LIVE number=3 gc=7 alloc_objs=1000 alloc_bytes=16000 live_objs=3000 live_bytes=48000 "
                     "nrows=1") &&
              strstr(text,
                     "ROW class=100001(A) thread=0 trace=300001 alloc_objs=1000 alloc_bytes=16000 live_objs=3000 "
                     "live_bytes=48000"),
          "binary: ALLOCS_LIVE and its row read back");
    CHECK(text && strstr(text, "ALLOCS number=3 gc=7 alloc_objs=1000 alloc_bytes=16000 nrows=1"),
          "binary: ALLOCS read back");
    free(text);
    snprintf(cmd, sizeof cmd, getenv("KEEP") ? "true %s" : "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
}

int main(void)
{
    test_intervals();
    test_suspects();
    test_perfdata();
    test_jvmstat();
    test_writers();
    return UNIT_DONE();
}
