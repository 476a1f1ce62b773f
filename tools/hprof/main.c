/*
 * hprof: the project's command-line tool.
 *
 *   hprof view [--diff] [--section S] [--type T] IN [IN2] -o OUT
 *   hprof help [COMMAND]
 *
 * Each subcommand is a file of its own (view.c); this one finds it.
 */
#include <stdio.h>
#include <string.h>

#include "hprof.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
    const char *says;
} COMMANDS[] = {
    {"view", cmd_view, usage_view, "a flame graph (.html), collapsed stacks or pprof (.pb.gz) of a profile"},
};
#define NCOMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: hprof COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-6s %s\n", COMMANDS[i].name, COMMANDS[i].says);
    fprintf(f, "  %-6s this text, or a command's (hprof help view)\n", "help");
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
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const struct command *c = argc > 2 ? find(argv[2]) : NULL;
        if (c) c->usage(stdout);
        else usage(stdout);
        return argc > 2 && !c ? 2 : 0;
    }
    const struct command *c = find(name);
    if (!c) {
        fprintf(stderr, "hprof: unknown command '%s'\n", name);
        usage(stderr);
        return 2;
    }
    return c->run(argc - 1, argv + 1);
}
