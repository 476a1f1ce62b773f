/* SPDX-License-Identifier: Apache-2.0 */
/* What every fuzz target defines: libFuzzer calls it with each input, and so does
 * replay.c over the committed corpora and regressions. */
#ifndef HPROF_FUZZ_TARGET_H
#define HPROF_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
