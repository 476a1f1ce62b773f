/*
 * hprof: the command-line tool. Subcommands come from one table: name, function, a
 * line of help. Those of a running JVM are in cmd_attach.h.
 */
#include <stdio.h>
#include <string.h>

#include "cmd_attach.h"
#include "exits.h"

static int cmd_help(int argc, char **argv);

static const struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} SUBCOMMANDS[] = {
    {"list", cmd_list, "list                                the JVMs you may attach to (pid, main class, JDK, uptime)"},
    {"stat", cmd_stat, "stat <pid> [interval [count]]       heap, GC and class counters, without attaching"},
    {"start", cmd_start, "start <pid> [OPTIONS]               load the agent into the running JVM (OPTIONS as for "
                         "-agentpath:libhprof.so=...; `start <pid> help` lists them)"},
    {"dump", cmd_dump, "dump <pid> [FILE]                   write the profile so far (FILE: a copy of it)"},
    {"stop", cmd_stop, "stop <pid>                          stop profiling and write the profile"},
    {"set", cmd_set, "set <pid> interval=<ms>,depth=<n>   change the sampling interval or stack depth"},
    {"profile", cmd_profile, "profile <pid> -d 30s [-o FILE] [OPTIONS]\n"
                             "                                      start, wait, stop: FILE (.txt or .hprof) "
                             "holds the profile"},
    {"heap", cmd_heap, "heap <pid> FILE [--all]             a heap dump now, written by the JVM (binary HPROF)"},
    {"help", cmd_help, "help                                this text"},
};
#define NSUB (sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0])

static int cmd_help(int argc, char **argv)
{
    printf("usage: hprof <command> [arguments]\n\nProfile a JVM that is already running: the agent is loaded into "
           "it through HotSpot's\ndynamic attach (as jcmd does; JDK 21 and later print a warning about it).\n\n");
    for (size_t i = 0; i < NSUB; i++) printf("  %s\n", SUBCOMMANDS[i].usage);
    printf("\nstart, dump, stop, set and profile take -t <seconds> before the pid: how long to wait for\n"
           "the JVM (default 300).\n\n"
           "Attached late, the agent says what it cannot know: exact heap=sites counts only the\n"
           "objects allocated since the attach; cpu=times retransforms the classes already loaded.\n"
           "The agent cannot be unloaded: stop leaves it idle, start goes on with the same options.\n\n"
           "Exit codes: 0 done, 1 error, 2 usage, 3 no such process, 4 not a HotSpot JVM,\n"
           "5 another user's JVM, 6 attach disabled (-XX:+DisableAttachMechanism),\n"
           "7 no jvmstat counters (-XX:-UsePerfData), 8 the JVM did not answer in time,\n"
           "9 the agent refused the request.\n");
    return EXIT_DONE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cmd_help(argc, argv);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < NSUB; i++)
        if (strcmp(argv[1], SUBCOMMANDS[i].name) == 0) return SUBCOMMANDS[i].run(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) return cmd_help(argc, argv);
    fprintf(stderr, "hprof: unknown command '%s' (hprof help lists them)\n", argv[1]);
    return EXIT_USAGE;
}
