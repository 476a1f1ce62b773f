/* SPDX-License-Identifier: Apache-2.0 */
/* The table of compiled call sites (tables/code_sites.c): found by return address only
 * while live and while the code there is what was compiled; dead after an unload; the
 * same address compiled again is a new site; a cached trace is per depth. */
#include <stdint.h>
#include <string.h>

#include "tables/code_sites.h"
#include "unit.h"

static uint8_t code[4096]; /* stands for the code cache */

int main(void)
{
    struct code_sites t;
    CHECK(code_sites_init(&t, 1u << 8), "code sites: a table of 256 slots");
    for (size_t i = 0; i < sizeof code; i++) code[i] = (uint8_t)(i * 7);
    uintptr_t m1 = (uintptr_t)code, pc = (uintptr_t)(code + 100);
    /* Every frame inlined at a site is read (its frames' hash), as many as nframes. */
    jmethodID meth[5] = {(jmethodID)0x10, (jmethodID)0x20, (jmethodID)0x30, (jmethodID)0x40, (jmethodID)0x50};
    jint bcis[5] = {1, 5, 9, 13, 17};
    code_sites_add(&t, m1, pc, code + 100, 96, 3, CODE_SITE_FRAMES, meth, bcis);
    struct code_site *s = code_sites_find(&t, pc);
    CHECK(s && s->nframes == 3 && s->kept == 3 && s->frames[1].method == meth[1] && s->frames[2].bci == 9 &&
              s->frame_size == 96,
          "code sites: found by its return address, with its inlined frames and its method's frame size");
    CHECK(code_sites_find(&t, pc + 1) == NULL, "code sites: another address finds nothing");

    struct trace *tr = (struct trace *)(uintptr_t)0x7f0000001000ull;
    CHECK(s && code_site_trace(s, 4) == NULL, "code sites: no trace before one is cached");
    if (s) code_site_set_trace(s, tr, 4);
    CHECK(s && code_site_trace(s, 4) == tr && code_site_trace(s, 5) == NULL,
          "code sites: the cached trace is for its depth only");

    code[100] ^= 0xFF; /* the code changed under it */
    CHECK(code_sites_find(&t, pc) == NULL, "code sites: code that changed is not trusted");
    code[100] ^= 0xFF;

    code_sites_unload(&t, m1);
    CHECK(code_sites_find(&t, pc) == NULL, "code sites: an unloaded method's sites are dead");

    /* The same address in a method compiled later: a site of its own, no trace yet. */
    uintptr_t m2 = (uintptr_t)(code + 64);
    jmethodID other[2] = {(jmethodID)0x10, (jmethodID)0x99};
    code_sites_add(&t, m2, pc, code + 100, 0, 2, CODE_SITE_FRAMES, other, bcis);
    s = code_sites_find(&t, pc);
    CHECK(s && s->code_addr == m2 && s->frames[1].method == other[1] && code_site_trace(s, 4) == NULL,
          "code sites: the address compiled again is a new site");

    /* Not yet told of the unload, with different code at the address: the newer site. */
    uintptr_t m3 = (uintptr_t)(code + 2048), pc3 = (uintptr_t)(code + 3000);
    code_sites_add(&t, m3, pc3, code + 3000, 0, 2, CODE_SITE_FRAMES, meth, bcis);
    code[3000] ^= 0x55;
    code_sites_add(&t, m3 + 16, pc3, code + 3000, 0, 2, CODE_SITE_FRAMES, other, bcis);
    s = code_sites_find(&t, pc3);
    CHECK(s && s->code_addr == m3 + 16, "code sites: of two sites at one address, the one whose code is there");

    /* Another call of a compiled method keeps its innermost frame only. */
    uintptr_t pc4 = (uintptr_t)(code + 3100);
    code_sites_add(&t, m3 + 16, pc4, code + 3100, 48, 5, 1, meth, bcis);
    s = code_sites_find(&t, pc4);
    CHECK(s && s->nframes == 5 && s->kept == 1 && s->frames[0].method == meth[0] && s->frames[0].bci == 1,
          "code sites: a call kept with its innermost frame and how many were inlined");

    /* After the return address: a call (e8 rel32) and an inline cache's movabs r10, imm64,
     * which the JVM patches when they are resolved; the site stays, other changes do not. */
    uintptr_t pc5 = (uintptr_t)(code + 3400);
    memcpy(code + 3400, (const uint8_t[]){0x48, 0x83, 0xc4, 0x10, 0xe8, 1, 2, 3, 4, 0x49, 0xba, 1, 2, 3, 4, 5}, 16);
    code_sites_add(&t, m3 + 16, pc5, code + 3400, 48, 1, 1, meth, bcis);
    code[3405] = 0x77;
    code[3408] = 0x99;
    code[3413] = 0x11;
    s = code_sites_find(&t, pc5);
    CHECK(s && s->pc == pc5, "code sites: a call's target and an inline cache's constant patched after the site");
    code[3403] ^= 0xFF;
    CHECK(code_sites_find(&t, pc5) == NULL, "code sites: any other byte changed is not trusted");
    code[3403] ^= 0xFF;

    /* A reader's own copies: found again without the table while nothing was unloaded
     * and the code is the same; patched bytes still pass, other changes and unloads not. */
    struct code_site_ref refs[4];
    memset(refs, 0, sizeof refs);
    struct code_site_ref *r = code_sites_find_cached(&t, refs, 3, pc5);
    CHECK(r && r->site == code_sites_find(&t, pc5) && r->nframes == 1 && r->kept == 1 && r->first == meth[0] &&
              r->frame_size == 48 && r->trace == NULL,
          "code sites: a reader's copy of a site, with what a lookup needs");
    if (r) {
        r->trace = tr;
        r->depth = 4;
    }
    code[3406] = 0x55; /* the call's target again */
    r = code_sites_find_cached(&t, refs, 3, pc5);
    CHECK(r && r->trace == tr, "code sites: the copy is found again, a patched call's target or not");
    code[3401] ^= 0xFF;
    CHECK(code_sites_find_cached(&t, refs, 3, pc5) == NULL, "code sites: a copy whose code changed is not trusted");
    code[3401] ^= 0xFF;
    r = code_sites_find_cached(&t, refs, 3, pc4);
    CHECK(r && r->site->pc == pc4 && code_sites_find_cached(&t, refs, 3, pc4) == r,
          "code sites: another site's copy in the same cache");
    code_sites_unload(&t, m3 + 16);
    CHECK(code_sites_find_cached(&t, refs, 3, pc5) == NULL && code_sites_find_cached(&t, refs, 3, pc4) == NULL,
          "code sites: no copy of an unloaded method's site is used");

    /* Frames hash the same however compiled methods split them: a site of frames 0-1
     * then one of frame 2 against one site of frames 0-2; another bytecode index not. */
    uintptr_t m4 = (uintptr_t)(code + 3600), pa = (uintptr_t)(code + 3610), pb = (uintptr_t)(code + 3630),
              pc6 = (uintptr_t)(code + 3650), pd = (uintptr_t)(code + 3670);
    jint other_bcis[3] = {1, 5, 10};
    code_sites_add(&t, m4, pa, code + 3610, 0, 2, 1, meth, bcis);
    code_sites_add(&t, m4, pb, code + 3630, 0, 1, 1, meth + 2, bcis + 2);
    code_sites_add(&t, m4, pc6, code + 3650, 0, 3, 1, meth, bcis);
    code_sites_add(&t, m4, pd, code + 3670, 0, 3, 1, meth, other_bcis);
    uint64_t a1 = 7, a2 = 7, c1 = 7, c2 = 7, d1 = 7, d2 = 7;
    const struct code_site *sa = code_sites_find(&t, pa), *sb = code_sites_find(&t, pb), *sc = code_sites_find(&t, pc6),
                           *sd = code_sites_find(&t, pd);
    CHECK(sa && sb && sc && sd, "code sites: four sites to hash");
    if (sa && sb && sc && sd) {
        code_sites_fold_site(&a1, &a2, sa);
        code_sites_fold_site(&a1, &a2, sb);
        code_sites_fold_site(&c1, &c2, sc);
        code_sites_fold_site(&d1, &d2, sd);
        CHECK(a1 == c1 && a2 == c2, "code sites: the same frames hash the same, split among two sites or not");
        CHECK(d1 != c1 && d2 != c2, "code sites: another bytecode index hashes otherwise");
        code_sites_fold_word(&a1, &a2, 99);
        CHECK(a1 != c1 && a2 != c2, "code sites: a word after them changes both hashes");
    }

    /* Methods compiled and unloaded in turn do not use up the table of methods (32 here). */
    int live = 0;
    for (int i = 0; i < 200; i++) {
        uintptr_t m = m1 + 8192 + (uintptr_t)i * 64, p = (uintptr_t)(code + 3200 + i % 64);
        code_sites_add(&t, m, p, code + 3200 + i % 64, 0, 2, CODE_SITE_FRAMES, meth, bcis);
        s = code_sites_find(&t, p);
        live += s && s->code_addr == m;
        code_sites_unload(&t, m);
    }
    CHECK(live == 200, "code sites: an unloaded method's place is taken again (%d of 200 added)", live);

    /* A full table refuses more sites rather than moving any. */
    int added = 0;
    for (int i = 0; i < 400; i++) {
        code_sites_add(&t, m1 + 4096, (uintptr_t)(code + 200 + i), code + 200 + i, 0, 2, CODE_SITE_FRAMES, meth, bcis);
        added += code_sites_find(&t, (uintptr_t)(code + 200 + i)) != NULL;
    }
    CHECK(added > 100 && added < 256, "code sites: a full table stops taking sites (%d taken)", added);

    /* Frame sizes from the prologues C1 and C2 write (bytes seen on JDK 17 and 25). */
    static const uint8_t c2_virtual[] = {0x44, 0x8b, 0x56, 0x08, 0x49, 0xbb, 0,    0,    0,    0x13, 0xc2, 0x7f,
                                         0,    0,    0x4d, 0x03, 0xd3, 0x4c, 0x3b, 0xd0, 0x0f, 0x85, 0xa6, 0x04,
                                         0x4d, 0x07, 0x66, 0x0f, 0x1f, 0x44, 0,    0,    0x89, 0x84, 0x24, 0x00,
                                         0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x30, 0x48, 0xbf};
    static const uint8_t c2_static_big[] = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x81,
                                            0xec, 0x20, 0x01, 0x00, 0x00, 0x48, 0x89, 0xb4, 0x24};
    static const uint8_t not_entrant[] = {0x66, 0x0f, 0x1f, 0x84, 0,    0,    0,    0,    0,    0x44, 0x8b, 0x56,
                                          0x08, 0x44, 0x3b, 0x50, 0x08, 0x0f, 0x85, 0xc0, 0x74, 0x58, 0x07, 0xe9,
                                          0x3b, 0x01, 0x54, 0x07, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x20, 0x41};
    static const uint8_t no_bang[] = {0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x6c,
                                      0x24, 0x10, 0x55, 0x48, 0x83, 0xec, 0x10};
    static const uint8_t preserve_fp[] = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55,
                                          0x48, 0x8b, 0xec, 0x48, 0x83, 0xec, 0x40, 0x90};
    CHECK(code_sites_frame_size(preserve_fp, sizeof preserve_fp) == 0x40 + 16,
          "code sites: the frame size with -XX:+PreserveFramePointer's mov rbp, rsp");
    CHECK(code_sites_frame_size(c2_virtual, sizeof c2_virtual) == 0x30 + 16 &&
              code_sites_frame_size(c2_static_big, sizeof c2_static_big) == 0x120 + 16 &&
              code_sites_frame_size(not_entrant, sizeof not_entrant) == 0x20 + 16,
          "code sites: the frame size read from a prologue (virtual, static, made not entrant)");
    CHECK(code_sites_frame_size(no_bang, sizeof no_bang) == 0 && code_sites_frame_size(c2_virtual, 20) == 0,
          "code sites: no frame size without a stack bang before it, nor past the bytes given");
    static const uint8_t call[] = {0x90, 0xe8, 1, 2, 3, 4, 0x90};
    CHECK(code_sites_is_call(call + 6, call) && !code_sites_is_call(call + 5, call) &&
              !code_sites_is_call(call + 4, call),
          "code sites: a return address after a near call");
    code_sites_destroy(&t);
    return UNIT_DONE();
}
