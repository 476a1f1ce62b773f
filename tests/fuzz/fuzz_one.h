/* SPDX-License-Identifier: Apache-2.0 */
/* One fuzz iteration over src/classfile, shared by the libFuzzer target and the unit test
 * that replays tests/fuzz/regressions/classfile. Returns NULL, or the invariant that broke:
 *   - a class that parses must write back byte for byte;
 *   - a class that deep-parses must not be called malformed by the instrumenter;
 *   - an instrumented class must parse again (deep when its input did), and instrument again.
 * The input's size picks the class number (every push form), a filter, and the debug knobs
 * that widen every branch, so every path gets its turn. */
#ifndef HPROF_FUZZ_ONE_H
#define HPROF_FUZZ_ONE_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"

static unsigned cf_fuzz_filter(void *ctx, const char *cls, const char *name, const char *desc, unsigned access,
                               unsigned mnum)
{
    (void)ctx;
    (void)cls;
    (void)desc;
    (void)access;
    if (strcmp(name, "skipme") == 0) return 0;
    return (mnum % 7 == 3) ? (CF_INJ_ENTRY | CF_INJ_NEWARRAY) : CF_INJ_ALL;
}

static const char *cf_fuzz_one(const uint8_t *data, size_t size)
{
    cf_class *c = NULL;
    int deep_ok = cf_parse(data, size, CF_PARSE_DEEP, &c) == CF_OK;
    if (deep_ok) {
        uint8_t *out = NULL;
        size_t n = 0;
        int same = cf_write(c, &out, &n) == CF_OK && n == size && memcmp(out, data, size) == 0;
        free(out);
        for (unsigned i = 0; i < cf_method_count(c); i++)
            if (!cf_method_name(c, i) || !cf_method_desc(c, i)) same = 0;
        cf_free(c);
        if (!same) return "round trip differs";
    }
    cf_inject_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.tracker_class = "hprof/Tracker";
    spec.entry_name = "CallSite";
    spec.entry_desc = "(II)V";
    spec.return_name = "ReturnSite";
    spec.return_desc = "(II)V";
    spec.objinit_name = "ObjectInit";
    spec.objinit_desc = "(Ljava/lang/Object;)V";
    if (size % 7 == 3) spec.objinit_desc = CF_OBJINIT_WITH_CLASS; /* the agent's form: the class passed too */
    spec.newarray_name = "NewArray";
    spec.newarray_desc = "(Ljava/lang/Object;)V";
    spec.exception_exit = 1;
    static const unsigned cnums[4] = {3, 100, 30000, 1000000};
    spec.cnum = cnums[size % 4];
    if (size % 3 == 0) spec.filter = cf_fuzz_filter;
    if (size % 5 == 1) spec.debug = CF_DEBUG_WIDEN_ALL;
    if (size % 5 == 2) spec.debug = CF_DEBUG_WIDEN_ALL | CF_DEBUG_NO_ISLANDS;

    const char *broken = NULL;
    cf_result res;
    int rc = cf_instrument(data, size, &spec, &res);
    if (deep_ok && rc == CF_ERR_FORMAT) broken = "deep-parsed class called malformed by cf_instrument";
    if (rc == CF_OK) {
        /* methods left alone (filtered, too big) may hold anything the input held */
        cf_class *c2 = NULL;
        if (cf_parse(res.data, res.len, deep_ok ? CF_PARSE_DEEP : 0, &c2) != CF_OK)
            broken = "instrumented class does not re-parse";
        cf_free(c2);
        cf_result res2;
        if (cf_instrument(res.data, res.len, &spec, &res2) == CF_ERR_FORMAT)
            broken = "instrumented class cannot be instrumented again";
        cf_result_free(&res2);
    } else if (res.data) {
        broken = "data without CF_OK";
    }
    cf_result_free(&res);
    return broken;
}
#endif
