/* SPDX-License-Identifier: Apache-2.0 */
/*
 * .eh_frame compiled, outside any signal handler, into a table a handler can use with
 * one binary search per frame and no DWARF in it (x86-64).
 *
 * Each CIE/FDE pair (DWARF call-frame information as .eh_frame carries it: LSB Core
 * spec, "Exception Frames") is run through its DW_CFA_* instructions; every row it
 * defines becomes a struct nc_row: from its pc until the next row's, the CFA is rsp or
 * rbp plus an offset (or the PLT's usual expression), and the return address and the
 * caller's rbp are saved at an offset from the CFA, unchanged (rbp), or undefined (the
 * outermost frame). Anything else (a CFA by expression, a register kept in another
 * register) is "unknown": the walk stops there. The end of each FDE gets a row of its
 * own (NC_CFA_NONE) unless another FDE starts there.
 *
 * .eh_frame is outside input: every read is bounded, the instructions per FDE, the
 * rows per FDE and the rows in all are bounded, and a malformed CIE or FDE is skipped
 * and counted, never fatal (fuzzed: tests/fuzz/fuzz_eh_frame.c).
 */
#ifndef HPROF_NATIVE_CFI_H
#define HPROF_NATIVE_CFI_H

#include <stddef.h>
#include <stdint.h>

#define NC_MAX_INSNS    4096       /* DW_CFA instructions per FDE (its CIE's included) */
#define NC_MAX_FDE_ROWS 4096       /* rows per FDE */
#define NC_MAX_ROWS     (8u << 20) /* rows per table */
#define NC_MAX_STATES   16         /* DW_CFA_remember_state depth */

enum nc_cfa {
    NC_CFA_NONE = 0, /* no FDE covers this pc */
    NC_CFA_RSP,      /* CFA = rsp + cfa_off */
    NC_CFA_RBP,      /* CFA = rbp + cfa_off */
    NC_CFA_PLT,      /* CFA = rsp + cfa_off + ((pc & 15) >= plt ? 8 : 0): a PLT entry */
    NC_CFA_UNKNOWN,  /* any other rule: the walk stops */
};

enum nc_reg {
    NC_REG_SAME = 0,  /* unchanged from the callee (rbp; never for the return address) */
    NC_REG_AT_CFA,    /* saved at CFA + off */
    NC_REG_UNDEFINED, /* undefined: for the return address, the outermost frame */
    NC_REG_UNKNOWN,   /* any other rule */
};

struct nc_row {
    uint32_t pc; /* from the table's base */
    int32_t cfa_off;
    int16_t ra_off, rbp_off;
    uint8_t cfa, ra, rbp; /* enum nc_cfa, enum nc_reg, enum nc_reg */
    uint8_t plt;          /* NC_CFA_PLT's threshold */
};

struct nc_stats {
    size_t cies, fdes, bad_cies, bad_fdes, rows_dropped;
};

struct nc_table {
    uint64_t base; /* the ELF address pcs count from */
    struct nc_row *rows;
    size_t n;
    struct nc_stats stats;
};

/* Compiles .eh_frame's bytes (loaded at eh_vaddr) into *t. FDEs outside
 * [base, base + 4 GiB) are skipped. 0, or -1 when out of memory (t then empty). */
int nc_compile(const uint8_t *eh, size_t size, uint64_t eh_vaddr, uint64_t base, struct nc_table *t);
void nc_free(struct nc_table *t);
/* The row covering ELF address vaddr, or NULL when none (or NC_CFA_NONE's).
 * Async-signal-safe: a binary search over an immutable array. */
const struct nc_row *nc_find(const struct nc_table *t, uint64_t vaddr);

#endif
