/* SPDX-License-Identifier: Apache-2.0 */
/* gen-hostile: writes structured hostile inputs for the readers (hprof-dump, hprof view),
 * too big for the fuzzers to find by mutation: each shape makes some count or depth as
 * large as the file allows. `gen-hostile SHAPE N [M] > FILE`:
 *   chain N        N classes, each the superclass of the next, each with one object field,
 *                  and one instance of the last (a valid file: --check passes it)
 *   cycle N        the same, but the first class's superclass is the last (a loop)
 *   deep-trace N M a binary profile: a trace of N frames and M CPU_SAMPLES rows on it
 *   text-trace N M the same as a text profile (java.hprof.txt)
 *   text-sites N M a text profile: a trace of N frames and M SITES rows on it, each of
 *                  another class (M stacks of N frames: more than the views may hold)
 *   threads N M    N threads started and never ended, then M empty heap dumps
 * The binary files use 4-byte IDs. tests/tools/hostile_inputs.sh runs the readers on them
 * under memory and time limits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void u1(uint32_t v) { putchar((int)(v & 0xff)); }
static void u2(uint32_t v)
{
    u1(v >> 8);
    u1(v);
}
static void u4(uint32_t v)
{
    u2(v >> 16);
    u2(v);
}
static void rec(int tag, uint32_t len)
{
    u1((uint32_t)tag);
    u4(0);
    u4(len);
}

static void header(void)
{
    fputs("JAVA PROFILE 1.0.2", stdout);
    u1(0);
    u4(4);
    u4(0);
    u4(0);
}

static void string(uint32_t id, const char *s)
{
    rec(0x01, 4 + (uint32_t)strlen(s));
    u4(id);
    fputs(s, stdout);
}

enum { S_NAME = 1, S_FIELD, S_METHOD, S_SIG, S_FILE };
#define CLASS(i)         (0x10000u + (uint32_t)(i)*8)
#define CLASS_DUMP_BYTES (1 + 4 + 4 + 6 * 4 + 4 + 2 + 2 + 2 + 5)

/* CLASS_DUMP of class i: its super, no statics, one object field. */
static void class_dump(uint32_t i, uint32_t super)
{
    u1(0x20);
    u4(CLASS(i));
    u4(0);
    u4(super);
    for (int k = 0; k < 5; k++) u4(0); /* loader, signers, domain, two reserved */
    u4(4);                             /* instance size */
    u2(0);                             /* constant pool */
    u2(0);                             /* statics */
    u2(1);
    u4(S_FIELD);
    u1(2); /* object */
}

static void classes(uint32_t n, int loop)
{
    uint32_t obj = 0x8;
    header();
    string(S_NAME, "C");
    string(S_FIELD, "f");
    for (uint32_t i = 0; i < n; i++) {
        rec(0x02, 16);
        u4(i + 1);
        u4(CLASS(i));
        u4(0);
        u4(S_NAME);
    }
    uint64_t inst = 1 + 4 + 4 + 4 + 4 + 4ull * n;
    uint64_t len = (uint64_t)n * CLASS_DUMP_BYTES + inst;
    if (len > UINT32_MAX) {
        fprintf(stderr, "gen-hostile: %u classes do not fit in one record\n", n);
        exit(2);
    }
    rec(0x0C, (uint32_t)len);
    for (uint32_t i = 0; i < n; i++) class_dump(i, i ? CLASS(i - 1) : loop ? CLASS(n - 1) : 0);
    u1(0x21); /* the instance of the last class: every field holds itself */
    u4(obj);
    u4(0);
    u4(CLASS(n - 1));
    u4(4 * n);
    for (uint32_t i = 0; i < n; i++) u4(obj);
}

static void deep_trace(uint32_t n, uint32_t m)
{
    header();
    string(S_NAME, "C");
    string(S_METHOD, "m");
    string(S_SIG, "()V");
    string(S_FILE, "C.java");
    rec(0x02, 16);
    u4(1);
    u4(CLASS(0));
    u4(0);
    u4(S_NAME);
    for (uint32_t i = 0; i < n; i++) {
        rec(0x04, 24);
        u4(0x100 + i);
        u4(S_METHOD);
        u4(S_SIG);
        u4(S_FILE);
        u4(1);
        u4(i + 1);
    }
    rec(0x05, 12 + 4 * n);
    u4(300001);
    u4(0);
    u4(n);
    for (uint32_t i = 0; i < n; i++) u4(0x100 + i);
    rec(0x0D, 8 + 8 * m);
    u4(m);
    u4(m);
    for (uint32_t i = 0; i < m; i++) {
        u4(1);
        u4(300001);
    }
}

static void text_trace(uint32_t n, uint32_t m)
{
    printf("JAVA PROFILE 1.0.1, created Thu Jan  1 00:00:00 1970\n\nTRACE 300001: (thread=200001)\n");
    for (uint32_t i = 0; i < n; i++) printf("\tC.m%u(C.java:%u)\n", i, i + 1);
    printf("CPU SAMPLES BEGIN (total = %u) Thu Jan  1 00:00:00 1970\nrank   self  accum   count trace method\n", m);
    for (uint32_t i = 0; i < m; i++) printf("%u 0.00%% 0.00%% 1 300001 C.m0\n", i + 1);
    printf("CPU SAMPLES END\n");
}

static void text_sites(uint32_t n, uint32_t m)
{
    printf("JAVA PROFILE 1.0.1, created Thu Jan  1 00:00:00 1970\n\nTRACE 300001: (thread=200001)\n");
    for (uint32_t i = 0; i < n; i++) printf("\tC.m%u(C.java:%u)\n", i, i + 1);
    printf("SITES BEGIN (ordered by live bytes) Thu Jan  1 00:00:00 1970\n"
           "          percent          live          alloc'ed  stack class\n"
           " rank   self  accum     bytes objs     bytes  objs trace name\n");
    for (uint32_t i = 0; i < m; i++) printf("%u 0.00%% 0.00%% 16 1 16 1 300001 C%u\n", i + 1, i);
    printf("SITES END\n");
}

static void threads(uint32_t n, uint32_t m)
{
    header();
    for (uint32_t i = 0; i < n; i++) {
        rec(0x0A, 24);
        u4(i + 1);
        u4(0x1000 + 8 * i);
        u4(0);
        u4(0);
        u4(0);
        u4(0);
    }
    for (uint32_t i = 0; i < m; i++) rec(0x0C, 0);
}

static uint32_t count(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || !v || v > 100000000) {
        fprintf(stderr, "gen-hostile: bad count %s\n", s);
        exit(2);
    }
    return (uint32_t)v;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen-hostile chain|cycle|deep-trace|text-trace|text-sites|threads N [M]\n");
        return 2;
    }
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    const char *shape = argv[1];
    uint32_t n = count(argv[2]), m = argc > 3 ? count(argv[3]) : 1;
    if (!strcmp(shape, "chain") || !strcmp(shape, "cycle"))
        classes(n, shape[1] == 'y');
    else if (!strcmp(shape, "deep-trace"))
        deep_trace(n, m);
    else if (!strcmp(shape, "text-trace"))
        text_trace(n, m);
    else if (!strcmp(shape, "text-sites"))
        text_sites(n, m);
    else if (!strcmp(shape, "threads"))
        threads(n, m);
    else {
        fprintf(stderr, "gen-hostile: unknown shape %s\n", shape);
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
