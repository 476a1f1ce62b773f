/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A second chance for cpu=samples' stack walks that AsyncGetCallTrace refused.
 *
 * AsyncGetCallTrace gives up when the interrupted instruction is not at a complete frame:
 * a compiled method's prologue or epilogue, a vtable/itable stub, an adapter, the
 * interpreter setting a frame up, C code of the VM called from compiled code without a
 * transition (a GC barrier's slow path, a math routine). The caller's frame is complete
 * then, and its return address is on the stack: at sp, a word or a few above it, or
 * above the frame pointer. walk_recover looks for it and asks the walker again from
 * there, as if the signal had come at that return address.
 *
 * A word of the stack is taken for a return address only when it points into HotSpot's
 * code cache (code_heap.h) and, unless it is in the interpreter (which pushes its return
 * addresses itself), the bytes before it are a call instruction. Only words between the
 * interrupted sp and the top of the thread's stack are read, and only code bytes inside
 * the committed part of the code cache, both mapped for as long as the thread runs. The
 * walker checks the frame it is given as it checks any interrupted context (HotSpot's
 * safe_for_sender), so a wrong guess costs a refused walk; the guard (signal_handler.h)
 * stands behind it as behind every walk.
 *
 * A thread outside Java code (in the VM, in native code, blocked) is walked from its
 * last Java frame, which HotSpot records (thread_anchor.h); when the record's pc is
 * still missing, it is filled in from the stack as HotSpot itself would, then walked.
 *
 * x86-64 only; elsewhere nothing is tried.
 */
#ifndef HPROF_WALK_RECOVER_H
#define HPROF_WALK_RECOVER_H

#include <stdint.h>

#include "sources/hotspot/async_trace.h"
#include "sources/hotspot/code_heap.h"
#include "sources/hotspot/thread_anchor.h"

/* What the recovery needs to know of the thread and the VM. */
struct walk_site {
    agct_fn agct;
    const struct code_heap *code;
    const struct thread_anchor *anchor;
    JNIEnv *env;                  /* the thread's (its JavaThread holds the anchor) */
    uintptr_t stack_lo, stack_hi; /* the thread's stack; 0, 0 when unknown (nothing is tried) */
};

/* Async-signal-safe. tr has failed with code tr->nframes (<= 0) from context uc; tries
 * again from the caller frames found on the stack, at most a few times. Returns the
 * walker's last answer (> 0: frames in tr). */
int walk_recover(const struct walk_site *w, struct agct_trace *tr, int depth, void *uc);

#endif
