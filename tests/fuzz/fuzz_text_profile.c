/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the text profile parser of hprof view (tools/common/text_profile.c):
 * any input is refused with a reason or read into a stack profile whose three views are
 * written, the collapsed stacks adding up to the profile's total. ASan/UBSan catch the
 * rest. `make fuzz FUZZ_TARGETS=text_profile` (tests/fuzz/fuzz.mk). */
#include "fuzz_target.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile_read.h"
#include "writers/views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct stack_profile p;
    char err[512] = "";
    sp_init(&p);
    /* the input's first byte picks the section asked for, so each gets its turn */
    enum pr_section want = size ? (enum pr_section)(data[0] % PR_N) : PR_ANY;
    if (pr_read_text((const char *)data, size, want, &p, err, sizeof err) != 0) {
        if (!err[0]) abort(); /* a refusal always says why */
    } else {
        struct buf b;
        buf_init(&b);
        if (view_collapsed(&p, p.main_type, &b) != 0) abort();
        int64_t sum = 0;
        for (size_t i = 0; i < b.len;) { /* each line ends in " <value>\n" */
            const uint8_t *nl = memchr(b.data + i, '\n', b.len - i);
            if (!nl) abort();
            const uint8_t *sp = nl;
            while (sp > b.data + i && sp[-1] != ' ') sp--;
            sum += strtoll((const char *)sp, NULL, 10);
            i = (size_t)(nl - b.data) + 1;
        }
        int64_t want_sum = 0;
        for (size_t i = 0; i < p.nstacks; i++) want_sum += p.stacks[i].v[p.main_type];
        if (sum != want_sum) abort();
        buf_reset(&b);
        if (view_pprof(&p, &b) != 0 || view_flamegraph(&p, NULL, &b) != 0) abort();
        buf_free(&b);
    }
    sp_free(&p);
    return 0;
}
