/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C++ names as people read them, from their Itanium C++ ABI mangling (section 5.1 of
 * the ABI): nested and local names, templates and their arguments (types, literals),
 * substitutions (S_, S0_, St, Sa, Ss, ...), template parameters, operators,
 * constructors and destructors, function parameter types, pointers, references,
 * qualifiers, function and array types, pointers to members, lambdas and unnamed types,
 * ABI tags, and the special names (vtable for, thunks, guard variables).
 *
 * Bounded: recursion depth, substitutions, and an arena for every piece of text made;
 * a name past a bound or outside what is understood (expressions, decltype, ...) comes
 * back as it was, mangled. Fuzzed (tests/fuzz/fuzz_demangle.c). Agent thread only (it
 * allocates): names are looked up when samples are drained, never in a handler.
 */
#ifndef HPROF_NATIVE_DEMANGLE_H
#define HPROF_NATIVE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

#define NDM_PARAMS 1u /* keep the parameter list and qualifiers: f(int) const */

#define NDM_MAX_INPUT 4096 /* longer mangled names are left as they are */

/* Writes name demangled into out[cap] (NUL-terminated); true when demangled. A name
 * that is not mangled, or cannot be demangled within the bounds or within cap, is
 * copied as it is (cut to cap) and false returned. Without NDM_PARAMS the parameter
 * list, the member function's qualifiers, the return type and clone suffixes
 * (".constprop.0", ".cold", from C names too) are dropped:
 * G1ParScanThreadState::trim_queue_partially. */
bool ndm_demangle(const char *name, unsigned flags, char *out, size_t cap);

#endif
