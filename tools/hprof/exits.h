/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exit codes of the attach commands (list, stat, start, dump, stop, set, status,
 * profile, heap): one for each way they fail, so scripts can tell them apart. `hprof help`
 * lists them.
 */
#ifndef HPROF_TOOL_EXITS_H
#define HPROF_TOOL_EXITS_H

enum {
    EXIT_DONE = 0,
    EXIT_ERROR = 1, /* anything else (I/O, the JVM's own error text) */
    EXIT_USAGE = 2,
    EXIT_NO_PROCESS = 3,
    EXIT_NOT_JVM = 4,     /* not a HotSpot JVM, or one that cannot answer (-Xrs) */
    EXIT_PERMISSION = 5,  /* another user's JVM */
    EXIT_ATTACH_OFF = 6,  /* -XX:+DisableAttachMechanism */
    EXIT_NO_PERFDATA = 7, /* -XX:-UsePerfData: no jvmstat counters */
    EXIT_TIMEOUT = 8,     /* the JVM did not answer in time */
    EXIT_REFUSED = 9,     /* the agent refused the request (its HPROF ERROR said) */
    EXIT_NO_SWITCH = 10,  /* the agent cannot switch to that profile in a running JVM (said why) */
};

/* "hprof: <message>" on stderr; returns code. */
int tool_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
