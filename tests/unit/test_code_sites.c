/* The table of compiled call sites (tables/code_sites.c): found by return address only
 * while live and while the code there is what was compiled; dead after an unload; the
 * same address compiled again is a new site; a cached trace is per depth. */
#include <stdint.h>
#include <string.h>

#include "tables/code_sites.h"
#include "unit.h"

static uint8_t code[4096];            /* stands for the code cache */

int main(void)
{
    struct code_sites t;
    CHECK(code_sites_init(&t, 1u << 8), "code sites: a table of 256 slots");
    for (size_t i = 0; i < sizeof code; i++) code[i] = (uint8_t)(i * 7);
    uintptr_t m1 = (uintptr_t)code, pc = (uintptr_t)(code + 100);
    jmethodID meth[3] = {(jmethodID)0x10, (jmethodID)0x20, (jmethodID)0x30};
    jint bcis[3] = {1, 5, 9};
    code_sites_add(&t, m1, pc, code + 100, 3, meth, bcis);
    struct code_site *s = code_sites_find(&t, pc);
    CHECK(s && s->nframes == 3 && s->methods[1] == meth[1] && s->bcis[2] == 9 && s->methods[3] == NULL,
          "code sites: found by its return address, with its inlined frames");
    CHECK(code_sites_find(&t, pc + 1) == NULL, "code sites: another address finds nothing");

    struct trace *tr = (struct trace *)(uintptr_t)0x7f0000001000ull;
    CHECK(s && code_site_trace(s, 4) == NULL, "code sites: no trace before one is cached");
    if (s) code_site_set_trace(s, tr, 4);
    CHECK(s && code_site_trace(s, 4) == tr && code_site_trace(s, 5) == NULL,
          "code sites: the cached trace is for its depth only");

    code[100] ^= 0xFF;                 /* the code changed under it */
    CHECK(code_sites_find(&t, pc) == NULL, "code sites: code that changed is not trusted");
    code[100] ^= 0xFF;

    code_sites_unload(&t, m1);
    CHECK(code_sites_find(&t, pc) == NULL, "code sites: an unloaded method's sites are dead");

    /* The same address in a method compiled later: a site of its own, no trace yet. */
    uintptr_t m2 = (uintptr_t)(code + 64);
    jmethodID other[2] = {(jmethodID)0x10, (jmethodID)0x99};
    code_sites_add(&t, m2, pc, code + 100, 2, other, bcis);
    s = code_sites_find(&t, pc);
    CHECK(s && s->code_addr == m2 && s->methods[1] == other[1] && code_site_trace(s, 4) == NULL,
          "code sites: the address compiled again is a new site");

    /* Not yet told of the unload, with different code at the address: the newer site. */
    uintptr_t m3 = (uintptr_t)(code + 2048), pc3 = (uintptr_t)(code + 3000);
    code_sites_add(&t, m3, pc3, code + 3000, 2, meth, bcis);
    code[3000] ^= 0x55;
    code_sites_add(&t, m3 + 16, pc3, code + 3000, 2, other, bcis);
    s = code_sites_find(&t, pc3);
    CHECK(s && s->code_addr == m3 + 16, "code sites: of two sites at one address, the one whose code is there");

    /* A full table refuses more sites rather than moving any. */
    int added = 0;
    for (int i = 0; i < 400; i++) {
        code_sites_add(&t, m1 + 4096 + (uintptr_t)i, (uintptr_t)(code + 200 + i), code + 200 + i, 2, meth, bcis);
        added += code_sites_find(&t, (uintptr_t)(code + 200 + i)) != NULL;
    }
    CHECK(added > 100 && added < 256, "code sites: a full table stops taking sites (%d taken)", added);
    code_sites_destroy(&t);
    return UNIT_DONE();
}
