/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where HotSpot's generated code lies, for cpu=samples' signal handler: the code cache
 * (CodeCache::_low_bound .. _high_bound: every compiled method, stub, adapter and the
 * template interpreter) and, inside it, the interpreter's own code
 * (AbstractInterpreter::_code, a StubQueue). Read once at VM init through the VMStructs
 * tables (vm_structs.h); both are fixed for the life of the VM (the code cache is
 * reserved whole at start-up). A bound that cannot be found is 0: nothing is inside it.
 *
 * The code cache is reserved whole but committed (mapped) piece by piece as it fills, so
 * before reading code bytes the handler checks they lie in the committed part of one of
 * its CodeHeaps (CodeCache::_heaps, each one's VirtualSpace).
 *
 * The handler uses them to tell whether an address taken from a stack is a return
 * address into Java code before it hands it to AsyncGetCallTrace (walk_recover.c).
 */
#ifndef HPROF_CODE_HEAP_H
#define HPROF_CODE_HEAP_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define CODE_HEAP_MAX 8 /* HotSpot has 1 or 3 (non-nmethods, profiled, non-profiled) */

struct code_heap {
    uintptr_t lo, hi;               /* the code cache, reserved: not all of it is mapped */
    uintptr_t interp_lo, interp_hi; /* the interpreter's code, within it */
    /* Where each CodeHeap's committed part is: the VirtualSpace's _low and _high words,
     * which grow as the JVM commits more (read as they are, in the handler). */
    int nheaps;
    const volatile uintptr_t *committed_lo[CODE_HEAP_MAX], *committed_hi[CODE_HEAP_MAX];
};

/* Fills *out; false when this VM's tables do not say where the code cache is. */
bool code_heap_find(jvmtiEnv *jvmti, struct code_heap *out);

/* Async-signal-safe (plain compares). */
static inline bool code_heap_has(const struct code_heap *c, uintptr_t pc) { return pc >= c->lo && pc < c->hi; }
/* Async-signal-safe: whether [at, at + len) is inside one committed (mapped) CodeHeap, so
 * that its bytes can be read. False when the heaps were not found. */
static inline bool code_heap_readable(const struct code_heap *c, uintptr_t at, uintptr_t len)
{
    for (int i = 0; i < c->nheaps; i++) {
        uintptr_t lo = *c->committed_lo[i], hi = *c->committed_hi[i];
        if (at >= lo && at < hi && hi - at >= len) return true;
    }
    return false;
}
static inline bool code_heap_in_interpreter(const struct code_heap *c, uintptr_t pc)
{
    return pc >= c->interp_lo && pc < c->interp_hi;
}

#endif
