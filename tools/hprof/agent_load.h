/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Requests to the hprof agent in a running JVM: the attach protocol's `load` of
 * libhprof.so with "cmd=<verb>,reply=<file>,<options>" (the agent's side:
 * src/agent/attach.c). The first load starts the agent; later ones reach the agent
 * that is there. The agent's messages come back in the reply file, a new file in a
 * directory of our own (mode 0700) in the JVM's /tmp, removed once read.
 */
#ifndef HPROF_TOOL_AGENT_LOAD_H
#define HPROF_TOOL_AGENT_LOAD_H

#include "target.h"

/* Sends the request; prints the agent's answer (stdout when it took it, stderr when it
 * refused), and copies it into answer when that is not NULL. Returns an exit code. */
int agent_request(struct target *t, const char *verb, const char *options, int timeout_s, char *answer,
                  size_t answer_len);
/* The same, printing nothing of the answer (the caller decides). */
int agent_request_quiet(struct target *t, const char *verb, const char *options, int timeout_s, char *answer,
                        size_t answer_len);

#endif
