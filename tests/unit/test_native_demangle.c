/* SPDX-License-Identifier: Apache-2.0 */
/* The Itanium C++ demangler: names written by hand from the ABI's grammar with what
 * they mean, checked against c++filt too where binutils is installed; the mode without
 * parameters the profiles use; names it leaves as they are; its bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native/native_demangle.h"
#include "unit.h"

struct demangle_case {
    const char *mangled, *full, *short_form;
};

static const struct demangle_case CASES[] = {
    {"_Z1fv", "f()", "f"},
    {"_Z3fooic", "foo(int, char)", "foo"},
    {"_ZN3foo3barEv", "foo::bar()", "foo::bar"},
    {"_ZNK3Foo3getEv", "Foo::get() const", "Foo::get"},
    {"_ZN20G1ParScanThreadState20trim_queue_partiallyEv", "G1ParScanThreadState::trim_queue_partially()",
     "G1ParScanThreadState::trim_queue_partially"},
    {"_ZN10C2Compiler14compile_methodEP5ciEnvP8ciMethodibP12DirectiveSet",
     "C2Compiler::compile_method(ciEnv*, ciMethod*, int, bool, DirectiveSet*)", "C2Compiler::compile_method"},
    {"_ZN3FooC1Ev", "Foo::Foo()", "Foo::Foo"},
    {"_ZN3FooD2Ev", "Foo::~Foo()", "Foo::~Foo"},
    {"_ZN2ns3FooC2ERKS0_", "ns::Foo::Foo(ns::Foo const&)", "ns::Foo::Foo"},
    {"_Z1fIiEvT_", "void f<int>(int)", "f<int>"},
    {"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)",
     "std::vector<int, std::allocator<int> >::push_back"},
    {"_Z3fooPKcS0_", "foo(char const*, char const*)", "foo"},
    {"_ZN3FooplERKS_", "Foo::operator+(Foo const&)", "Foo::operator+"},
    {"_ZN3FooixEi", "Foo::operator[](int)", "Foo::operator[]"},
    {"_ZN3FoocvbEv", "Foo::operator bool()", "Foo::operator bool"},
    {"_Znwm", "operator new(unsigned long)", "operator new"},
    {"_ZdlPv", "operator delete(void*)", "operator delete"},
    {"_Z3fooPFviE", "foo(void (*)(int))", "foo"},
    {"_Z3barRA10_i", "bar(int (&) [10])", "bar"},
    {"_Z3bazM3FooFviE", "baz(void (Foo::*)(int))", "baz"},
    {"_Z3quxM3Fooi", "qux(int Foo::*)", "qux"},
    {"_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()", "(anonymous namespace)::foo"},
    {"_ZZ4mainE5count", "main::count", "main::count"},
    {"_ZZ1fvE1x", "f()::x", "f::x"},
    {"_ZTV3Foo", "vtable for Foo", "vtable for Foo"},
    {"_ZTI3Foo", "typeinfo for Foo", "typeinfo for Foo"},
    {"_ZThn8_N3Foo3barEv", "non-virtual thunk to Foo::bar()", "non-virtual thunk to Foo::bar"},
    {"_ZGVZ1fvE1x", "guard variable for f()::x", "guard variable for f::x"},
    {"_Z3foov.constprop.0", "foo() [clone .constprop.0]", "foo"},
    {"_Z3foov.part.0.cold", "foo() [clone .part.0] [clone .cold]", "foo"},
    {"_Z1fILi5EEvv", "void f<5>()", "f<5>"},
    {"_Z1fILb1EEvv", "void f<true>()", "f<true>"},
    {"_Z1fI1AI1BEEvv", "void f<A<B> >()", "f<A<B> >"},
    {"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const", "main::{lambda()#1}::operator()"},
    {"_ZN3FooB5cxx113barEv", "Foo[abi:cxx11]::bar()", "Foo[abi:cxx11]::bar"},
    {"_Z6printfPKcz", "printf(char const*, ...)", "printf"},
    {"_ZN5Outer5InnerIiE4workIcEEvT_", "void Outer::Inner<int>::work<char>(char)", "Outer::Inner<int>::work<char>"},
    {"_Z1fPVKi", "f(int const volatile*)", "f"},
    {"_Z1fPrVKi", "f(int const volatile restrict*)", "f"},
    {"_Z1fSt6string", "f(std::string)", "f"},
    {"_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen(char) const", "std::ctype<char>::do_widen"},
    {"_Z1fIJicEEvDpT_", "", ""}, /* a pack expansion: left as it is ("") */
};
#define NCASES (sizeof CASES / sizeof *CASES)

