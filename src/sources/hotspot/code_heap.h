/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where HotSpot's generated code lies, for cpu=samples' signal handler: the code cache
 * (CodeCache::_low_bound .. _high_bound: every compiled method, stub, adapter and the
 * template interpreter) and, inside it, the interpreter's own code
 * (AbstractInterpreter::_code, a StubQueue). Read once at VM init through the VMStructs
 * tables (vm_structs.h); both are fixed for the life of the VM (the code cache is
 * reserved whole at start-up). A bound that cannot be found is 0: nothing is inside it.
 *
 * The handler uses them to tell whether an address taken from a stack is a return
 * address into Java code before it hands it to AsyncGetCallTrace (walk_recover.c).
 */
#ifndef HPROF_CODE_HEAP_H
#define HPROF_CODE_HEAP_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct code_heap {
    uintptr_t lo, hi;               /* the code cache */
    uintptr_t interp_lo, interp_hi; /* the interpreter's code, within it */
};

/* Fills *out; false when this VM's tables do not say where the code cache is. */
bool code_heap_find(jvmtiEnv *jvmti, struct code_heap *out);

/* Async-signal-safe (plain compares). */
static inline bool code_heap_has(const struct code_heap *c, uintptr_t pc) { return pc >= c->lo && pc < c->hi; }
static inline bool code_heap_in_interpreter(const struct code_heap *c, uintptr_t pc)
{
    return pc >= c->interp_lo && pc < c->interp_hi;
}

#endif
