/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for hprof analyze (tools/hprof/analyze_*.c) on any file: the index
 * (records, the last heap dump's sub-records, class layouts, references), the dominator
 * tree and retained sizes, the text or JSON report (by input length), the HTML page and a
 * path from a root, all written to /dev/null. The input is analysed where it lies, as the
 * tool analyses its mapping of the dump. Invariants: a refused input says why; every
 * reachable object but a class retains at least its shallow size and no more than its dominator; the
 * unreachable retain nothing; a path from a root starts at a root and ends at the object.
 * Deep chains of objects or superclasses come from tests/fuzz/gen_hostile.c. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>

#include "analyze.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    struct an_file f = {data, size, -1};
    struct an_heap h;
    char err[512] = "";
    int rc = an_heap_load(&h, &f, 1u << 30, size % 3 == 0 ? 2 : 1, false, err, sizeof err);
    if (rc) {
        if (!err[0]) broken("a refused dump without a reason");
        an_heap_free(&h);
        return 0;
    }
    struct an_dom d;
    if (an_dominators(&h, &d)) {
        an_heap_free(&h);
        return 0;
    }
    for (uint32_t i = 0; i < d.nreach; i++) {
        uint32_t o = d.order[i];
        if (AN_KIND(&h, o) != AN_CLASSOBJ && d.retained[o] < an_shallow(&h, o))
            broken("an object retains less than itself");
        if (d.idom[o] != AN_NONE && AN_KIND(&h, o) != AN_CLASSOBJ && d.retained[d.idom[o]] < d.retained[o])
            broken("an object retains more than its dominator");
    }
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        struct an_opts o = {.top = 5, .json = size % 2, .suspect_share = 0.1, .path_of = size % 5 ? NULL : "0x1"};
        an_report(&h, &d, &o, null);
        an_html(&h, &d, &o, null);
        fclose(null);
    }
    if (d.nreach) {
        uint32_t *path = NULL, t = d.order[d.nreach - 1];
        uint32_t n = an_root_path(&h, t, &path);
        if (n && path[n - 1] != t) broken("a path that does not end at its object");
        free(path);
    }
    an_dom_free(&d);
    an_heap_free(&h);
    return 0;
}
