/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The demangler's fixed codes (Itanium C++ ABI 5.1.5, 5.1.3): builtin types and
 * operators by their mangled letters.
 */
#ifndef HPROF_NATIVE_DEMANGLE_CODES_H
#define HPROF_NATIVE_DEMANGLE_CODES_H

/* The builtin type of code c ("i": "int"), and of Dc ("decltype(auto)"); NULL when none. */
const char *dm_builtin(char c);
const char *dm_builtin_d(char c);
/* The operator of the two-letter code ab ("pl": "+", "nw": "new"); NULL when none. */
const char *dm_operator(char a, char b);

#endif
