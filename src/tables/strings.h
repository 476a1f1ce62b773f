/* SPDX-License-Identifier: Apache-2.0 */
/* UTF8 strings named by ID in binary output (class, method, thread names ...). */
#ifndef HPROF_STRINGS_H
#define HPROF_STRINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct string_table {
    struct cmap map;
    struct registry all;
    uint32_t output; /* the output file the writers write now (output lock held) */
};

void strings_init(struct string_table *t);
/*
 * The ID of s, giving it one on first sight; *is_new tells the caller it must write
 * the STRING record now: on first sight, or first in this output file (output lock held). Returns 0 for NULL (the "no string" ID).
 */
uint32_t strings_id(struct string_table *t, const char *s, bool *is_new);
/* A new output file: each string is new to it (output lock held). */
void strings_new_output(struct string_table *t);

#endif
