/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiled unwind row (what native_cfi.c makes and native_unwind.c reads) and the
 * bounds of compiling them: types only, shared by the CFI compiler's two files.
 */
#ifndef HPROF_NATIVE_ROWS_H
#define HPROF_NATIVE_ROWS_H

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

#endif
