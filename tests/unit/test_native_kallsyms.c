/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's symbols (native_kallsyms.c): hostile text, and this machine's file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_kallsyms.h"
#include "unit.h"

static const char *name_at(const struct ns_table *t, uint64_t addr, uint64_t *off)
{
    const struct ns_sym *s = ns_lookup(t, addr, off);
    return s ? ns_name(t, s) : "(none)";
}

static void test_hostile(void)
{
    char longname[NK_MAX_NAME + 100];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    char text[NK_MAX_NAME + 2000];
    snprintf(text, sizeof text,
             "ffffffff81000000 T _stext\n"
             "ffffffff81000100 t helper\n"
             "ffffffff81000200 D some_data\n" /* data: not a function */
             "ffffffff81000300 W weak_one\n"
             "ffffffffc0001000 t mod_fn\t[some_mod]\n" /* a module's: its name alone */
             "0000000000000000 T hidden\n"             /* kptr_restrict: no address */
             "ffffffff810004000000000000 T too_long\n" /* more than 64 bits */
             "ffffffff81000500 T\n"                    /* no name */
             "garbage\n"
             "\n"
             "ffffffff81000600 TT odd\n"
             "ffffffff81000700 t %s\n"
             "ffffffff81000800 T cut_off_at_the_end", /* no newline */
             longname);
    struct ns_table t;
    size_t skipped = nk_parse(text, strlen(text), &t);
    CHECK(t.n == 6, "kallsyms: the 6 text symbols kept (%zu)", t.n);
    CHECK(skipped == 6, "kallsyms: data, hidden, 17 digits, no name, garbage, TT skipped (%zu)", skipped);
    uint64_t off = 0;
    CHECK(strcmp(name_at(&t, 0xffffffff81000150, &off), "helper") == 0 && off == 0x50,
          "kallsyms: a pc inside helper, 0x50 in");
    CHECK(strcmp(name_at(&t, 0xffffffff81000250, &off), "helper") == 0, "kallsyms: data symbols do not cut helper");
    CHECK(strcmp(name_at(&t, 0xffffffffc0001010, &off), "mod_fn") == 0,
          "kallsyms: a module's function, its name alone");
    CHECK(strlen(name_at(&t, 0xffffffff81000700, &off)) == NK_MAX_NAME, "kallsyms: a long name cut to %d", NK_MAX_NAME);
    CHECK(strcmp(name_at(&t, 0xffffffff81000900, &off), "cut_off_at_the_end") == 0, "kallsyms: the last line unended");
    CHECK(strcmp(name_at(&t, 0xffffffff80000000, &off), "(none)") == 0, "kallsyms: below the first symbol, none");
    ns_free(&t);
    CHECK(nk_parse("", 0, &t) == 0 && t.n == 0, "kallsyms: empty text");
    ns_free(&t);
    const char nul[] = "ffffffff81000000 T a\0b\nffffffff81000100 T c";
    nk_parse(nul, sizeof nul - 1, &t);
    CHECK(t.n == 2 && strcmp(name_at(&t, 0xffffffff81000000, &off), "a") == 0, "kallsyms: a NUL ends a name");
    ns_free(&t);
}

/* This machine's: where addresses are shown (root, kptr_restrict 0 or 1), the function
 * that runs a system call is among them. */
static void test_self(void)
{
    struct ns_table t;
    int rc = nk_read(&t);
    CHECK(rc == 0 || t.n == 0, "kallsyms: /proc/kallsyms read (%zu functions)", t.n);
    int found = 0;
    for (size_t i = 0; i < t.n && !found; i++) found = strcmp(ns_name(&t, &t.syms[i]), "do_syscall_64") == 0;
    if (t.n)
        CHECK(found, "kallsyms: do_syscall_64 among this kernel's functions");
    else
        SKIP("the kernel hides its addresses here (kptr_restrict)", "kallsyms: do_syscall_64 among this kernel's");
    ns_free(&t);
}

int main(void)
{
    test_hostile();
    test_self();
    return UNIT_DONE();
}
