/* SPDX-License-Identifier: Apache-2.0 */
/* One FDE's call-frame instructions into rows (native_cfi_run.h). */
#include "native/native_cfi_run.h"

#include <stdlib.h>
#include <string.h>

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA  16

enum {
    CFA_advance_loc = 0x40,
    CFA_offset = 0x80,
    CFA_restore = 0xc0,
    CFA_nop = 0x00,
    CFA_set_loc = 0x01,
    CFA_advance_loc1 = 0x02,
    CFA_advance_loc2 = 0x03,
    CFA_advance_loc4 = 0x04,
    CFA_offset_extended = 0x05,
    CFA_restore_extended = 0x06,
    CFA_undefined = 0x07,
    CFA_same_value = 0x08,
    CFA_register = 0x09,
    CFA_remember_state = 0x0a,
    CFA_restore_state = 0x0b,
    CFA_def_cfa = 0x0c,
    CFA_def_cfa_register = 0x0d,
    CFA_def_cfa_offset = 0x0e,
    CFA_def_cfa_expression = 0x0f,
    CFA_expression = 0x10,
    CFA_offset_extended_sf = 0x11,
    CFA_def_cfa_sf = 0x12,
    CFA_def_cfa_offset_sf = 0x13,
    CFA_val_offset = 0x14,
    CFA_val_offset_sf = 0x15,
    CFA_val_expression = 0x16,
    CFA_GNU_args_size = 0x2e,
    CFA_GNU_negative_offset_extended = 0x2f,
};

struct rule {
    uint8_t kind; /* enum nc_reg */
    int64_t off;
};

struct state {
    uint8_t cfa; /* NC_CFA_RSP also stands for "by a register": cfa_reg says which */
    uint64_t cfa_reg;
    int64_t cfa_off;
    uint8_t plt;
    struct rule ra, rbp;
};

/* The interpreter: where it is and what it has. */
struct run {
    struct nd_reader r;
    const struct ncr_cie *cie;
    const struct nd_bases *bases;
    uint64_t loc, end, base;
    struct state now, initial;
    struct state saved[NC_MAX_STATES];
    int nsaved;
    struct ncr_rows *out;
    size_t first; /* the FDE's first row in out */
    bool in_cie;
};

/* The state as a row at pc. */
static struct nc_row to_row(const struct state *s, uint64_t pc, uint64_t base)
{
    struct nc_row row;
    memset(&row, 0, sizeof row);
    row.pc = (uint32_t)(pc - base);
    row.cfa = NC_CFA_UNKNOWN;
    if (s->cfa_off >= INT32_MIN && s->cfa_off <= INT32_MAX) {
        if (s->cfa == NC_CFA_PLT)
            row.cfa = NC_CFA_PLT, row.plt = s->plt;
        else if (s->cfa == NC_CFA_RSP && s->cfa_reg == REG_RSP)
            row.cfa = NC_CFA_RSP;
        else if (s->cfa == NC_CFA_RSP && s->cfa_reg == REG_RBP)
            row.cfa = NC_CFA_RBP;
        row.cfa_off = (int32_t)s->cfa_off;
    }
    row.ra = s->ra.kind;
    row.rbp = s->rbp.kind;
    if (s->ra.kind == NC_REG_AT_CFA) {
        if (s->ra.off >= INT16_MIN && s->ra.off <= INT16_MAX)
            row.ra_off = (int16_t)s->ra.off;
        else
            row.ra = NC_REG_UNKNOWN;
    }
    if (s->rbp.kind == NC_REG_AT_CFA) {
        if (s->rbp.off >= INT16_MIN && s->rbp.off <= INT16_MAX)
            row.rbp_off = (int16_t)s->rbp.off;
        else
            row.rbp = NC_REG_UNKNOWN;
    }
    return row;
}

static bool same_rules(const struct nc_row *a, const struct nc_row *b)
{
    return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->ra == b->ra && a->ra_off == b->ra_off &&
        a->rbp == b->rbp && a->rbp_off == b->rbp_off && a->plt == b->plt;
}

/* Appends a row (or none when it says what the FDE's row before it says). -1: no room. */
static int append(struct run *x, const struct nc_row *row)
{
    struct ncr_rows *o = x->out;
    if (o->n > x->first) {
        struct nc_row *last = &o->rows[o->n - 1];
        if (last->pc == row->pc) {
            *last = *row; /* the rule changed again at the same pc */
            return 0;
        }
        if (same_rules(last, row)) return 0;
    }
    if (o->n - x->first >= NC_MAX_FDE_ROWS) return 1;
    if (o->n >= NC_MAX_ROWS) return -1;
    if (o->n == o->cap) {
        size_t c = o->cap ? o->cap * 2 : 4096;
        struct nc_row *p = realloc(o->rows, c * sizeof *p);
        if (!p) return -1;
        o->rows = p;
        o->cap = c;
    }
    o->rows[o->n++] = *row;
    return 0;
}

