/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HotSpot's interpreted frames on x86-64, read from their frame pointer, for sources that
 * name a caller without walking the stack (exact heap=sites' chains of code sites).
 *
 * The template interpreter keeps rbp as its frame pointer and stores, below it, the
 * frame's Method* (3 words down) and, at each call it makes, its bytecode pointer (8
 * words down): the same layout on JDK 17 and 25. Both together say which method and
 * bytecode index the frame stands for, as long as the method lives (a frame of it is on
 * the stack). Nothing here trusts the layout blindly: interp_frame_is checks what was
 * read against a real stack walk's frame, through the VMStructs tables and with reads
 * that cannot fault, before a caller may rely on it (see alloc_code_sites_learn).
 */
#ifndef HPROF_INTERP_FRAME_H
#define HPROF_INTERP_FRAME_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define INTERP_METHOD_WORD 3 /* words below the frame pointer: Method* */
#define INTERP_BCP_WORD    8 /* the bytecode pointer */

struct interp_layout {
    uintptr_t code_lo, code_hi; /* the interpreter's code: its return addresses */
    /* VMStructs offsets: Method::_constMethod, ConstMethod::_constants, _method_idnum and
     * its size (the bytecodes follow it), ConstantPool::_pool_holder,
     * InstanceKlass::_methods_jmethod_ids */
    uint64_t const_method, constants, idnum, const_size, holder, jmethod_ids;
    bool ok; /* found on x86-64, at VM init */
};

/* At VM init: false (l->ok too) when this VM's tables lack a part, or off x86-64. */
bool interp_layout_init(jvmtiEnv *jvmti, struct interp_layout *l);

static inline bool interp_returns_to(const struct interp_layout *l, uintptr_t pc)
{
    return pc >= l->code_lo && pc < l->code_hi;
}

/*
 * The interpreted frame whose frame pointer is fp, on a stack whose frames lie in
 * [lo, hi): its Method* and bytecode pointer (which may be 0 in a native method's frame,
 * which the interpreter makes too), and its caller's return address and frame pointer. False when
 * fp is not inside, with room for the words read.
 */
static inline bool interp_frame_read_any(uintptr_t fp, uintptr_t lo, uintptr_t hi, uintptr_t *method, uintptr_t *bcp,
                                         uintptr_t *caller_pc, uintptr_t *caller_fp)
{
    const uintptr_t *w = (const uintptr_t *)fp;
    if (fp % sizeof(uintptr_t) || fp < lo + INTERP_BCP_WORD * sizeof(uintptr_t) || fp >= hi ||
        hi - fp < 2 * sizeof(uintptr_t))
        return false;
    *method = w[-INTERP_METHOD_WORD];
    *bcp = w[-INTERP_BCP_WORD];
    *caller_fp = w[0];
    *caller_pc = w[1];
    return *method != 0;
}

/* The same for a frame that must be a Java method's, with its bytecode pointer. */
static inline bool interp_frame_read(uintptr_t fp, uintptr_t lo, uintptr_t hi, uintptr_t *method, uintptr_t *bcp,
                                     uintptr_t *caller_pc, uintptr_t *caller_fp)
{
    return interp_frame_read_any(fp, lo, hi, method, bcp, caller_pc, caller_fp) && *bcp != 0;
}

/* Whether method and bcp, as interp_frame_read found them, are the frame (id, bci) a
 * stack walk gave: id is method's jmethodID and bcp its bytecode at bci (a native
 * method's frame: bci -1, bcp where bytecode would start or 0). Slow (system calls read the VM's structures, so that
 * a wrong guess cannot fault): once per caller learnt, not per event. */
bool interp_frame_is(const struct interp_layout *l, uintptr_t method, uintptr_t bcp, jmethodID id, jlocation bci);

#endif
