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
};

void strings_init(struct string_table *t);
/*
 * The ID of s, giving it one on first sight; *is_new tells the caller it must write
 * the STRING record now. Returns 0 for NULL (the "no string" ID).
 */
uint32_t strings_id(struct string_table *t, const char *s, bool *is_new);

#endif
