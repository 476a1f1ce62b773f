/* libFuzzer target for tools/hprof/jvmstat.c, the reader of a JVM's hsperfdata file
 * (outside input: any process of the user can write one). Every entry is walked, every
 * long and string read, looked up by name and summed, with the sizes the reader got:
 * ASan/UBSan catch a read outside the buffer. Invariants: an entry's name and value lie
 * inside the buffer; a string comes back NUL-terminated within its room.
 * Build and run: make fuzz-jvmstat (tests/fuzz/fuzz_jvmstat.mk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jvmstat.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "invariant broken: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes, so that ASan sees any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    struct jvmstat j;
    char err[160], s[64];
    if (jvmstat_open(&j, buf, size, err, sizeof err) == 0) {
        struct jvmstat_entry e;
        uint32_t pos = 0, index = 0;
        int64_t v;
        while (jvmstat_next(&j, &pos, &index, &e)) {
            check((const uint8_t *)e.name >= buf && (const uint8_t *)e.name < buf + size, "name inside");
            check(e.value >= buf && e.value + e.value_len <= buf + size, "value inside");
            jvmstat_long(&j, e.name, &v);
            if (jvmstat_string(&j, e.name, s, sizeof s)) check(memchr(s, 0, sizeof s) != NULL, "string ends");
        }
        jvmstat_sum(&j, "sun.gc.", ".used");
        jvmstat_long_or(&j, "sun.os.hrt.ticks", 0);
    }
    free(buf);
    return 0;
}
