/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A whole text file of the kernel's (/proc/self/maps, /proc/kallsyms) read into memory:
 * such files have no size to ask for beforehand (stat says 0), so they are read until
 * the end, the buffer doubled as it fills, up to a bound. On the agent's threads only.
 */
#ifndef HPROF_NATIVE_TEXT_H
#define HPROF_NATIVE_TEXT_H

#include <stddef.h>

/* The file's bytes (malloc'd, the caller frees them) and *len, or NULL when it cannot be
 * opened or read, memory runs out, or it is longer than max bytes. */
char *ntx_read(const char *path, size_t max, size_t *len);

#endif
