/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the unwinder and the symbolizer need from an ELF file (64-bit, little-endian:
 * x86-64): its loadable segments, where .eh_frame_hdr and .eh_frame are (by the
 * PT_GNU_EH_FRAME program header, or by section headers), its function symbols from
 * .symtab and .dynsym, its build ID and .gnu_debuglink name.
 *
 * The file is outside input: every offset and size is checked against the file's size
 * and every count is bounded, so a truncated or hostile file gives less, never a read
 * outside it (fuzzed: tests/fuzz/fuzz_elf.c). ne_parse works on bytes in memory;
 * ne_open maps a file read-only for it. The files opened are those our own process has
 * mapped (paths from /proc/self/maps) and their debug files under /usr/lib/debug.
 */
#ifndef HPROF_NATIVE_ELF_H
#define HPROF_NATIVE_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/native_symbols.h"

#define NE_MAX_LOADS    16
#define NE_MAX_SECTIONS 65536
#define NE_MAX_BUILD_ID 64
#define NE_MAX_LINK     256

struct ne_load {
    uint64_t vaddr, memsz, offset, filesz;
    uint32_t flags; /* PF_X 1, PF_W 2, PF_R 4 */
};

/* A piece of the file: its file offset, size, and address when loaded (0 if none). */
struct ne_piece {
    size_t off, size;
    uint64_t vaddr;
};

struct ne_file {
    const uint8_t *data;
    size_t size;
    uint16_t type; /* ET_EXEC 2, ET_DYN 3 */
    struct ne_load loads[NE_MAX_LOADS];
    size_t nloads;
    struct ne_piece eh_frame_hdr, eh_frame; /* size 0: none */
    struct ne_piece symtab, symtab_str, dynsym, dynsym_str;
    uint8_t build_id[NE_MAX_BUILD_ID];
    size_t build_id_len;
    char debuglink[NE_MAX_LINK]; /* "" none */
};

/* Reads what it can of data[0, size). 0, or -1 when it is no 64-bit little-endian ELF. */
int ne_parse(const uint8_t *data, size_t size, struct ne_file *f);
/* Maps path read-only and parses it. 0, or -1 (nothing to close then). */
int ne_open(const char *path, struct ne_file *f);
void ne_close(struct ne_file *f);

/* The file offset of a loaded address, when a segment holds it in the file. */
bool ne_vaddr_to_off(const struct ne_file *f, uint64_t vaddr, size_t *off);
/* The load segment whose file bytes hold offset off, or NULL. */
const struct ne_load *ne_load_at_offset(const struct ne_file *f, uint64_t off);

/* Adds the function symbols of .symtab and .dynsym (.symtab's first) to t. */
void ne_symbols(const struct ne_file *f, struct ns_table *t);

/* Where a separate debug file for f may be (the build-ID path first, then the
 * debuglink name under /usr/lib/debug plus the library's folder): writes the first that
 * exists into out; false when none does. Only under /usr/lib/debug. */
bool ne_debug_file(const struct ne_file *f, const char *path, char *out, size_t cap);

#endif
