/* SPDX-License-Identifier: Apache-2.0 */
/* A native pc as a frame name (native_symbolize.h). */
#include "native/native_symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "native/native_demangle.h"
#include "native/native_elf.h"

/* The symbols of one file, added to t; false when it cannot be read. */
static bool symbols_of(const char *path, struct ns_table *t, bool *has_symtab)
{
    struct ne_file f;
    if (ne_open(path, &f) != 0) return false;
    *has_symtab = f.symtab.size > 0;
    ne_symbols(&f, t);
    if (!*has_symtab) {
        char debug[4096];
        struct ne_file g;
        if (ne_debug_file(&f, path, debug, sizeof debug) && ne_open(debug, &g) == 0) {
            ne_symbols(&g, t);
            ne_close(&g);
        }
    }
    ne_close(&f);
    return true;
}

/* Loads a module's symbols once (the module's fields are the agent thread's: a handler
 * never reads them). */
static const struct ns_table *module_symbols(struct nmod *m)
{
    if (m->syms_tried) return m->syms;
    m->syms_tried = true;
    struct ns_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    ns_init(t);
    bool has_symtab = false;
    struct ne_file f;
    if (m->image && ne_parse(m->image, m->image_size, &f) == 0) { /* the vDSO, in memory */
        ne_symbols(&f, t);
    } else if (m->image || !symbols_of(m->path, t, &has_symtab)) {
        free(t);
        return NULL;
    }
    ns_finish(t);
    m->syms = t;
    return t;
}

bool nsz_name(struct native_space *s, uintptr_t pc, bool caller, unsigned flags, char *out, size_t cap,
              const char **lib)
{
    uintptr_t at = pc - (caller ? 1 : 0);
    struct nmod *m = (struct nmod *)nsp_module(s, at);
    *lib = "";
    if (!m) {
        snprintf(out, cap, "0x%" PRIxPTR, pc);
        return false;
    }
    *lib = m->name;
    const struct ns_table *t = module_symbols(m);
    uint64_t off;
    const struct ns_sym *sym = t ? ns_lookup(t, at - m->bias, &off) : NULL;
    if (!sym) {
        snprintf(out, cap, "%s+0x%" PRIx64, m->name, (uint64_t)(pc - m->bias));
        return false;
    }
    ndm_demangle(ns_name(t, sym), flags, out, cap);
    return true;
}
