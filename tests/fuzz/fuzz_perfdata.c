/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the readers of the JVM's jvmstat memory: util/perfdata.c, which
 * timeline= maps read-only, and util/jvmstat.c, which hprof list and stat read from
 * another JVM's file (any process of the user can write one). The input is the file's
 * bytes. Invariants: nothing read outside the buffer (ASan); every counter perfdata
 * finds lies inside it and is 8-aligned; a second open of the same bytes finds the same
 * counters; every entry jvmstat walks has its name and value inside the buffer, and a
 * string comes back NUL-terminated within its room. */
#include "fuzz_target.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jvmstat.h"
#include "util/perfdata.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

static void inside(const uint8_t *buf, size_t size, const volatile int64_t *v)
{
    const uint8_t *p = (const uint8_t *)(uintptr_t)v;
    if (p < buf || p + 8 > buf + size) broken("a counter outside the buffer");
    if ((uintptr_t)p & 7) broken("a counter not 8-aligned");
}

/* Every entry walked, every long and string read, looked up by name and summed. */
static void walk_jvmstat(const uint8_t *buf, size_t size)
{
    struct jvmstat j;
    char err[160], s[64];
    if (jvmstat_open(&j, buf, size, err, sizeof err) != 0) return;
    struct jvmstat_entry e;
    uint32_t pos = 0, index = 0;
    int64_t v;
    while (jvmstat_next(&j, &pos, &index, &e)) {
        if ((const uint8_t *)e.name < buf || (const uint8_t *)e.name >= buf + size) broken("a name outside");
        if (e.value < buf || e.value + e.value_len > buf + size) broken("a value outside");
        jvmstat_long(&j, e.name, &v);
        if (jvmstat_string(&j, e.name, s, sizeof s) && !memchr(s, 0, sizeof s)) broken("a string without its end");
    }
    jvmstat_sum(&j, "sun.gc.", ".used");
    jvmstat_long_or(&j, "sun.os.hrt.ticks", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The JVM's memory is page-aligned: so is the copy (malloc aligns to 16). */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    struct perfdata p, q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    if (perfdata_open(&p, buf, size)) {
        uint64_t used, committed;
        bool have = perfdata_heap(&p, &used, &committed);
        const volatile int64_t *t = perfdata_long(&p, "sun.rt.vmInitDoneTime");
        if (t) inside(buf, size, t);
        for (int i = 0; i < p.nused; i++) inside(buf, size, p.used[i]);
        for (int i = 0; i < p.ncommitted; i++) inside(buf, size, p.committed[i]);
        if (!perfdata_open(&q, buf, size)) broken("the same bytes open once, not twice");
        uint64_t used2, committed2;
        if (perfdata_heap(&q, &used2, &committed2) != have || used2 != used || committed2 != committed)
            broken("the same bytes give other heap figures");
    }
    walk_jvmstat(buf, size);
    free(buf);
    return 0;
}
