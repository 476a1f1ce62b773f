/* SPDX-License-Identifier: Apache-2.0 */
/* The ELF reader, the CFI compiler and the symbolizer on real files: this process's
 * libc and the JDKs' libjvm.so (its .symtab names HotSpot's C++ functions), and on
 * truncated and corrupted copies of libc. */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "native/native_cfi.h"
#include "native/native_demangle.h"
#include "native/native_elf.h"
#include "native/native_maps.h"
#include "native/native_modules.h"
#include "native/native_symbolize.h"
#include "unit.h"

/* Rows strictly increasing by pc, and no row of an unknown kind. */
static int rows_sane(const struct nc_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        if (i > 0 && t->rows[i - 1].pc >= t->rows[i].pc) return 0;
        if (t->rows[i].cfa > NC_CFA_UNKNOWN || t->rows[i].ra > NC_REG_UNKNOWN || t->rows[i].rbp > NC_REG_UNKNOWN)
            return 0;
    }
    return 1;
}

static char libc_path[4096];

static void test_libc(void)
{
    struct nm_maps m;
    nm_maps_read_self(&m);
    const struct nm_range *r = nm_maps_find(&m, (uintptr_t)&getpid);
    snprintf(libc_path, sizeof libc_path, "%s", r ? nm_maps_path(&m, r) : "");
    nm_maps_free(&m);
    struct ne_file f;
    CHECK(ne_open(libc_path, &f) == 0, "elf: %s opens", libc_path);
    CHECK(f.nloads >= 2 && f.eh_frame_hdr.size > 0 && f.eh_frame.size > 0,
          "elf: libc's segments, .eh_frame_hdr, .eh_frame");
    CHECK(f.build_id_len == 20, "elf: libc's build ID (%zu bytes)", f.build_id_len);
    struct ns_table t;
    ns_init(&t);
    ne_symbols(&f, &t);
    ns_finish(&t);
    CHECK(t.n > 1000, "elf: libc's function symbols (%zu)", t.n);
    struct nc_table c;
    CHECK(nc_compile(f.data + f.eh_frame.off, f.eh_frame.size, f.eh_frame.vaddr, 0, &c) == 0 && c.n > 1000,
          "cfi: libc's .eh_frame compiled (%zu rows, %zu FDEs, %zu bad)", c.n, c.stats.fdes, c.stats.bad_fdes);
    CHECK(rows_sane(&c) && c.stats.bad_fdes * 100 <= c.stats.fdes, "cfi: libc's rows sorted, under 1%% bad FDEs");
    nc_free(&c);
    ns_free(&t);

    struct native_space *s;
    nm_maps_read_self(&m);
    s = nsp_new(&m, NULL, false);
    char name[256];
    const char *lib;
    bool named = s && nsz_name(s, (uintptr_t)&getpid, false, 0, name, sizeof name, &lib);
    CHECK(named && strstr(name, "getpid") && strstr(lib, "libc"), "symbolize: getpid's address is %s in %s",
          named ? name : "?", named ? lib : "?");
    nsz_name(s, (uintptr_t)&getpid, false, 0, name, sizeof name, &lib); /* loaded once, looked up again */
    const struct nmod *mod = s ? nsp_module(s, (uintptr_t)&getpid) : NULL;
    CHECK(mod && mod->syms_tried && mod->cfi->n > 1000, "modules: libc's module has its table and symbols");
    nsp_free(s);
    ne_close(&f);
}

/* The kernel's vDSO, read in memory: its rows and its names (clock_gettime is there). */
static void test_vdso(void)
{
    const uint8_t *image = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
    if (!image) {
        SKIP("no vDSO", "modules: the vDSO");
        return;
    }
    struct nm_maps m;
    nm_maps_read_self(&m);
    struct native_space *s = nsp_new(&m, NULL, false);
    const struct nmod *vdso = s ? nsp_module(s, (uintptr_t)image + 0x100) : NULL;
    /* the vDSO's own address of clock_gettime, from its symbols */
    struct ne_file f;
    struct ns_table t;
    ns_init(&t);
    uint64_t addr = 0;
    if (vdso && ne_parse(image, vdso->end - (uintptr_t)image, &f) == 0) ne_symbols(&f, &t);
    for (size_t i = 0; i < t.n; i++)
        if (strcmp(ns_name(&t, &t.syms[i]), "__vdso_clock_gettime") == 0) addr = t.syms[i].addr;
    CHECK(vdso && strcmp(vdso->name, "[vdso]") == 0 && vdso->cfi->n > 0, "modules: the vDSO, with %zu rows",
          vdso ? vdso->cfi->n : 0);
    char name[128] = "";
    const char *lib = "";
    if (vdso && addr) nsz_name(s, (uintptr_t)(vdso->bias + addr + 4), false, 0, name, sizeof name, &lib);
    CHECK(strstr(name, "clock_gettime") && strcmp(lib, "[vdso]") == 0, "symbolize: the vDSO's clock_gettime (%s in %s)",
          name, lib);
    ns_free(&t);
    nsp_free(s);
}

