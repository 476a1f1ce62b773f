/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the CFI compiler and the unwinder (native/native_cfi*.c,
 * native_unwind.c): the input is .eh_frame's bytes, and also the stack the compiled
 * table is walked over (a copy of the same bytes, on the heap; the walk's one stack load
 * is exempt from ASan, since real stacks have poisoned padding, and is bounded by the
 * span check test_native_cfi proves). Invariants: rows strictly sorted by pc, of known kinds, each found by
 * its own pc; counts consistent; every walk ends within its bound of frames, with a
 * known reason, its first pc the one it started from. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_cfi.h"
#include "native/native_modules.h"
#include "native/native_unwind.h"

#define MAX_FRAMES 64

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

static void check_rows(const struct nc_table *t)
{
    if (t->stats.bad_fdes > t->stats.fdes) broken("more bad FDEs than FDEs");
    for (size_t i = 0; i < t->n; i++) {
        const struct nc_row *r = &t->rows[i];
        if (i > 0 && t->rows[i - 1].pc >= r->pc) broken("rows not strictly sorted");
        if (r->cfa > NC_CFA_UNKNOWN || r->ra > NC_REG_UNKNOWN || r->rbp > NC_REG_UNKNOWN) broken("a row of no kind");
        const struct nc_row *f = nc_find(t, t->base + r->pc);
        if (r->cfa == NC_CFA_NONE ? f != NULL : f != r) broken("a row not found by its own pc");
    }
}

/* Walks the table over a stack made of the input's bytes from a few places. */
static void walk_over(const struct nc_table *t, const uint8_t *data, size_t size)
{
    size_t words = size / 8;
    if (words < 2) return;
    uint64_t *stack = malloc(words * 8);
    memcpy(stack, data, words * 8);
    struct nm_span span = {(uintptr_t)stack, (uintptr_t)(stack + words)};
    struct nmod mod = {.start = 1, .end = UINTPTR_MAX / 2, .bias = 0, .cfi = (struct nc_table *)t, .name = "fuzz"};
    struct native_space s = {.mods = &mod, .n = 1};
    s.maps.spans = &span;
    s.maps.nspans = 1;
    uintptr_t pcs[MAX_FRAMES];
    for (size_t i = 0; i < 8 && i < t->n + 1; i++) {
        uintptr_t pc = t->n ? (uintptr_t)(t->base + t->rows[(i * 7919) % t->n].pc + i) : 0x1000;
        struct nu_regs r = {pc, (uintptr_t)(stack + (i * 3) % words), (uintptr_t)(stack + (i * 5) % words)};
        struct nu_result out;
        nu_walk(&s, &r, pcs, MAX_FRAMES, &out);
        if (out.n < 0 || out.n > MAX_FRAMES) broken("a walk past its bound");
        if (out.stop >= NU_STOP_COUNT) broken("a walk stopped for no reason");
        if (out.n > 0 && pcs[0] != pc) broken("a walk's first pc is not where it started");
        if (out.n == 0 && out.stop != NU_STOP_NO_STACK) broken("no frame, yet a stack");
    }
    free(stack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The section's address and the table's base, from the size: every relative form. */
    static const uint64_t vaddrs[] = {0, 0x1000, 0x7fff0000, UINT64_MAX - 0x100};
    uint8_t *copy = malloc(size ? size : 1); /* exactly the input: ASan sees a read past it */
    memcpy(copy, data, size);
    struct nc_table t;
    if (nc_compile(copy, size, vaddrs[size % 4], (size % 3) ? 0 : 0x1000, &t) == 0) {
        check_rows(&t);
        walk_over(&t, data, size);
        nc_free(&t);
    }
    free(copy);
    return 0;
}
