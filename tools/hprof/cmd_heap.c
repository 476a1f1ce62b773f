/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof heap <pid> FILE [--all]: a heap dump now, written by the JVM itself (the attach
 * protocol's `dumpheap`, as jmap -dump and jcmd GC.heap_dump): a standard binary HPROF
 * file, with no agent loaded. Live objects only (after a full GC) unless --all.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cmd_attach.h"
#include "exits.h"
#include "target.h"
#include "target_jvm.h"

int cmd_heap(int argc, char **argv)
{
    const char *usage = "usage: hprof heap <pid> FILE [--all]";
    bool all = argc == 4 && strcmp(argv[3], "--all") == 0;
    if (argc != 3 && !all) return tool_fail(EXIT_USAGE, "%s", usage);
    pid_t pid = target_parse_pid(argv[1]);
    if (pid < 0) return tool_fail(EXIT_USAGE, "%s", usage);
    struct target t;
    int rc = target_open(pid, &t);
    if (!rc) rc = target_check_attachable(&t);
    if (rc) return rc;
    char path[PATH_MAX * 2], cwd[PATH_MAX];
    if (argv[2][0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(path, sizeof path, "%s", argv[2]);
    else
        snprintf(path, sizeof path, "%s/%s", cwd, argv[2]);
    if (!t.other_root && access(path, F_OK) == 0) return tool_fail(EXIT_USAGE, "%s exists; not overwriting it", path);
    const char *args[3] = {path, all ? "-all" : "-live", ""};
    struct attach_reply r;
    rc = attach_command(&t, "dumpheap", args, 3600, &r);
    if (rc) return rc;
    bool done = r.code == 0 && strstr(r.text, "Heap dump file created");
    if (!done)
        rc = tool_fail(EXIT_ERROR, "the JVM did not write the heap dump: %s", r.text);
    else
        printf("hprof: heap dump of process %d written to %s%s\n", (int)pid, path,
               t.other_root ? " (in the JVM's container)" : "");
    attach_reply_free(&r);
    return rc;
}
