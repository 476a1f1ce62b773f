/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for src/classfile: parse (deep), round trip, instrument, re-parse; the
 * invariants are in fuzz_one.h. ASan/UBSan catch the rest. Build and run with `make fuzz`
 * (tests/fuzz/fuzz.mk); inputs it once broke live in tests/fuzz/regressions/classfile and are
 * replayed by tests/unit/test_classfile.c. */
#include "fuzz_target.h"
#include <stdio.h>

#include "fuzz_one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *broken = cf_fuzz_one(data, size);
    if (broken) {
        fprintf(stderr, "invariant broken: %s\n", broken);
        abort();
    }
    return 0;
}
