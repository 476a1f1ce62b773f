/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's native code as one immutable snapshot, built on an agent thread and
 * handed to signal handlers through native_publish: the memory map (for checking every
 * read), and each executable mapping of an ELF file (libjvm, libc, the JDK's libraries,
 * JNI libraries) with its load bias and its compiled unwind table.
 *
 * A rebuild (after a dlopen) takes over the tables of modules it already had (same
 * file, same place) instead of compiling them again; the snapshot they came from keeps
 * pointing at them but no longer owns them, so freeing it leaves them alone.
 * Symbols are loaded later, on first use by the symbolizer (agent thread only).
 */
#ifndef HPROF_NATIVE_MODULES_H
#define HPROF_NATIVE_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/native_cfi.h"
#include "native/native_maps.h"
#include "native/native_symbols.h"

#define NMOD_MAX 8192

struct nmod {
    uintptr_t start, end;  /* the executable mapping, [start, end) */
    uint64_t bias;         /* address in memory = ELF address + bias */
    struct nc_table *cfi;  /* never NULL once built (maybe empty) */
    struct ns_table *syms; /* NULL until the symbolizer loads them */
    char *path;
    const char *name; /* the file's base name, inside path */
    bool owns;        /* this snapshot frees cfi and syms */
    bool syms_tried;
    struct nmod *taken;   /* while building: the module of prev whose tables these are */
    const uint8_t *image; /* an ELF image read in memory, not from a file: the vDSO */
    size_t image_size;
};

struct native_space {
    struct nm_maps maps;
    struct nmod *mods; /* sorted by start, none overlapping */
    size_t n;
    size_t elf_failures; /* files that could not be read (deleted, not ELF) */
};

/* A new snapshot from maps (taken over by it: the caller's copy is emptied), taking
 * over unchanged modules' tables from prev (may be NULL). NULL when out of memory. */
struct native_space *nsp_new(struct nm_maps *maps, struct native_space *prev);
/* Frees a snapshot and all it owns (void * for native_publish). */
void nsp_free(void *space);
/* The module whose executable mapping holds pc, or NULL. Async-signal-safe. */
const struct nmod *nsp_module(const struct native_space *s, uintptr_t pc);

#endif
