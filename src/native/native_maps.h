/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's memory map, as /proc/self/maps gives it, made into an immutable table:
 *   - every mapping that can be read, sorted by address, with the file it maps (path and
 *     offset), for finding a library's base and the stack a thread runs on;
 *   - the same ranges merged where they touch, for nm_maps_readable: the only memory
 *     check a signal handler makes before it reads a word of a stack.
 * nm_maps_parse is a pure parser over a buffer (fuzzed: tests/fuzz/fuzz_maps.c); a line
 * it cannot read is skipped and counted. The table is built on an agent thread and read
 * by handlers through a native_publish slot; once built it never changes.
 */
#ifndef HPROF_NATIVE_MAPS_H
#define HPROF_NATIVE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NM_PERM_R 1u
#define NM_PERM_W 2u
#define NM_PERM_X 4u

/* Limits that keep a hostile or huge map bounded. */
#define NM_MAX_RANGES 262144
#define NM_MAX_PATH   4096

struct nm_range {
    uintptr_t start, end; /* [start, end) */
    uint64_t offset;      /* in the file mapped */
    uint32_t path;        /* offset in names, or NM_NO_PATH */
    uint32_t perms;       /* NM_PERM_* */
};
#define NM_NO_PATH UINT32_MAX

struct nm_span {
    uintptr_t start, end; /* readable, [start, end) */
};

struct nm_maps {
    struct nm_range *ranges; /* readable ranges, sorted, none overlapping */
    size_t nranges;
    struct nm_span *spans; /* ranges merged where they touch, sorted */
    size_t nspans;
    char *names; /* the paths, NUL-terminated one after the other */
    size_t names_len;
    size_t skipped; /* lines not understood, or overlapping an earlier one */
};

/* Parses maps text into *out (zeroed first). 0, or -1 when out of memory (then *out is
 * empty). Lines that cannot be read are skipped and counted, never fatal. */
int nm_maps_parse(const char *text, size_t len, struct nm_maps *out);
/* Reads /proc/self/maps and parses it. 0, or -1. */
int nm_maps_read_self(struct nm_maps *out);
void nm_maps_free(struct nm_maps *m);

/* Whether [addr, addr + len) lies within readable memory as the table saw it.
 * Async-signal-safe: a binary search over the immutable spans, no call, no lock. */
bool nm_maps_readable(const struct nm_maps *m, uintptr_t addr, size_t len);
/* The readable span holding addr (a thread's stack, for a walk), or NULL. Async-signal-safe. */
const struct nm_span *nm_maps_span(const struct nm_maps *m, uintptr_t addr);
/* The range holding addr, or NULL (agent thread; async-signal-safe too). */
const struct nm_range *nm_maps_find(const struct nm_maps *m, uintptr_t addr);
/* The path of a range, or "" when it maps no file. */
const char *nm_maps_path(const struct nm_maps *m, const struct nm_range *r);

#endif
