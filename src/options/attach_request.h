/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a dynamic attach asks of the agent (`hprof start|dump|stop|set <pid>`, or
 * `jcmd <pid> JVMTI.agent_load libhprof.so OPTIONS`): the options string of the JVM's
 * `load` command, read before the agent's own options. Pure C, unit-tested.
 *
 *   [cmd=start|dump|stop|set|status,][reply=<path>,]<rest>
 *
 * cmd defaults to start, whose rest is the agent's options (options.h). dump, stop
 * and status take no rest; set takes interval= and depth= (the settings a running profile may
 * change). reply names a file the agent creates for its answer (the tool
 * that attached reads it: the JVM's `load` reply carries only a return code).
 */
#ifndef HPROF_ATTACH_REQUEST_H
#define HPROF_ATTACH_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

enum attach_verb { ATTACH_START, ATTACH_DUMP, ATTACH_STOP, ATTACH_SET, ATTACH_STATUS };

struct attach_request {
    enum attach_verb verb;
    char reply[4096]; /* "" when none */
    const char *rest; /* points into the text given */
    /* ATTACH_SET: what was given (-1 when not) */
    int interval_ms;
    int depth;
};

/* 0, or -1 with one sentence in err. */
int attach_request_parse(const char *text, struct attach_request *r, char *err, size_t errlen);

const char *attach_verb_name(enum attach_verb v);

#endif
