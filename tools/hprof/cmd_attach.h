/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subcommands that look at or attach to a running JVM, each `int cmd_x(int argc,
 * char **argv)` with argv[0] the subcommand's name, returning an exit code (exits.h).
 */
#ifndef HPROF_TOOL_CMD_ATTACH_H
#define HPROF_TOOL_CMD_ATTACH_H

int cmd_list(int argc, char **argv);  /* cmd_list.c */
int cmd_stat(int argc, char **argv);  /* cmd_stat.c */
int cmd_start(int argc, char **argv); /* cmd_control.c */
int cmd_dump(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_heap(int argc, char **argv); /* cmd_heap.c */

/* "30s", "2m", "500ms", "1h", or a bare number of seconds: milliseconds, or -1. */
long parse_duration_ms(const char *s);

#endif
