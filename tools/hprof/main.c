/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof: the project's command-line tool. Each subcommand is a file of its own (view.c,
 * cmd_*.c); this one finds it in one table: name, function, what it does, and its own
 * usage text where it has one. Those of a running JVM are declared in cmd_attach.h.
 */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cmd_attach.h"
#include "exits.h"
#include "hprof.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f); /* NULL: the line below says it all */
    const char *says;
} COMMANDS[] = {
    {"view", cmd_view, usage_view, "a flame graph (.html), collapsed stacks or pprof (.pb.gz) of a profile"},
    {"list", cmd_list, NULL, "the JVMs you may attach to (pid, main class, JDK, uptime)"},
    {"stat", cmd_stat, NULL, "PID [INTERVAL [COUNT]]: heap, GC and class counters, without attaching"},
    {"start", cmd_start, NULL,
     "PID [OPTIONS]: load the agent into a running JVM, OPTIONS as for\n"
     "          -agentpath:libhprof.so=... (hprof start PID help lists them); with\n"
     "          no OPTIONS on a stopped agent, a session like the last one"},
    {"dump", cmd_dump, NULL, "PID [FILE]: write the profile so far (FILE: a copy of it)"},
    {"stop", cmd_stop, NULL, "PID: stop profiling and write the profile (stopped already: says so, exit 0)"},
    {"set", cmd_set, NULL, "PID interval=MS,depth=N: change the sampling interval or stack depth"},
    {"status", cmd_status, NULL, "PID: what the agent does now (session, mode, file, since when)"},
    {"profile", cmd_profile, NULL,
     "PID -d 30s [-o FILE] [OPTIONS]: start, wait, stop; FILE holds the\n"
     "          profile (.txt, .hprof) or a view of it (.html, .collapsed, .pb.gz)\n"
     "          PID [-d TOTAL] --every SECONDS [--keep N] -o PATTERN [OPTIONS]: a file\n"
     "          per window, %t in PATTERN its start (20261127T101500Z); until stopped\n"
     "          cpu=samples unless OPTIONS name cpu=, heap= or monitor=y (labels\n"
     "          and depth= alone never change it); a view gets depth=64 unless given"},
    {"heap", cmd_heap, NULL, "PID FILE [--all]: a heap dump now, written by the JVM (binary HPROF)"},
    {"analyze", cmd_analyze, usage_analyze,
     "DUMP [top=N] [--json] [-o FILE.html]: what holds the memory in a heap dump"},
};
#define NCOMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: hprof COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-7s %s\n", COMMANDS[i].name, COMMANDS[i].says);
    fprintf(f, "  %-7s this text, or a command's (hprof help view)\n", "help");
    fprintf(f,
            "\nA running JVM: the agent is loaded into it through HotSpot's dynamic attach (as jcmd\n"
            "does; JDK 21 and later print a warning about it). start, dump, stop, set and profile\n"
            "take -t SECONDS before the pid: how long to wait for the JVM (default 300).\n"
            "Attached late, the agent says what it cannot know: exact heap=sites counts only the\n"
            "objects allocated since the attach; cpu=times retransforms the classes already loaded.\n"
            "The agent cannot be unloaded: stop leaves it idle; each start (or profile) is a new\n"
            "session with its own options, file and counts (what JVMTI cannot switch is refused).\n\n"
            "Exit codes of these: 0 done, 1 error, 2 usage, 3 no such process, 4 not a HotSpot JVM,\n"
            "5 another user's JVM, 6 attach disabled (-XX:+DisableAttachMechanism),\n"
            "7 no jvmstat counters (-XX:-UsePerfData), 8 the JVM did not answer in time,\n"
            "9 the agent refused the request, 10 the agent cannot switch to that profile.\n");
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, COMMANDS[i].name) == 0) return &COMMANDS[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const struct command *c = argc > 2 ? find(argv[2]) : NULL;
        if (c && c->usage)
            c->usage(stdout);
        else if (c)
            printf("usage: hprof %s %s\n", c->name, c->says);
        else
            usage(stdout);
        return argc > 2 && !c ? EXIT_USAGE : EXIT_DONE;
    }
    const struct command *c = find(name);
    if (!c) {
        fprintf(stderr, "hprof: unknown command '%s'\n", name);
        usage(stderr);
        return EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
