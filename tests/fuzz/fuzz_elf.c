/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the ELF reader (native/native_elf.c) and what reads the pieces it
 * finds (the symbol table, the CFI compiler): the input is a file. Invariants: every
 * piece found lies inside the file; segment lookups land inside it; symbols sorted
 * with their names NUL-terminated inside the table's own names; .eh_frame compiles to
 * sorted rows; the debug-file path, when there is one, is under /usr/lib/debug. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_cfi.h"
#include "native/native_elf.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

static void inside(const struct ne_file *f, const struct ne_piece *p, const char *what)
{
    if (p->size && (p->off > f->size || p->size > f->size - p->off)) broken(what);
}

static void check_symbols(const struct ne_file *f)
{
    struct ns_table t;
    ns_init(&t);
    ne_symbols(f, &t);
    ns_finish(&t);
    for (size_t i = 0; i < t.n; i++) {
        if (i > 0 && t.syms[i - 1].addr >= t.syms[i].addr) broken("symbols not sorted one per address");
        if (t.syms[i].name >= t.names_len || !memchr(t.names + t.syms[i].name, 0, t.names_len - t.syms[i].name))
            broken("a symbol's name outside the names");
        uint64_t off;
        if (ns_lookup(&t, t.syms[i].addr, &off) != &t.syms[i] || off != 0) broken("a symbol not found at its address");
    }
    ns_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct ne_file f;
    if (ne_parse(copy, size, &f) == 0) {
        inside(&f, &f.eh_frame, ".eh_frame outside the file");
        inside(&f, &f.eh_frame_hdr, ".eh_frame_hdr outside the file");
        inside(&f, &f.symtab, ".symtab outside the file");
        inside(&f, &f.symtab_str, ".symtab's strings outside the file");
        inside(&f, &f.dynsym, ".dynsym outside the file");
        inside(&f, &f.dynsym_str, ".dynsym's strings outside the file");
        if (f.nloads > NE_MAX_LOADS || f.build_id_len > NE_MAX_BUILD_ID) broken("past a bound");
        if (!memchr(f.debuglink, 0, sizeof f.debuglink)) broken("a debuglink without its end");
        for (size_t i = 0; i < f.nloads; i++) {
            size_t off;
            if (ne_vaddr_to_off(&f, f.loads[i].vaddr, &off) && off >= size) broken("a segment's address maps outside");
        }
        check_symbols(&f);
        struct nc_table t;
        if (f.eh_frame.size && nc_compile(f.data + f.eh_frame.off, f.eh_frame.size, f.eh_frame.vaddr, 0, &t) == 0) {
            for (size_t i = 1; i < t.n; i++)
                if (t.rows[i - 1].pc >= t.rows[i].pc) broken("rows not sorted");
            nc_free(&t);
        }
        char path[512];
        if (ne_debug_file(&f, "/usr/lib/x/libfuzz.so", path, sizeof path) && strncmp(path, "/usr/lib/debug/", 15) != 0)
            broken("a debug file outside /usr/lib/debug");
    }
    free(copy);
    return 0;
}
