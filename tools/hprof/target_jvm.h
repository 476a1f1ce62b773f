/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Is the process a HotSpot JVM that takes attach requests, and its jvmstat file: what
 * /proc says (its maps, command line and environment) and what the JVM's user may read
 * (target_fs.h).
 */
#ifndef HPROF_TOOL_TARGET_JVM_H
#define HPROF_TOOL_TARGET_JVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target.h"

/* The JVM's jvmstat file, read whole (at most 64 MiB) into a malloc'd *data; 0, -1 when
 * there is none. Reached as the JVM's other files are (target_fs.h): as its user, inside
 * its root, no link followed (a container whose /tmp is a link has none to read). */
int target_perfdata(const struct target *t, uint8_t **data, size_t *len);

/* Does the process map libjvm.so (a HotSpot JVM, jvmstat on or off)? */
bool target_maps_libjvm(const struct target *t);

/* Checks that the process is a JVM that takes attach requests: 0, or an exit code with
 * the message said (not a JVM, attach disabled). */
int target_check_attachable(const struct target *t);

#endif