/* Moves to a new location: the row in force holds from loc up to it. 0, 1, -1. */
static int move_to(struct run *x, uint64_t to)
{
    if (x->in_cie || to < x->loc) return 1;
    if (to > x->end) to = x->end;
    if (to > x->loc) {
        struct nc_row row = to_row(&x->now, x->loc, x->base);
        int rc = append(x, &row);
        if (rc) return rc;
    }
    x->loc = to;
    return 0;
}

static struct rule *rule_of(struct run *x, uint64_t reg)
{
    return reg == REG_RA ? &x->now.ra : reg == REG_RBP ? &x->now.rbp : NULL;
}

static void set_rule(struct run *x, uint64_t reg, uint8_t kind, int64_t off)
{
    struct rule *r = rule_of(x, reg);
    if (r) *r = (struct rule){kind, off};
}

static void restore_rule(struct run *x, uint64_t reg)
{
    struct rule *r = rule_of(x, reg);
    if (r) *r = reg == REG_RA ? x->initial.ra : x->initial.rbp;
}

/* A factored offset (the data alignment times n), or false when it overflows. */
static bool factored(struct run *x, int64_t n, int64_t *out)
{
    return !__builtin_mul_overflow(n, x->cie->data_align, out);
}

static bool cfa_offset(struct run *x, int64_t off)
{
    if (x->now.cfa != NC_CFA_RSP) return false; /* an offset to an expression */
    x->now.cfa_off = off;
    return true;
}

/* The PLT's CFA: rsp + 8, plus 8 more once pc & 15 reaches a threshold (past the push). */
static void cfa_expression(struct run *x, const uint8_t *p, uint64_t len)
{
    static const uint8_t plt[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x30, 0x2a, 0x33, 0x24, 0x22};
    x->now.cfa = NC_CFA_UNKNOWN;
    if (len != sizeof plt || memcmp(p, plt, 6) != 0 || memcmp(p + 7, plt + 7, 4) != 0) return;
    if (p[6] < 0x30 || p[6] > 0x3f) return; /* DW_OP_lit0..lit15 */
    x->now.cfa = NC_CFA_PLT;
    x->now.cfa_reg = REG_RSP;
    x->now.cfa_off = 8;
    x->now.plt = (uint8_t)(p[6] - 0x30);
}

/* A DW_OP block: its length, then its bytes, passed over. */
static const uint8_t *block(struct run *x, uint64_t *len)
{
    *len = nd_uleb(&x->r);
    const uint8_t *p = x->r.p;
    nd_skip(&x->r, *len);
    return p;
}

static int remember(struct run *x)
{
    if (x->nsaved >= NC_MAX_STATES) return 1;
    x->saved[x->nsaved++] = x->now;
    return 0;
}

static int restore_state(struct run *x)
{
    if (x->nsaved == 0) return 1;
    struct state s = x->saved[--x->nsaved];
    x->now.ra = s.ra;
    x->now.rbp = s.rbp;
    x->now.cfa = s.cfa; /* the CFA rule is part of the state saved (DWARF 5, 6.4.2.4) */
    x->now.cfa_reg = s.cfa_reg;
    x->now.cfa_off = s.cfa_off;
    x->now.plt = s.plt;
    return 0;
}

/* DW_CFA_advance_loc*: delta code-alignment units on. */
static int advance(struct run *x, uint64_t delta)
{
    uint64_t to;
    if (__builtin_mul_overflow(delta, x->cie->code_align, &to) || __builtin_add_overflow(to, x->loc, &to)) return 1;
    return move_to(x, to);
}

