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
 *
 * Lazy tables (the agent's way): a module's unwind table is compiled only once a walk
 * needs it. A walk that meets a module without its table stops there (NU_STOP_NO_TABLE)
 * and marks the module wanted (nsp_want: atomic stores, from the handler); the agent's
 * thread then compiles every wanted table (nsp_build_wanted) and publishes each into its
 * module with one release store, which later walks' acquire loads see. Reading libjvm's
 * table (tens of ms) leaves the JVM's start, and a library no sample ever meets costs
 * nothing. A library new in a rebuild (loaded after the first snapshot, to be called)
 * is wanted at once.
 */
#ifndef HPROF_NATIVE_MODULES_H
#define HPROF_NATIVE_MODULES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/native_cfi.h"
#include "native/native_maps.h"
#include "native/native_symbols.h"

#define NMOD_MAX 8192

struct nmod {
    uintptr_t start, end;           /* the executable mapping, [start, end) */
    uint64_t bias;                  /* address in memory = ELF address + bias */
    _Atomic(struct nc_table *) cfi; /* NULL until built (maybe empty once built) */
    _Atomic bool wanted;            /* a walk met it without its table (handlers write it) */
    struct ns_table *syms;          /* NULL until the symbolizer loads them */
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
    size_t elf_failures;    /* files that could not be read (deleted, not ELF) */
    _Atomic uint32_t wants; /* walks that asked for a table: the agent looks when it moves */
};

/* A new snapshot from maps (taken over by it: the caller's copy is emptied), taking
 * over unchanged modules' tables from prev (may be NULL); lazy: tables compiled when
 * wanted (above), else all now. NULL when out of memory. */
struct native_space *nsp_new(struct nm_maps *maps, struct native_space *prev, bool lazy);
/* In a handler: m (of s) is wanted. Async-signal-safe: an atomic store and add on the
 * snapshot's memory (malloc'd; the const is the handlers' promise to change nothing
 * else). */
void nsp_want(const struct native_space *s, const struct nmod *m);
/* On the agent's thread, the one that builds snapshots: every wanted module's table
 * compiled and published. How many were built. */
size_t nsp_build_wanted(struct native_space *s);
/* Frees a snapshot and all it owns (void * for native_publish). */
void nsp_free(void *space);
/* The module whose executable mapping holds pc, or NULL. Async-signal-safe. */
const struct nmod *nsp_module(const struct native_space *s, uintptr_t pc);

#endif