/* Truncated and corrupted copies parse to less, never crash (ASan under make check). */
static void test_hostile_copies(void)
{
    struct ne_file f;
    if (ne_open(libc_path, &f) != 0) return;
    size_t cuts[] = {0, 4, 63, 64, 65, 200, 4096, f.size / 2, f.size - 1};
    int fine = 1;
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        uint8_t *copy = malloc(cuts[i] ? cuts[i] : 1);
        memcpy(copy, f.data, cuts[i]);
        struct ne_file g;
        if (ne_parse(copy, cuts[i], &g) == 0) {
            struct ns_table t;
            ns_init(&t);
            ne_symbols(&g, &t);
            ns_free(&t);
            fine &= g.eh_frame.off + g.eh_frame.size <= cuts[i];
        }
        free(copy);
    }
    CHECK(fine, "elf: libc cut at 9 places reads only inside what is left");
    uint8_t *copy = malloc(f.size);
    memcpy(copy, f.data, f.size);
    memset(copy + 40, 0xff, 8); /* e_shoff far outside */
    memset(copy + 60, 0xff, 2); /* e_shnum */
    struct ne_file g;
    CHECK(ne_parse(copy, f.size, &g) == 0 && g.symtab.size == 0 && g.dynsym.size == 0 && g.eh_frame.size > 0,
          "elf: section headers outside the file: no symbols, .eh_frame still found by its program header");
    free(copy);
    ne_close(&f);
}

/* The demangled name (no parameters) of the first symbol whose mangled name holds part
 * and demangles to want; the symbol's address in *addr. */
static bool find_symbol(const struct ns_table *t, const char *part, const char *want, uint64_t *addr)
{
    char out[1024];
    for (size_t i = 0; i < t->n; i++) {
        const char *n = ns_name(t, &t->syms[i]);
        if (!strstr(n, part)) continue;
        ndm_demangle(n, 0, out, sizeof out);
        if (strcmp(out, want) == 0) {
            *addr = t->syms[i].addr;
            return true;
        }
    }
    return false;
}

static void test_libjvm(const char *path)
{
    struct ne_file f;
    if (ne_open(path, &f) != 0) {
        CHECK(0, "elf: %s opens", path);
        return;
    }
    struct ns_table t;
    ns_init(&t);
    ne_symbols(&f, &t);
    ns_finish(&t);
    CHECK(f.symtab.size > 0 && t.n > 20000, "elf: %s has .symtab (%zu functions)", path, t.n);
    uint64_t addr = 0, off = 0;
    CHECK(find_symbol(&t, "C2Compiler14compile_method", "C2Compiler::compile_method", &addr),
          "elf: %s names C2Compiler::compile_method", path);
    const struct ns_sym *s = ns_lookup(&t, addr + 3, &off);
    CHECK(s && s->addr == addr && off == 3, "elf: an address inside it finds it again");
    uint64_t ignored;
    CHECK(find_symbol(&t, "G1CollectedHeap", "G1CollectedHeap::do_collection_pause_at_safepoint", &ignored) ||
              find_symbol(&t, "G1CollectedHeap", "G1CollectedHeap::collect", &ignored),
          "elf: %s names a G1 function", path);
    struct nc_table c;
    CHECK(nc_compile(f.data + f.eh_frame.off, f.eh_frame.size, f.eh_frame.vaddr, 0, &c) == 0 && c.n > 10000,
          "cfi: libjvm's .eh_frame compiled (%zu rows, %zu FDEs, %zu bad, %zu dropped)", c.n, c.stats.fdes,
          c.stats.bad_fdes, c.stats.rows_dropped);
    CHECK(rows_sane(&c), "cfi: libjvm's rows sorted");
    const struct nc_row *row = nc_find(&c, addr);
    CHECK(row && row->cfa == NC_CFA_RSP && row->cfa_off == 8 && row->ra == NC_REG_AT_CFA && row->ra_off == -8,
          "cfi: at compile_method's first byte CFA = rsp + 8, return address at CFA - 8");
    nc_free(&c);
    ns_free(&t);
    ne_close(&f);
}

int main(void)
{
    test_libc();
    test_vdso();
    test_hostile_copies();
    glob_t g;
    if (glob("/usr/lib/jvm/*/lib/server/libjvm.so", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        SKIP("no libjvm.so under /usr/lib/jvm", "elf: libjvm's .symtab");
        return UNIT_DONE();
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char real[4096];
        if (!realpath(g.gl_pathv[i], real)) continue;
        int seen = 0; /* java-17 and java-1.17.0 are one JDK */
        for (size_t j = 0; j < i; j++) {
            char other[4096];
            if (realpath(g.gl_pathv[j], other) && strcmp(other, real) == 0) seen = 1;
        }
        if (!seen) test_libjvm(g.gl_pathv[i]);
    }
    globfree(&g);
    return UNIT_DONE();
}
