/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/kallsyms into a sorted table of the kernel's functions (native_kallsyms.h). */
#include "native/native_kallsyms.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_text.h"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A line [p, end): its address, type and name when it is a text symbol with an address. */
static bool parse_line(const char *p, const char *end, uint64_t *addr, const char **name, size_t *name_len)
{
    uint64_t a = 0;
    int digits = 0, d;
    for (; p < end && (d = hex_digit(*p)) >= 0; p++) {
        if (++digits > 16) return false; /* more than 64 bits */
        a = a << 4 | (uint64_t)d;
    }
    if (!digits || p + 3 > end || p[0] != ' ' || p[2] != ' ') return false;
    char type = p[1];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') return false;
    p += 3;
    /* the name ends at a tab (then "[module]"), a space, or the line's end */
    const char *e = p;
    while (e < end && *e != '\t' && *e != ' ' && *e != '\0') e++;
    if (e == p || a == 0) return false; /* no name, or the address hidden (kptr_restrict) */
    *addr = a;
    *name = p;
    *name_len = (size_t)(e - p) > NK_MAX_NAME ? NK_MAX_NAME : (size_t)(e - p);
    return true;
}

size_t nk_parse(const char *text, size_t len, struct ns_table *out)
{
    ns_init(out);
    size_t skipped = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        uint64_t addr;
        const char *name;
        size_t name_len;
        if (parse_line(p, le, &addr, &name, &name_len))
            ns_add(out, addr, 0, name, name_len); /* sizes unknown: each runs to the next */
        else if (le > p)
            skipped++;
        p = nl ? nl + 1 : end;
    }
    ns_finish(out);
    return skipped;
}

int nk_read(struct ns_table *out)
{
    size_t len;
    char *text = ntx_read("/proc/kallsyms", NK_MAX_FILE, &len);
    if (!text) {
        ns_init(out);
        return -1;
    }
    nk_parse(text, len, out);
    free(text);
    return 0;
}
