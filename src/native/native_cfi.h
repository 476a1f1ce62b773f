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

#include "native/native_rows.h"

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
