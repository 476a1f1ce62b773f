/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The frame HotSpot's call stub makes when the VM or native code calls Java (a JNI
 * Call*Method, reflection's native Method.invoke, a class loader the VM asks): Java
 * frames above it, the caller's C frames below, and under those the Java frame that
 * left Java code for them, if any. The stub's frame keeps a pointer to the call's
 * JavaCallWrapper, which holds a copy of the thread's last Java frame (sp, pc, fp) from
 * before the call: where the Java frames go on below.
 *
 * The layout is read from the VMStructs tables (the return address into the stub, the
 * offsets in JavaCallWrapper and JavaFrameAnchor) but for the wrapper's word in the
 * stub's frame, six words below its frame pointer on x86-64 Linux since JDK 8. Every
 * word is read from the calling thread's own stack, inside bounds the caller gives, so
 * that a wrong guess reads wrong values, never faults; the caller checks what it got
 * against a real stack walk before relying on it.
 */
#ifndef HPROF_ENTRY_FRAME_H
#define HPROF_ENTRY_FRAME_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define ENTRY_WRAPPER_WORD 6 /* words below the stub's frame pointer: JavaCallWrapper* */

struct entry_layout {
    uintptr_t stub_return;        /* StubRoutines::_call_stub_return_address */
    uint64_t sp_at, pc_at, fp_at; /* of the last Java frame's sp, pc, fp in JavaCallWrapper */
    uint64_t size;                /* bytes of JavaCallWrapper read past it */
    bool ok;                      /* found on x86-64, at VM init */
};

/* At VM init: false (l->ok too) when this VM's tables lack a part, or off x86-64. */
bool entry_layout_init(jvmtiEnv *jvmti, struct entry_layout *l);

static inline bool entry_returns_to(const struct entry_layout *l, uintptr_t pc)
{
    return l->ok && pc == l->stub_return;
}

/*
 * The Java frame below the call stub whose frame pointer is fp, on a stack whose frames
 * lie in [lo, hi): its sp, pc and fp (fp may be 0: a compiled frame keeps none); *sp 0
 * when there is none (the thread's first call into Java). False when a word lies outside.
 */
static inline bool entry_frame_caller(const struct entry_layout *l, uintptr_t fp, uintptr_t lo, uintptr_t hi,
                                      uintptr_t *sp, uintptr_t *pc, uintptr_t *caller_fp)
{
    if (!l->ok || fp % sizeof(uintptr_t) || fp < lo + ENTRY_WRAPPER_WORD * sizeof(uintptr_t) || fp >= hi) return false;
    uintptr_t w = ((const uintptr_t *)fp)[-ENTRY_WRAPPER_WORD];
    /* The wrapper is a local of the C++ caller of the stub: just above the stub's frame. */
    if (w % sizeof(uintptr_t) || w <= fp || w >= hi || hi - w < l->size) return false;
    *sp = *(const uintptr_t *)(w + l->sp_at);
    *pc = *(const uintptr_t *)(w + l->pc_at);
    *caller_fp = *(const uintptr_t *)(w + l->fp_at);
    if (!*sp) return true;
    if (*sp % sizeof(uintptr_t) || *sp <= w || *sp >= hi) return false;
    if (!*pc) *pc = ((const uintptr_t *)*sp)[-1]; /* not filled in: the call's return address */
    return *pc != 0;
}

#endif
