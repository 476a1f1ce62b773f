/* SPDX-License-Identifier: Apache-2.0 */
/* Turning JVM type signatures into the names Java programmers read. Pure C. */
#ifndef HPROF_NAMES_H
#define HPROF_NAMES_H

#include <stddef.h>

/*
 * "Ljava/lang/String;" -> "java.lang.String", "[[I" -> "int[][]", "I" -> "int".
 * Writes at most outlen bytes (always NUL-terminated) and returns out.
 */
char *names_from_signature(const char *sig, char *out, size_t outlen);

#endif
