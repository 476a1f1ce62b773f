/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HotSpot's command-line flags, changed from inside the VM before it compiles anything.
 *
 * exact heap=sites counts what the instrumented bytecode makes, but some of HotSpot's
 * C2 optimizations make objects without running that bytecode: a StringBuilder chain
 * turned into one string (OptimizeStringConcat), boxes of valueOf dropped when only
 * unboxed again (EliminateAutoBox), and intrinsics that allocate inline
 * (Array.newInstance, Arrays.copyOf, Unsafe.allocateUninitializedArray, ...). JVMTI has
 * no call for flags, so they are found through the table HotSpot exports for its
 * serviceability agent (gHotSpotVMStructs: JVMFlag::flags and the offsets of a flag's
 * name and value) and written there. Only at Agent_OnLoad: the compilers read some of
 * them once, when they start.
 */
#ifndef HPROF_VM_FLAGS_H
#define HPROF_VM_FLAGS_H

#include <jvmti.h>
#include <stdbool.h>

/* false when the flag or HotSpot's table is not found (another JVM, say). */
bool vm_flags_set_bool(jvmtiEnv *jvmti, const char *name, bool value);
/* Reads a bool flag; false when it is not found. */
bool vm_flags_get_bool(jvmtiEnv *jvmti, const char *name, bool *value);
/* Reads a size_t or uint64_t flag (InitialHeapSize ...); false when it is not found. */
bool vm_flags_get_u64(jvmtiEnv *jvmti, const char *name, unsigned long long *value);
/* Appends items (comma-separated) to a list flag such as DisableIntrinsic. */
bool vm_flags_add_to_list(jvmtiEnv *jvmti, const char *name, const char *items);

#endif
