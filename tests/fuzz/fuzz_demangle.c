/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the C++ demangler (native/native_demangle.c): the input is a
 * symbol name ("_Z" put in front of every other input, so that most reach the parser).
 * Invariants: the output is NUL-terminated within its room, whatever the room; a name
 * not demangled comes back as it was (cut to the room; without parameters, cut at its
 * first '.'); demangling is the same twice; the form without parameters is no longer
 * than the full one when both demangle. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_demangle.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

/* The output of one call, checked against the input. */
static bool one(const char *name, unsigned flags, char *out, size_t cap)
{
    memset(out, 'X', cap);
    bool ok = ndm_demangle(name, flags, out, cap);
    if (!memchr(out, 0, cap)) broken("output not NUL-terminated within its room");
    if (!ok) {
        size_t n = strnlen(name, cap - 1);
        const char *dot = (flags & NDM_PARAMS) || n == 0 ? NULL : memchr(name + 1, '.', n - 1);
        if (dot) n = (size_t)(dot - name);
        if (strlen(out) != n || memcmp(out, name, n) != 0) broken("a name not demangled changed");
    }
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = malloc(size + 3);
    if (!name) return 0;
    size_t at = 0;
    if (size % 2 == 0) name[at++] = '_', name[at++] = 'Z';
    memcpy(name + at, data, size);
    name[at + size] = 0;
    static char full[8192], again[8192], brief[8192], tiny[7];
    bool ok = one(name, NDM_PARAMS, full, sizeof full);
    if (one(name, NDM_PARAMS, again, sizeof again) != ok || strcmp(full, again) != 0) broken("not the same twice");
    bool ok_brief = one(name, 0, brief, sizeof brief);
    if (ok && ok_brief && strlen(brief) > strlen(full)) broken("the brief form is longer");
    one(name, NDM_PARAMS, tiny, sizeof tiny);
    free(name);
    return 0;
}
