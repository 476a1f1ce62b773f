/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One library's function symbols, sorted by address, for naming a pc on the agent's
 * thread (never in a handler: names are looked up when samples are drained). Addresses
 * are the ELF file's (link-time) virtual addresses; the caller takes the load bias off.
 */
#ifndef HPROF_NATIVE_SYMBOLS_H
#define HPROF_NATIVE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#define NS_MAX_SYMBOLS (4u << 20)
#define NS_MAX_NAME    4096

struct ns_sym {
    uint64_t addr, size; /* size 0: unknown, runs to the next symbol */
    uint32_t name;       /* offset in names */
};

struct ns_table {
    struct ns_sym *syms;
    size_t n, cap;
    char *names;
    size_t names_len, names_cap;
    size_t dropped; /* past the limits, or out of memory */
};

void ns_init(struct ns_table *t);
/* Adds a symbol (name of len bytes, cut at NS_MAX_NAME). 0, or -1 when dropped. */
int ns_add(struct ns_table *t, uint64_t addr, uint64_t size, const char *name, size_t len);
/* Sorts and keeps one symbol per address (the one with a size, then the first added:
 * .symtab's before .dynsym's). Lookups only after this. */
void ns_finish(struct ns_table *t);
/* The symbol covering addr (within its size, or before the next one when its size is
 * unknown), or NULL; *off gets addr's distance from its start. */
const struct ns_sym *ns_lookup(const struct ns_table *t, uint64_t addr, uint64_t *off);
static inline const char *ns_name(const struct ns_table *t, const struct ns_sym *s) { return t->names + s->name; }
void ns_free(struct ns_table *t);

#endif
