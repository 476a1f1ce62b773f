/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for src/classfile: parse (deep), round trip, instrument, re-parse; the
 * invariants are in fuzz_one.h. Then the allocation-site hooks (CF_INJ_SITES and
 * CF_INJ_ALLOCINST: the calls of natives whose result the VM made, clones), numbered in
 * turn with some sites refused: the output parses again, and every reported site's
 * new_bci holds an allocating opcode (or a call) of its kind in the output.
 * ASan/UBSan catch the rest. Build and run with `make fuzz` (tests/fuzz/fuzz.mk); inputs it
 * once broke live in tests/fuzz/regressions/classfile and are replayed by
 * tests/unit/test_classfile.c. */
#include "fuzz_target.h"
#include <stdio.h>

#include "fuzz_one.h"

typedef struct {
    long next;
    unsigned calls;
    int bad_info; /* the callback saw a site it should not have */
} fuzz_numbers;

/* Numbers in turn; every fifth site refused (-1), every seventh given the largest number
 * (a MULTI site of two dimensions or more then passes CF_SITE_MAX and is refused too). */
static long fuzz_number(void *ctx, const cf_site_info *s)
{
    fuzz_numbers *f = ctx;
    unsigned k = f->calls++;
    if (s->new_bci != 0 || !s->type || s->dims < 1 || s->kind < CF_SITE_NEW || s->kind > CF_SITE_CALL ||
        (s->kind == CF_SITE_CALL && (s->type[0] || s->dims != 1)))
        f->bad_info = 1;
    if (k % 5 == 4) return -1;
    if (k % 7 == 6) return CF_SITE_MAX;
    long v = f->next;
    f->next += s->dims;
    return v;
}

typedef struct {
    const uint8_t *p;
    size_t n, i;
    int bad;
} rd;

static uint32_t get(rd *r, unsigned k)
{
    if (r->bad || r->n - r->i < k) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = 0;
    for (unsigned j = 0; j < k; j++) v = (v << 8) | r->p[r->i + j];
    r->i += k;
    return v;
}

static void skip(rd *r, size_t k)
{
    if (r->bad || r->n - r->i < k)
        r->bad = 1;
    else
        r->i += k;
}

/* The code of method mnum of class file p (code length in *len), or NULL. */
static const uint8_t *method_code(const uint8_t *p, size_t n, unsigned mnum, uint32_t *len)
{
    rd r = {p, n, 8, 0};
    uint32_t cpn = get(&r, 2);
    uint8_t is_code[65536 / 8] = {0}; /* the Utf8 entries "Code" (a pool may hold several) */
    for (uint32_t k = 1; k < cpn && !r.bad; k++) {
        uint32_t tag = get(&r, 1);
        if (tag == 1) {
            uint32_t l = get(&r, 2);
            if (l == 4 && r.n - r.i >= 4 && !memcmp(r.p + r.i, "Code", 4)) is_code[k / 8] |= (uint8_t)(1u << (k % 8));
            skip(&r, l);
        } else if (tag == 5 || tag == 6) {
            skip(&r, 8);
            k++;
        } else {
            skip(&r, tag == 7 || tag == 8 || tag == 16 || tag == 19 || tag == 20 ? 2 : tag == 15 ? 3 : 4);
        }
    }
    skip(&r, 6);
    skip(&r, 2 * (size_t)get(&r, 2));
    for (int group = 0; group < 2 && !r.bad; group++) { /* fields, then methods */
        uint32_t count = get(&r, 2);
        for (uint32_t m = 0; m < count && !r.bad; m++) {
            skip(&r, 6);
            uint32_t na = get(&r, 2);
            for (uint32_t a = 0; a < na && !r.bad; a++) {
                uint32_t name = get(&r, 2), al = get(&r, 4);
                if (group == 1 && m == mnum && (is_code[name / 8] >> (name % 8) & 1) && al >= 8 && r.n - r.i >= al) {
                    uint32_t cl = ((uint32_t)p[r.i + 4] << 24) | ((uint32_t)p[r.i + 5] << 16) |
                        ((uint32_t)p[r.i + 6] << 8) | p[r.i + 7];
                    if (cl > al - 8) return NULL;
                    *len = cl;
                    return p + r.i + 8;
                }
                skip(&r, al);
            }
        }
    }
    return NULL;
}

static const char *site_hooks_one(const uint8_t *data, size_t size)
{
    static const long bases[3] = {0, 30000, 100000}; /* iconst/bipush, sipush, ldc */
    fuzz_numbers nums = {bases[size % 3], 0, 0};
    cf_inject_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.tracker_class = "hprof/Tracker";
    spec.newsite_name = "NewSite";
    spec.arraysite_name = "ArraySite";
    spec.multisite_name = "MultiSite";
    spec.allocinst_name = "AllocInst";
    if (size % 3 == 1) spec.madeall_name = "MadeAll";
    if (size % 7 == 3) spec.definer_name = "Definer"; /* only ClassDefiner's reads: rare here */
    if (size % 6 == 2) { /* clones: Object.clone's take the AllocInst hook, the others theirs */
        spec.clone_name = "Clone";
        spec.vclone_name = "VClone";
    }
    spec.site_fn = fuzz_number;
    spec.site_ctx = &nums;
    if (size % 4 == 1) { /* with the other hooks, sharing the post blob */
        spec.newarray_name = "NewArray";
        spec.newarray_desc = "(Ljava/lang/Object;)V";
        spec.return_name = "ReturnSite";
        spec.return_desc = "(II)V";
        spec.exception_exit = 1;
    }
    if (size % 5 == 2) spec.debug = CF_DEBUG_WIDEN_ALL;
    cf_class *c = NULL;
    int deep_ok = cf_parse(data, size, CF_PARSE_DEEP, &c) == CF_OK;
    cf_free(c);
    cf_result res;
    int rc = cf_instrument(data, size, &spec, &res);
    const char *broken = NULL;
    if (rc != CF_OK && res.site_count) broken = "sites reported without CF_OK";
    if (nums.bad_info) broken = "the callback was given a bad site";
    if (rc == CF_OK) {
        c = NULL;
        if (cf_parse(res.data, res.len, deep_ok ? CF_PARSE_DEEP : 0, &c) != CF_OK)
            broken = "class with site hooks does not re-parse";
        cf_free(c);
    }
    for (unsigned i = 0; rc == CF_OK && i < res.site_count && !broken; i++) {
        const cf_site_info *s = &res.sites[i];
        uint32_t len = 0;
        const uint8_t *code = method_code(res.data, res.len, s->mnum, &len);
        /* new; newarray, anewarray; multianewarray; a call (invokevirtual, invokespecial,
         * invokestatic) */
        static const uint8_t ops[5][3] = {
            {0, 0, 0}, {187, 187, 187}, {188, 189, 189}, {197, 197, 197}, {182, 183, 184}};
        if (s->kind < CF_SITE_NEW || s->kind > CF_SITE_CALL || !s->type || s->number < 0 ||
            s->number + (long)s->dims - 1 > CF_SITE_MAX)
            broken = "a site entry out of range";
        else if (!code || s->new_bci >= len ||
                 (code[s->new_bci] != ops[s->kind][0] && code[s->new_bci] != ops[s->kind][1] &&
                  code[s->new_bci] != ops[s->kind][2]))
            broken = "a site's new_bci is not an allocating opcode of its kind";
    }
    cf_result_free(&res);
    return broken;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *broken = cf_fuzz_one(data, size);
    if (!broken) broken = site_hooks_one(data, size);
    if (broken) {
        fprintf(stderr, "invariant broken: %s\n", broken);
        abort();
    }
    return 0;
}
