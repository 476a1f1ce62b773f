/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the kernel's symbol list parser (native/native_kallsyms.c): the
 * input is /proc/kallsyms text. Invariants: symbols sorted by address, one per address,
 * none at 0; every name NUL-terminated inside the names, not empty, at most NK_MAX_NAME
 * bytes, with no space, tab or newline; a lookup of each symbol's address finds it; no
 * more symbols and skipped lines than the input has lines. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_kallsyms.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ns_table t;
    size_t skipped = nk_parse((const char *)data, size, &t);
    size_t lines = size ? 1 : 0;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (t.n + skipped > lines) broken("more symbols and skipped lines than lines");
    for (size_t i = 0; i < t.n; i++) {
        const struct ns_sym *s = &t.syms[i];
        if (s->addr == 0) broken("a symbol at address 0");
        if (i > 0 && t.syms[i - 1].addr >= s->addr) broken("symbols out of order or two at one address");
        if (s->name >= t.names_len || !memchr(t.names + s->name, 0, t.names_len - s->name))
            broken("a name outside the names");
        const char *name = ns_name(&t, s);
        size_t len = strlen(name);
        if (len == 0 || len > NK_MAX_NAME) broken("a name empty or past the bound");
        if (strpbrk(name, " \t\n")) broken("a name with a separator in it");
        uint64_t off = 1;
        if (ns_lookup(&t, s->addr, &off) != s || off != 0) broken("a symbol's address finds another");
    }
    ns_free(&t);
    return 0;
}
