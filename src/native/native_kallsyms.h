/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's function symbols from /proc/kallsyms, for naming the kernel's frames of
 * cpu=samples (kernel=y) on the agent's thread, never in a handler. A line is
 * "ADDRESS TYPE NAME" with an optional "\t[module]"; text symbols (t, T, w, W) are kept,
 * by address. The text is outside input: nk_parse is bounded (NS_MAX_SYMBOLS symbols,
 * names cut at NK_MAX_NAME) and fuzzed (tests/fuzz/fuzz_kallsyms.c); a line that is no
 * text symbol with an address (data, garbage) is skipped and counted. Where the kernel hides its addresses (kptr_restrict:
 * every address 0) the table comes out empty, and frames go unnamed.
 */
#ifndef HPROF_NATIVE_KALLSYMS_H
#define HPROF_NATIVE_KALLSYMS_H

#include <stddef.h>

#include "native/native_symbols.h"

#define NK_MAX_NAME 512
/* /proc/kallsyms is a few MB (about 120,000 lines); past this it is not read. */
#define NK_MAX_FILE ((size_t)256 << 20)

/* The text symbols of text (len bytes, not NUL-terminated) into out (initialised here,
 * sorted, freed with ns_free). How many lines were skipped. */
size_t nk_parse(const char *text, size_t len, struct ns_table *out);
/* nk_parse of /proc/kallsyms. -1 (out empty) when it cannot be read. */
int nk_read(struct ns_table *out);

#endif
