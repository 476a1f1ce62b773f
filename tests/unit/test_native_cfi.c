/* SPDX-License-Identifier: Apache-2.0 */
/* The CFI compiler on .eh_frame bytes made by hand (good, malformed, hostile), and the
 * unwinder on hand-made tables and a stack of the test's own: every way a walk stops. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_cfi.h"
#include "native/native_modules.h"
#include "native/native_unwind.h"
#include "unit.h"

/* ---- a little .eh_frame assembler ---- */

struct eh {
    uint8_t b[8192];
    size_t n;
};

static void put(struct eh *e, const void *p, size_t n)
{
    memcpy(e->b + e->n, p, n);
    e->n += n;
}
static void u32(struct eh *e, uint32_t v) { put(e, &v, 4); }

/* A CIE "zR" (FDE addresses udata4, absolute), code 1, data -8, return address 16,
 * with initial instructions; returns its offset. */
static size_t cie(struct eh *e, const uint8_t *insns, size_t n, uint8_t ra)
{
    size_t at = e->n;
    uint8_t head[] = {1, 'z', 'R', 0, 1, 0x78, ra, 1, 0x03};
    u32(e, (uint32_t)(4 + sizeof head + n));
    u32(e, 0);
    put(e, head, sizeof head);
    put(e, insns, n);
    return at;
}

static void fde(struct eh *e, size_t cie_at, uint32_t begin, uint32_t range, const uint8_t *insns, size_t n)
{
    u32(e, (uint32_t)(4 + 4 + 4 + 1 + n));
    u32(e, (uint32_t)(e->n - cie_at));
    u32(e, begin);
    u32(e, range);
    uint8_t aug = 0;
    put(e, &aug, 1);
    put(e, insns, n);
}

static const uint8_t X86_CIE[] = {0x0c, 7, 8, 0x90, 1}; /* CFA = rsp + 8; ra at CFA - 8 */

static int compile(struct eh *e, struct nc_table *t) { return nc_compile(e->b, e->n, 0x100000, 0, t); }

static void test_good(void)
{
    struct eh e = {.n = 0};
    size_t c = cie(&e, X86_CIE, sizeof X86_CIE, 16);
    /* push rbp; mov rbp, rsp; ... ; leave at 0x1014 */
    const uint8_t body[] = {0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x50, 0x0c, 7, 8};
    fde(&e, c, 0x1000, 0x20, body, sizeof body);
    struct nc_table t;
    CHECK(compile(&e, &t) == 0 && t.stats.fdes == 1 && t.stats.bad_fdes == 0, "cfi: one good FDE");
    const struct nc_row *r0 = nc_find(&t, 0x1000), *r1 = nc_find(&t, 0x1003), *r2 = nc_find(&t, 0x1004),
                        *r3 = nc_find(&t, 0x101f);
    CHECK(r0 && r0->cfa == NC_CFA_RSP && r0->cfa_off == 8 && r0->ra == NC_REG_AT_CFA && r0->ra_off == -8 &&
              r0->rbp == NC_REG_SAME,
          "cfi: at entry CFA = rsp + 8, return address at CFA - 8, rbp unchanged");
    CHECK(r1 && r1->cfa == NC_CFA_RSP && r1->cfa_off == 16 && r1->rbp == NC_REG_AT_CFA && r1->rbp_off == -16,
          "cfi: after the push CFA = rsp + 16, rbp at CFA - 16");
    CHECK(r2 && r2->cfa == NC_CFA_RBP && r2->cfa_off == 16, "cfi: after mov rbp, rsp CFA = rbp + 16");
    CHECK(r3 && r3->cfa == NC_CFA_RSP && r3->cfa_off == 8, "cfi: after leave CFA = rsp + 8 again");
    CHECK(!nc_find(&t, 0xfff) && !nc_find(&t, 0x1020), "cfi: nothing before the FDE or from its end");
    CHECK(t.n == 5, "cfi: 4 rows and the end row (%zu)", t.n);
    nc_free(&t);
}

