/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs one FDE's DW_CFA_* instructions (its CIE's initial ones first) and appends the
 * rows they define to a growing array, for native_cfi.c. Only the rules the x86-64
 * unwinder uses are kept: the CFA's, the return address's (register 16) and rbp's
 * (register 6); the other registers' instructions are read and passed over.
 */
#ifndef HPROF_NATIVE_CFI_RUN_H
#define HPROF_NATIVE_CFI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/native_rows.h"
#include "native/native_dwarf.h"

/* What an FDE takes from its CIE. */
struct ncr_cie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc; /* DW_EH_PE_* of the FDE's addresses */
    bool has_z;      /* "z": an augmentation data length in each FDE */
    const uint8_t *insns;
    size_t insns_len;
};

/* The rows of a table being built. */
struct ncr_rows {
    struct nc_row *rows;
    size_t n, cap;
};

/* One FDE covering [pc_begin, pc_end) (ELF addresses, pc_begin >= base, pc_end - base
 * <= 4 GiB): appends its rows and the row that ends it. Returns 0; 1 when the FDE is
 * malformed (nothing appended); -1 when out of memory or past NC_MAX_ROWS. */
int ncr_run(const struct ncr_cie *cie, const uint8_t *insns, size_t len, uint64_t pc_begin, uint64_t pc_end,
            uint64_t base, const struct nd_bases *bases, struct ncr_rows *out);

#endif
