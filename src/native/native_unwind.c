/* SPDX-License-Identifier: Apache-2.0 */
/* Native stack walk from a signal's context (native_unwind.h). */
#include "native/native_unwind.h"

#include <stdbool.h>
#include <string.h>

/* A word that may sit at any address (hostile rows make odd CFAs; x86-64 reads them). */
typedef uintptr_t __attribute__((aligned(1), may_alias)) unaligned_word;

/* One word of the stack, only when the span holds all 8 bytes. One load, no call. Other
 * frames' stack slots are read on purpose: the address sanitizer, which poisons the
 * padding between a frame's locals, is told to leave this load alone. */
__attribute__((no_sanitize_address)) static bool read_word(const struct nm_span *stack, uintptr_t addr, uintptr_t *out)
{
    if (addr < stack->start || addr >= stack->end || stack->end - addr < sizeof(uintptr_t)) return false;
    *out = *(const volatile unaligned_word *)addr;
    return true;
}

/* The CFA of a frame by its row, or false when the rule cannot be followed. */
static bool cfa_of(const struct nc_row *row, const struct nu_regs *r, bool fp_known, uintptr_t *cfa)
{
    switch (row->cfa) {
    case NC_CFA_RSP: *cfa = r->sp + (intptr_t)row->cfa_off; return true;
    case NC_CFA_RBP:
        if (!fp_known) return false;
        *cfa = r->fp + (intptr_t)row->cfa_off;
        return true;
    case NC_CFA_PLT: *cfa = r->sp + (intptr_t)row->cfa_off + ((r->pc & 15) >= row->plt ? 8 : 0); return true;
    default: return false;
    }
}

/* One step by a row: the caller's registers into next. 0, or the stop reason + 1. */
static int step_row(const struct nc_row *row, const struct nm_span *stack, const struct nu_regs *r, bool *fp_known,
                    struct nu_regs *next)
{
    uintptr_t cfa;
    if (!cfa_of(row, r, *fp_known, &cfa)) return NU_STOP_RULE + 1;
    if (row->ra == NC_REG_UNDEFINED) return NU_STOP_END + 1;
    if (row->ra != NC_REG_AT_CFA) return NU_STOP_RULE + 1;
    if (!read_word(stack, cfa + (intptr_t)row->ra_off, &next->pc)) return NU_STOP_UNREADABLE + 1;
    next->fp = r->fp;
    if (row->rbp == NC_REG_AT_CFA) {
        if (!read_word(stack, cfa + (intptr_t)row->rbp_off, &next->fp)) return NU_STOP_UNREADABLE + 1;
        *fp_known = true;
    } else if (row->rbp != NC_REG_SAME) {
        *fp_known = false;
    }
    next->sp = cfa;
    return 0;
}

/* One step by the frame-pointer chain. 0, or the stop reason + 1. */
static int step_fp(const struct nm_span *stack, const struct nu_regs *r, bool fp_known, struct nu_regs *next)
{
    if (!fp_known || r->fp < r->sp) return NU_STOP_NO_ROW + 1;
    if (!read_word(stack, r->fp, &next->fp) || !read_word(stack, r->fp + 8, &next->pc)) return NU_STOP_UNREADABLE + 1;
    next->sp = r->fp + 16;
    return 0;
}

void nu_walk(const struct native_space *s, const struct nu_regs *r, uintptr_t *pcs, int max, struct nu_result *out)
{
    nu_walk_stack(s, nm_maps_span(&s->maps, r->sp), r, pcs, max, out);
}

void nu_walk_stack(const struct native_space *s, const struct nm_span *stack, const struct nu_regs *start,
                   uintptr_t *pcs, int max, struct nu_result *out)
{
    struct nu_regs r = *start;
    bool fp_known = true; /* the context's rbp is the thread's, whatever it holds */
    memset(out, 0, sizeof *out);
    if (stack && (r.sp < stack->start || r.sp >= stack->end)) stack = NULL;
    int stop = stack ? NU_STOP_DEPTH : NU_STOP_NO_STACK;
    while (stack && out->n < max) {
        pcs[out->n] = r.pc;
        const struct nmod *m = nsp_module(s, r.pc - (out->n > 0));
        out->n++;
        if (!m) {
            stop = NU_STOP_NO_MODULE;
            break;
        }
        /* A module met before its table was built: asked for, and the walk ends here
         * (the frame-pointer chain would guess where the table will know). */
        const struct nc_table *cfi = atomic_load_explicit(&m->cfi, memory_order_acquire);
        if (!cfi) {
            nsp_want(s, m);
            stop = NU_STOP_NO_TABLE;
            break;
        }
        /* A caller's pc is a return address: the call is the byte before it. */
        const struct nc_row *row = nc_find(cfi, r.pc - (out->n > 1) - m->bias);
        struct nu_regs next;
        int rc;
        if (row) {
            rc = step_row(row, stack, &r, &fp_known, &next);
        } else {
            rc = step_fp(stack, &r, fp_known, &next);
            if (!rc) out->flags |= NU_FLAG_FP;
        }
        if (rc) {
            stop = rc - 1;
            break;
        }
        if (next.pc == 0) {
            stop = NU_STOP_END;
            break;
        }
        if (next.sp <= r.sp) {
            stop = NU_STOP_SP;
            break;
        }
        r = next;
    }
    out->stop = (uint8_t)stop;
    out->at = r;
}

const char *nu_stop_name(int stop)
{
    static const char *const names[NU_STOP_COUNT] = {"depth",      "end", "no module", "no row",  "unknown rule",
                                                     "unreadable", "sp",  "no stack",  "no table"};
    return stop >= 0 && stop < NU_STOP_COUNT ? names[stop] : "?";
}
