/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Walking a native stack from a signal's context (x86-64), in the handler.
 *
 * Each frame: the module holding pc, its compiled row for pc (one binary search; for
 * a caller's frame, pc - 1: the call, not the instruction after it, which may already
 * belong to the next function), the CFA by the row's rule, the return address and the
 * caller's rbp read from where the row says. Where the module has no row for pc, the
 * frame-pointer chain is tried instead ([rbp] the caller's rbp, [rbp + 8] the return
 * address), and the walk says so (NU_FLAG_FP).
 *
 * Async-signal-safe: no allocation, no lock, no call but to the tables' binary
 * searches, at most max frames. Every word read lies inside the one readable span of
 * the memory map that holds the starting sp (the thread's stack, as the map saw it): a
 * thread whose stack the map does not show yet ends the walk at once (NU_STOP_NO_STACK).
 */
#ifndef HPROF_NATIVE_UNWIND_H
#define HPROF_NATIVE_UNWIND_H

#include <stdint.h>

#include "native/native_modules.h"

struct nu_regs {
    uintptr_t pc, sp, fp;
};

enum nu_stop {
    NU_STOP_DEPTH = 0,  /* max frames taken */
    NU_STOP_END,        /* the outermost frame (return address undefined or 0) */
    NU_STOP_NO_MODULE,  /* pc in no ELF file's code (JIT code, a stub, garbage) */
    NU_STOP_NO_ROW,     /* neither a row nor a usable frame pointer */
    NU_STOP_RULE,       /* a rule the table cannot follow (CFA by expression, ...) */
    NU_STOP_UNREADABLE, /* a read outside the stack */
    NU_STOP_SP,         /* the stack pointer would not move up */
    NU_STOP_NO_STACK,   /* sp in no readable mapping the table knows */
    NU_STOP_NO_TABLE,   /* the module's table not built yet (asked for: nsp_want) */
    NU_STOP_COUNT
};

#define NU_FLAG_FP 1u /* the frame-pointer chain was followed at least once */

struct nu_result {
    int n;             /* pcs written */
    uint8_t stop;      /* enum nu_stop */
    uint8_t flags;     /* NU_FLAG_* */
    struct nu_regs at; /* where the walk stopped (the last frame's registers) */
};

/* Walks from r, writing up to max pcs (the first is r->pc) into pcs, reading only the
 * readable span of the map that holds r->sp. Async-signal-safe. */
void nu_walk(const struct native_space *s, const struct nu_regs *r, uintptr_t *pcs, int max, struct nu_result *out);
/* The same within stack, the thread's own stack as the caller knows it (the sampler's
 * record of the thread, taken at its start: a thread started after the map was read is
 * walked too). stack must be readable throughout; NU_STOP_NO_STACK when r->sp is
 * outside it. Async-signal-safe. */
void nu_walk_stack(const struct native_space *s, const struct nm_span *stack, const struct nu_regs *r, uintptr_t *pcs,
                   int max, struct nu_result *out);
/* A stop reason's name ("depth", "end", "no module", ...). */
const char *nu_stop_name(int stop);

#endif