/* The extended instructions (the high two bits clear). 0, 1 malformed, -1 no room. */
static int extended(struct run *x, uint8_t op)
{
    uint64_t reg, len;
    int64_t off;
    switch (op) {
    case CFA_nop: return 0;
    case CFA_set_loc: {
        uint64_t to;
        if (!nd_pointer(&x->r, x->cie->fde_enc, x->bases, &to)) return 1;
        return move_to(x, to);
    }
    case CFA_advance_loc1: return advance(x, nd_u8(&x->r));
    case CFA_advance_loc2: return advance(x, nd_u16(&x->r));
    case CFA_advance_loc4: return advance(x, nd_u32(&x->r));
    case CFA_offset_extended:
        reg = nd_uleb(&x->r);
        if (!factored(x, (int64_t)nd_uleb(&x->r), &off)) return 1;
        set_rule(x, reg, NC_REG_AT_CFA, off);
        return 0;
    case CFA_restore_extended: restore_rule(x, nd_uleb(&x->r)); return 0;
    case CFA_undefined: set_rule(x, nd_uleb(&x->r), NC_REG_UNDEFINED, 0); return 0;
    case CFA_same_value: set_rule(x, nd_uleb(&x->r), NC_REG_SAME, 0); return 0;
    case CFA_register:
        reg = nd_uleb(&x->r);
        nd_uleb(&x->r);
        set_rule(x, reg, NC_REG_UNKNOWN, 0);
        return 0;
    case CFA_remember_state: return remember(x);
    case CFA_restore_state: return restore_state(x);
    case CFA_def_cfa:
        x->now.cfa = NC_CFA_RSP;
        x->now.cfa_reg = nd_uleb(&x->r);
        x->now.cfa_off = (int64_t)nd_uleb(&x->r);
        return 0;
    case CFA_def_cfa_register:
        x->now.cfa_reg = nd_uleb(&x->r);
        if (x->now.cfa == NC_CFA_PLT)
            x->now.cfa = NC_CFA_UNKNOWN;
        else if (x->now.cfa != NC_CFA_UNKNOWN)
            x->now.cfa = NC_CFA_RSP;
        return 0;
    case CFA_def_cfa_offset:
        if (!cfa_offset(x, (int64_t)nd_uleb(&x->r))) x->now.cfa = NC_CFA_UNKNOWN;
        return 0;
    case CFA_def_cfa_expression: {
        const uint8_t *p = block(x, &len);
        if (!x->r.bad) cfa_expression(x, p, len);
        return 0;
    }
    case CFA_expression:
    case CFA_val_expression:
        reg = nd_uleb(&x->r);
        block(x, &len);
        set_rule(x, reg, NC_REG_UNKNOWN, 0);
        return 0;
    case CFA_offset_extended_sf:
        reg = nd_uleb(&x->r);
        if (!factored(x, nd_sleb(&x->r), &off)) return 1;
        set_rule(x, reg, NC_REG_AT_CFA, off);
        return 0;
    case CFA_def_cfa_sf:
        x->now.cfa = NC_CFA_RSP;
        x->now.cfa_reg = nd_uleb(&x->r);
        if (!factored(x, nd_sleb(&x->r), &x->now.cfa_off)) return 1;
        return 0;
    case CFA_def_cfa_offset_sf:
        if (!factored(x, nd_sleb(&x->r), &off)) return 1;
        if (!cfa_offset(x, off)) x->now.cfa = NC_CFA_UNKNOWN;
        return 0;
    case CFA_val_offset: reg = nd_uleb(&x->r), nd_uleb(&x->r), set_rule(x, reg, NC_REG_UNKNOWN, 0); return 0;
    case CFA_val_offset_sf: reg = nd_uleb(&x->r), nd_sleb(&x->r), set_rule(x, reg, NC_REG_UNKNOWN, 0); return 0;
    case CFA_GNU_args_size: nd_uleb(&x->r); return 0;
    case CFA_GNU_negative_offset_extended:
        reg = nd_uleb(&x->r);
        if (!factored(x, -(int64_t)(nd_uleb(&x->r) & INT64_MAX), &off)) return 1;
        set_rule(x, reg, NC_REG_AT_CFA, off);
        return 0;
    default: return 1;
    }
}

/* One instruction. 0, 1 malformed, -1 no room. */
static int step(struct run *x)
{
    uint8_t op = nd_u8(&x->r);
    int64_t off;
    switch (op & 0xc0) {
    case CFA_advance_loc: return advance(x, op & 0x3f);
    case CFA_offset:
        if (!factored(x, (int64_t)nd_uleb(&x->r), &off)) return 1;
        set_rule(x, op & 0x3f, NC_REG_AT_CFA, off);
        return 0;
    case CFA_restore: restore_rule(x, op & 0x3f); return 0;
    default: return extended(x, op);
    }
}

/* Runs instructions over [p, p + len) until they end or the bound. */
static int run_insns(struct run *x, const uint8_t *p, size_t len, int *budget)
{
    x->r = nd_at(p, len);
    while (nd_left(&x->r) > 0) {
        if (--*budget < 0) return 1;
        int rc = step(x);
        if (rc) return rc;
        if (x->r.bad) return 1;
    }
    return 0;
}

int ncr_run(const struct ncr_cie *cie, const uint8_t *insns, size_t len, uint64_t pc_begin, uint64_t pc_end,
            uint64_t base, const struct nd_bases *bases, struct ncr_rows *out)
{
    struct run x;
    memset(&x, 0, sizeof x);
    x.cie = cie;
    x.bases = bases;
    x.loc = pc_begin;
    x.end = pc_end;
    x.base = base;
    x.out = out;
    x.first = out->n;
    size_t fde_first = out->n;
    x.now.cfa = NC_CFA_UNKNOWN;
    x.now.ra.kind = NC_REG_UNKNOWN;
    x.now.rbp.kind = NC_REG_SAME;
    int budget = NC_MAX_INSNS;
    x.in_cie = true;
    int rc = run_insns(&x, cie->insns, cie->insns_len, &budget);
    x.in_cie = false;
    x.initial = x.now;
    x.nsaved = 0;
    if (!rc) rc = run_insns(&x, insns, len, &budget);
    if (!rc) rc = move_to(&x, x.end);
    if (!rc) {
        struct nc_row end = {.pc = (uint32_t)(pc_end - base), .cfa = NC_CFA_NONE};
        if (pc_end - base < ((uint64_t)1 << 32)) {
            x.first = out->n; /* never merged into the FDE's last row */
            rc = append(&x, &end);
        }
    }
    if (rc) out->n = fde_first;
    return rc;
}
