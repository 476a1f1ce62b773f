/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A native pc as a frame name: the library's file name and the function's (demangled,
 * by default without its parameters: "G1ParScanThreadState::trim_queue_partially"),
 * or "libfoo.so+0x1a2b" where no symbol covers it. Symbols come from the library's
 * .symtab and .dynsym, and from its separate debug file under /usr/lib/debug when it has
 * no .symtab of its own; each library's are read on first use. Agent thread only:
 * reads files and allocates; never in a signal handler.
 */
#ifndef HPROF_NATIVE_SYMBOLIZE_H
#define HPROF_NATIVE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/native_modules.h"

/* Names pc into out[cap] (the function, or lib+0xOFFSET) and points *lib at the
 * library's file name ("" when no module holds pc: then out is "0x..."). caller: pc is
 * a return address (the call is the byte before it). flags: NDM_* (native_demangle.h).
 * Returns true when a symbol named it. */
bool nsz_name(struct native_space *s, uintptr_t pc, bool caller, unsigned flags, char *out, size_t cap,
              const char **lib);

#endif
