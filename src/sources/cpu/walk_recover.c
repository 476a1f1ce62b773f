/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/walk_recover.h"

#include <stdbool.h>
#include <string.h>
#include <ucontext.h>

#define SCAN_WORDS 48 /* how far above sp a return address is looked for */
#define MAX_TRIES  3  /* walks from guessed frames, at most */

/* AsyncGetCallTrace's codes that mean "in Java code, at a frame it could not make out". */
#define AGCT_UNKNOWN_NOT_JAVA  (-3)
#define AGCT_UNKNOWN_JAVA      (-5)
#define AGCT_NOT_WALKABLE_JAVA (-6)

#if defined(__x86_64__)

/* The words read here are another code's frames (Java's, stubs', or under make check an
 * instrumented caller's, whose redzones ASan would report as overflows): not checked. */
#define READS_FOREIGN_STACK __attribute__((no_sanitize_address))

/* Whether the bytes before ret are one of the call instructions compiled code, stubs and
 * the VM's glue use: call rel32, call reg, call [rip+disp32], call [reg+disp8/32]. Only
 * bytes of the code cache are read (ret - 6 is inside it, checked by the caller). */
static bool after_call(uintptr_t ret)
{
    const unsigned char *p = (const unsigned char *)ret;
    if (p[-5] == 0xE8) return true;                                            /* call rel32 */
    if (p[-2] == 0xFF && (p[-1] & 0xF8) == 0xD0) return true;                  /* call reg */
    if (p[-3] == 0x41 && p[-2] == 0xFF && (p[-1] & 0xF8) == 0xD0) return true; /* call r8-r15 */
    if (p[-6] == 0xFF && p[-5] == 0x15) return true;                           /* call [rip+d32] */
    if (p[-3] == 0xFF && (p[-2] & 0xF8) == 0x50) return true;                  /* call [reg+d8] */
    if (p[-6] == 0xFF && (p[-5] & 0xF8) == 0x90) return true;                  /* call [reg+d32] */
    return false;
}

static bool return_address(const struct code_heap *c, uintptr_t pc)
{
    if (!code_heap_has(c, pc) || !code_heap_has(c, pc - 6)) return false;
    if (code_heap_in_interpreter(c, pc)) return true;
    /* The 6 bytes before it are read: only where the code cache is mapped. */
    return code_heap_readable(c, pc - 6, 6) && after_call(pc);
}

/* One walk as if interrupted at pc with that sp and fp. */
static int walk_from(const struct walk_site *w, struct agct_trace *tr, int depth, const ucontext_t *uc, uintptr_t pc,
                     uintptr_t sp, uintptr_t fp)
{
    ucontext_t at;
    memcpy(&at, uc, sizeof at);
    at.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
    at.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    at.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
    tr->nframes = 0;
    w->agct(tr, depth, &at);
    return tr->nframes;
}

static bool in_stack(const struct walk_site *w, uintptr_t sp, uintptr_t p, uintptr_t len)
{
    return p >= sp && p % sizeof(uintptr_t) == 0 && p < w->stack_hi && w->stack_hi - p >= len;
}

/*
 * Outside Java code with a last Java frame whose pc is not filled in: HotSpot fills it
 * (JavaFrameAnchor::make_walkable) with the word below the frame's sp, the return address
 * of the call that left Java code, whenever it must walk the thread; this does the same.
 * Only this thread writes its anchor, and it is interrupted here: it cannot be clearing
 * the record meanwhile; another thread of the VM making it walkable writes the same word.
 * The word stays filled in, as after HotSpot's own.
 */
READS_FOREIGN_STACK static int walk_anchored(const struct walk_site *w, struct agct_trace *tr, int depth, void *uc,
                                             uintptr_t sp)
{
    int failed = tr->nframes;
    if (!w->anchor || !w->anchor->found || !w->env) return failed;
    volatile uintptr_t *last_sp = thread_anchor_slot(w->anchor, w->env, w->anchor->sp_at);
    volatile uintptr_t *last_pc = thread_anchor_slot(w->anchor, w->env, w->anchor->pc_at);
    uintptr_t lsp = *last_sp;
    if (!lsp || *last_pc || !in_stack(w, sp, lsp - sizeof(uintptr_t), sizeof(uintptr_t))) return failed;
    uintptr_t ret = ((const uintptr_t *)lsp)[-1];
    if (!return_address(w->code, ret)) return failed;
    *last_pc = ret;
    tr->nframes = 0;
    w->agct(tr, depth, uc);
    return tr->nframes;
}

READS_FOREIGN_STACK int walk_recover(const struct walk_site *w, struct agct_trace *tr, int depth, void *ucv)
{
    int failed = tr->nframes;
    const ucontext_t *uc = ucv;
    if (!uc || w->stack_hi == 0 || !w->code->hi) return failed;
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    if (sp < w->stack_lo || sp >= w->stack_hi) return failed; /* on another stack: not ours to read */
    if (failed == AGCT_UNKNOWN_NOT_JAVA) {
        int n = walk_anchored(w, tr, depth, ucv, sp);
        if (n <= 0) tr->nframes = failed;
        return n > 0 ? n : failed;
    }
    if (failed != AGCT_UNKNOWN_JAVA && failed != AGCT_NOT_WALKABLE_JAVA) return failed;
    int tries = 0, n = failed;
    /* The first return addresses above sp: a prologue's, an epilogue's, a stub's, or
     * those of the VM's C code below its compiled caller. */
    for (int i = 0; i < SCAN_WORDS && tries < MAX_TRIES; i++) {
        uintptr_t at = sp + (uintptr_t)i * sizeof(uintptr_t);
        if (!in_stack(w, sp, at, sizeof(uintptr_t))) break;
        uintptr_t ret = *(const uintptr_t *)at;
        if (!return_address(w->code, ret)) continue;
        tries++;
        n = walk_from(w, tr, depth, uc, ret, at + sizeof(uintptr_t), fp);
        if (n > 0) return n;
    }
    /* A frame built on rbp (the interpreter's, C1's): its return address is above it. */
    if (tries < MAX_TRIES + 1 && in_stack(w, sp, fp, 2 * sizeof(uintptr_t))) {
        const uintptr_t *f = (const uintptr_t *)fp;
        if (return_address(w->code, f[1])) {
            n = walk_from(w, tr, depth, uc, f[1], fp + 2 * sizeof(uintptr_t), f[0]);
            if (n > 0) return n;
        }
    }
    tr->nframes = failed;
    return failed;
}

#else

int walk_recover(const struct walk_site *w, struct agct_trace *tr, int depth, void *uc) { return tr->nframes; }

#endif