/* Each malformed FDE skipped and counted; the good one after it still there. */
static void test_bad_fdes(void)
{
    struct eh e = {.n = 0};
    size_t c = cie(&e, X86_CIE, sizeof X86_CIE, 16);
    const uint8_t unknown_op[] = {0x3f};
    const uint8_t restore_nothing[] = {0x0b};
    uint8_t remember_17[17];
    memset(remember_17, 0x0a, sizeof remember_17);
    const uint8_t long_leb[] = {0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    const uint8_t backwards_loc[] = {0x41, 0x01, 0x00, 0x00, 0x00, 0x00}; /* set_loc to 0 */
    static uint8_t nops[NC_MAX_INSNS + 10];
    memset(nops, 0, sizeof nops);
    fde(&e, c, 0x1000, 0x10, unknown_op, sizeof unknown_op);
    fde(&e, c, 0x1100, 0x10, restore_nothing, sizeof restore_nothing);
    fde(&e, c, 0x1200, 0x10, remember_17, sizeof remember_17);
    fde(&e, c, 0x1300, 0x10, long_leb, sizeof long_leb);
    fde(&e, c, 0x1400, 0x10, backwards_loc, sizeof backwards_loc);
    fde(&e, c, 0x1600, 0x10, nops, 3000); /* within the bound: fine */
    u32(&e, 16);                          /* an FDE whose CIE pointer points before the section */
    u32(&e, 0x7fffffff);
    u32(&e, 0x1500);
    u32(&e, 0x10);
    u32(&e, 0);
    const uint8_t ok[] = {0x41, 0x0e, 16};
    fde(&e, c, 0x2000, 0x10, ok, sizeof ok);
    struct nc_table t;
    CHECK(compile(&e, &t) == 0, "cfi: malformed FDEs compile");
    CHECK(t.stats.fdes == 8 && t.stats.bad_fdes == 5 && t.stats.bad_cies == 1,
          "cfi: 5 bad FDEs and a bad CIE pointer counted (%zu FDEs, %zu bad, %zu bad CIEs)", t.stats.fdes,
          t.stats.bad_fdes, t.stats.bad_cies);
    CHECK(!nc_find(&t, 0x1000) && !nc_find(&t, 0x1200) && !nc_find(&t, 0x1400), "cfi: no row from a bad FDE");
    const struct nc_row *r = nc_find(&t, 0x2005);
    CHECK(r && r->cfa_off == 16 && nc_find(&t, 0x1605), "cfi: the good FDEs after them compiled");
    nc_free(&t);

    struct eh n = {.n = 0};
    c = cie(&n, X86_CIE, sizeof X86_CIE, 16);
    fde(&n, c, 0x1000, 0x10, nops, sizeof nops);
    CHECK(compile(&n, &t) == 0 && t.stats.bad_fdes == 1 && t.n == 0, "cfi: an FDE past %d instructions skipped",
          NC_MAX_INSNS);
    nc_free(&t);
}

static void test_rules(void)
{
    struct eh e = {.n = 0};
    size_t c = cie(&e, X86_CIE, sizeof X86_CIE, 16);
    const uint8_t plt[] = {0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
    const uint8_t expr[] = {0x0f, 2, 0x77, 8};
    const uint8_t ra_in_reg[] = {0x09, 16, 3};
    const uint8_t remember[] = {0x41, 0x0a, 0x0e, 32, 0x41, 0x0b}; /* CFA +32 then back to +8 */
    fde(&e, c, 0x1000, 0x10, plt, sizeof plt);
    fde(&e, c, 0x1100, 0x10, expr, sizeof expr);
    fde(&e, c, 0x1200, 0x10, ra_in_reg, sizeof ra_in_reg);
    fde(&e, c, 0x1300, 0x10, remember, sizeof remember);
    fde(&e, c, 0x1400, 0x10, remember, sizeof remember); /* overlaps the next */
    fde(&e, c, 0x1408, 0x10, ra_in_reg, sizeof ra_in_reg);
    size_t bad_cie = cie(&e, X86_CIE, sizeof X86_CIE, 5); /* return address in register 5 */
    fde(&e, bad_cie, 0x1500, 0x10, remember, sizeof remember);
    struct nc_table t;
    compile(&e, &t);
    const struct nc_row *r = nc_find(&t, 0x1004);
    CHECK(r && r->cfa == NC_CFA_PLT && r->plt == 11 && r->cfa_off == 8, "cfi: the PLT's CFA expression recognised");
    r = nc_find(&t, 0x1104);
    CHECK(r && r->cfa == NC_CFA_UNKNOWN, "cfi: another CFA expression is unknown");
    r = nc_find(&t, 0x1204);
    CHECK(r && r->ra == NC_REG_UNKNOWN, "cfi: a return address kept in a register is unknown");
    const struct nc_row *a = nc_find(&t, 0x1301), *b = nc_find(&t, 0x1302);
    CHECK(a && b && a->cfa_off == 32 && b->cfa_off == 8, "cfi: remember_state / restore_state bring the CFA back");
    CHECK(!nc_find(&t, 0x1500) && t.stats.bad_cies == 1, "cfi: a CIE for another return register skipped");
    int sorted = 1;
    for (size_t i = 1; i < t.n; i++) sorted &= t.rows[i - 1].pc < t.rows[i].pc;
    CHECK(sorted, "cfi: overlapping FDEs still give rows sorted by pc, one per pc");
    nc_free(&t);

    struct eh cut = {.n = 0};
    c = cie(&cut, X86_CIE, sizeof X86_CIE, 16);
    fde(&cut, c, 0x1000, 0x10, remember, sizeof remember);
    int fine = 1;
    for (size_t n = 0; n < cut.n; n++) { /* every truncation */
        fine &= nc_compile(cut.b, n, 0, 0, &t) == 0;
        for (size_t i = 1; i < t.n; i++) fine &= t.rows[i - 1].pc < t.rows[i].pc;
        nc_free(&t);
    }
    CHECK(fine, "cfi: every truncation of a CIE and FDE compiles to sorted rows or none");
}

/* ---- the walk over hand-made tables and a stack of our own ---- */

#define CODE 0x400000u

static uint64_t stack[64];
static struct nc_row rows[8];
static struct nc_table table = {.base = 0, .rows = rows};
static struct nmod mod = {.start = CODE, .end = CODE + 0x10000, .bias = 0, .cfi = &table, .name = "fake"};
static struct nm_span span;
static struct native_space space = {.mods = &mod, .n = 1};

static void set_stack_span(void)
{
    span.start = (uintptr_t)stack;
    span.end = (uintptr_t)(stack + 64);
    space.maps.spans = &span;
    space.maps.nspans = 1;
}

/* One row at CODE + pc: CFA = rsp + off, ra at CFA - 8, rbp unchanged. */
static void row(size_t i, uint32_t pc, uint8_t cfa, int32_t off)
{
    rows[i] = (struct nc_row){.pc = CODE + pc, .cfa_off = off, .ra_off = -8, .cfa = cfa, .ra = NC_REG_AT_CFA};
    table.n = i + 1;
}

static struct nu_result walk(uintptr_t pc, uintptr_t sp, uintptr_t fp, int max, uintptr_t *pcs)
{
    struct nu_regs r = {pc, sp, fp};
    struct nu_result out;
    nu_walk(&space, &r, pcs, max, &out);
    return out;
}

static void test_walk(void)
{
    uintptr_t pcs[16];
    set_stack_span();
    row(0, 0x100, NC_CFA_RSP, 16);
    row(1, 0x200, NC_CFA_RSP, 8);
    row(2, 0x300, NC_CFA_NONE, 0);
    /* frame 0 at 0x150 (CFA = sp + 16): returns to 0x250; frame 1 (CFA = sp + 8) returns to 0 */
    memset(stack, 0, sizeof stack);
    stack[1] = CODE + 0x250;
    stack[2] = 0;
    struct nu_result w = walk(CODE + 0x150, (uintptr_t)&stack[0], 0, 16, pcs);
    CHECK(w.n == 2 && w.stop == NU_STOP_END && pcs[1] == CODE + 0x250, "walk: two frames, then the end (%d, %s)", w.n,
          nu_stop_name(w.stop));
    stack[2] = 0x10; /* a return address in no module */
    w = walk(CODE + 0x150, (uintptr_t)&stack[0], 0, 16, pcs);
    CHECK(w.n == 3 && w.stop == NU_STOP_NO_MODULE, "walk: a return into no module stops (%s)", nu_stop_name(w.stop));
    w = walk(CODE + 0x150, (uintptr_t)&stack[63], 0, 16, pcs); /* the return address would be at stack[64] */
    CHECK(w.stop == NU_STOP_UNREADABLE && w.n == 1, "walk: a read past the stack's end stops (%s)",
          nu_stop_name(w.stop));
    w = walk(CODE + 0x150, (uintptr_t)&w, 0, 16, pcs);
    CHECK(w.stop == NU_STOP_NO_STACK && w.n == 0, "walk: a stack the map does not know ends it at once (%s)",
          nu_stop_name(w.stop));
    /* the same stack given by the caller (the thread's record), the map knowing none */
    struct nu_regs regs = {CODE + 0x150, (uintptr_t)&stack[0], 0};
    space.maps.nspans = 0;
    nu_walk_stack(&space, &span, &regs, pcs, 16, &w);
    CHECK(w.n == 3 && w.stop == NU_STOP_NO_MODULE, "walk: on a stack the caller gives, without the map (%d, %s)", w.n,
          nu_stop_name(w.stop));
    struct nm_span elsewhere = {(uintptr_t)&stack[8], (uintptr_t)&stack[16]};
    nu_walk_stack(&space, &elsewhere, &regs, pcs, 16, &w);
    CHECK(w.n == 0 && w.stop == NU_STOP_NO_STACK, "walk: sp outside the stack given ends it at once (%s)",
          nu_stop_name(w.stop));
    space.maps.nspans = 1;
    row(0, 0x100, NC_CFA_RSP, 0); /* CFA = sp: the next sp would not move up */
    stack[0] = CODE + 0x150;
    w = walk(CODE + 0x150, (uintptr_t)&stack[1], 0, 16, pcs);
    CHECK(w.stop == NU_STOP_SP, "walk: a CFA that does not move up stops (%s)", nu_stop_name(w.stop));
    /* a frame that returns into itself, each a word higher: the depth bound */
    row(0, 0x100, NC_CFA_RSP, 8);
    table.n = 1;
    for (int i = 0; i < 64; i++) stack[i] = CODE + 0x180;
    w = walk(CODE + 0x150, (uintptr_t)&stack[0], 0, 5, pcs);
    CHECK(w.n == 5 && w.stop == NU_STOP_DEPTH, "walk: at most max frames (%d, %s)", w.n, nu_stop_name(w.stop));
    rows[0].cfa = NC_CFA_UNKNOWN;
    w = walk(CODE + 0x150, (uintptr_t)&stack[0], 0, 5, pcs);
    CHECK(w.stop == NU_STOP_RULE && w.n == 1, "walk: an unknown rule stops (%s)", nu_stop_name(w.stop));
    /* no row: the frame-pointer chain, [rbp] the caller's rbp and [rbp + 8] its pc */
    table.n = 0;
    memset(stack, 0, sizeof stack);
    stack[4] = (uintptr_t)&stack[8];
    stack[5] = CODE + 0x500;
    stack[8] = 0;
    stack[9] = 0;
    w = walk(CODE + 0x150, (uintptr_t)&stack[0], (uintptr_t)&stack[4], 16, pcs);
    CHECK(w.n == 2 && pcs[1] == CODE + 0x500 && (w.flags & NU_FLAG_FP) && w.stop == NU_STOP_END,
          "walk: no row: the frame-pointer chain, and the walk says so (%d, %s)", w.n, nu_stop_name(w.stop));
    w = walk(CODE + 0x150, (uintptr_t)&stack[8], (uintptr_t)&stack[4], 16, pcs);
    CHECK(w.stop == NU_STOP_NO_ROW, "walk: a frame pointer below sp is refused (%s)", nu_stop_name(w.stop));
}

int main(void)
{
    test_good();
    test_bad_fdes();
    test_rules();
    test_walk();
    return UNIT_DONE();
}