static void test_cases(void)
{
    char out[1024];
    for (size_t i = 0; i < NCASES; i++) {
        const struct demangle_case *c = &CASES[i];
        if (!c->mangled) continue; /* (never: tells the compiler's format check) */
        bool ok = ndm_demangle(c->mangled, NDM_PARAMS, out, sizeof out);
        CHECK_STR(out, c->full[0] ? c->full : c->mangled, "demangle: %s", c->mangled);
        CHECK(ok == (c->full[0] != 0), "demangle: %s says whether it demangled", c->mangled);
        ndm_demangle(c->mangled, 0, out, sizeof out);
        CHECK_STR(out, c->short_form[0] ? c->short_form : c->mangled, "demangle without parameters: %s", c->mangled);
    }
}

/* The hand-written meanings against binutils' c++filt, where it is installed. */
static void test_cxxfilt(void)
{
    FILE *probe = popen("c++filt --version 2>/dev/null", "r");
    char line[4096];
    int have = probe && fgets(line, sizeof line, probe) != NULL;
    if (probe) pclose(probe);
    if (!have) {
        SKIP("no c++filt", "demangle: the cases agree with c++filt");
        return;
    }
    char tmp[] = "/tmp/hprof-demangle-XXXXXX";
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    for (size_t i = 0; f && i < NCASES; i++) fprintf(f, "%s\n", CASES[i].mangled);
    if (f) fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "c++filt < %s", tmp);
    FILE *p = popen(cmd, "r");
    int agree = 0, compared = 0;
    for (size_t i = 0; p && i < NCASES && fgets(line, sizeof line, p); i++) {
        line[strcspn(line, "\n")] = 0;
        if (!CASES[i].full[0]) continue; /* what we leave mangled, c++filt may not */
        compared++;
        if (strcmp(line, CASES[i].full) == 0)
            agree++;
        else
            printf("# c++filt: %s\n#   says: %s\n#   we say: %s\n", CASES[i].mangled, line, CASES[i].full);
    }
    if (p) pclose(p);
    unlink(tmp);
    CHECK(compared > 30 && agree == compared, "demangle: %d of %d cases agree with c++filt", agree, compared);
}

static void test_left_alone(void)
{
    char out[64];
    CHECK(!ndm_demangle("printf", 0, out, sizeof out) && strcmp(out, "printf") == 0, "demangle: a C name as it is");
    CHECK(!ndm_demangle("memcpy.part.0", 0, out, sizeof out) && strcmp(out, "memcpy") == 0,
          "demangle: a C name's clone suffix dropped without parameters");
    const char *bad[] = {"_Z", "_Z1", "_Z9abc", "_ZNS5_3fooEv", "_Z1fT_", "_ZN3FooC1Ev.", "_ZSt", "_Z1fL"};
    int fine = 1;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool ok = ndm_demangle(bad[i], NDM_PARAMS, out, sizeof out);
        if (ok || strcmp(out, bad[i]) != 0) {
            fine = 0;
            printf("# %s -> %s\n", bad[i], out);
        }
    }
    CHECK(fine, "demangle: 8 malformed names come back as they were");
}

static void test_bounds(void)
{
    char out[8];
    CHECK(!ndm_demangle("_ZN3foo3barEv", NDM_PARAMS, out, sizeof out) && strcmp(out, "_ZN3foo") == 0,
          "demangle: a name that does not fit comes back mangled, cut to the room");
    /* 2000 pointers deep: past the recursion bound */
    char *deep = malloc(4100);
    strcpy(deep, "_Z1f");
    memset(deep + 4, 'P', 2000);
    strcpy(deep + 2004, "i");
    char big[8192];
    CHECK(!ndm_demangle(deep, NDM_PARAMS, big, sizeof big) && strcmp(big, deep) == 0,
          "demangle: 2000 nested pointers come back mangled");
    /* each parameter doubles the one before through substitutions: bounded output */
    strcpy(deep, "_Z1fP1A");
    size_t n = strlen(deep);
    for (int i = 0; i < 40; i++) n += (size_t)sprintf(deep + n, "PS%d_", i);
    bool ok = ndm_demangle(deep, NDM_PARAMS, big, sizeof big);
    CHECK(strlen(big) < sizeof big && (ok || strcmp(big, deep) == 0), "demangle: substitution chains stay bounded");
    free(deep);
}

int main(void)
{
    test_cases();
    test_cxxfilt();
    test_left_alone();
    test_bounds();
    return UNIT_DONE();
}
