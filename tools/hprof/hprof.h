/* SPDX-License-Identifier: Apache-2.0 */
/* hprof: the project's command-line tool, one subcommand per file (main.c dispatches). */
#ifndef HPROF_TOOL_H
#define HPROF_TOOL_H

#include <stdio.h>

/* `hprof view`: a flame graph, collapsed stacks or pprof of any HPROF profile file. */
int cmd_view(int argc, char **argv);
void usage_view(FILE *f);

#endif
