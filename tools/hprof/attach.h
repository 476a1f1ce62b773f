/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HotSpot's attach protocol, client side (see ../shared/spec/hotspot-serviceability.txt):
 *
 *   1. If the JVM's socket /tmp/.java_pid<nspid> is not there, create .attach_pid<nspid>
 *      in its working directory (or its /tmp), send SIGQUIT (only if it catches it: a
 *      process that does not would die of it), and wait for the socket; the file is
 *      removed again.
 *   2. Connect (a UNIX socket: no port is ever opened) and send the request:
 *        protocol 1: "1\0<cmd>\0<arg>\0<arg>\0<arg>\0", three arguments of at most 1024
 *                    bytes each;
 *        protocol 2: "2\0<size>\0<cmd>\0<arg>\0..." with size the bytes after it,
 *                    any number of arguments, when `getversion` says the JVM takes it
 *                    (JDK 24 and later).
 *   3. The reply: "<code>\n" then the command's output, until the JVM closes.
 *
 * The JVM checks that the peer is its own effective user or root.
 */
#ifndef HPROF_TOOL_ATTACH_H
#define HPROF_TOOL_ATTACH_H

#include <stddef.h>

#include "target.h"

struct attach_reply {
    int code;   /* the JVM's: 0 when the command ran */
    char *text; /* its output, NUL-terminated (malloc'd) */
    size_t len;
};

/* Runs one command with up to 3 arguments. 0, or an exit code with the message said.
 * timeout_s bounds the wait for the JVM to start listening and for the reply. */
int attach_command(struct target *t, const char *cmd, const char *const args[3], int timeout_s, struct attach_reply *r);

void attach_reply_free(struct attach_reply *r);

#endif
