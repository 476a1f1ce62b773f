/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A zip archive of one stored (uncompressed) entry, built in memory. The Tracker class
 * reaches the boot class path through it when the agent is attached to a running JVM:
 * JVMTI then takes only a JAR file there, not a directory.
 */
#ifndef HPROF_ZIP_H
#define HPROF_ZIP_H

#include <stddef.h>
#include <stdint.h>

/* The archive with `name` holding data[0..len): a malloc'd buffer in *out, its size in
 * *outlen; -1 when out of memory or a size does not fit the format. */
int zip_stored(const char *name, const uint8_t *data, size_t len, uint8_t **out, size_t *outlen);

#endif
