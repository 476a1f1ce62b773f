/*
 * hprof start|dump|stop|set|profile: requests to the hprof agent in a running JVM
 * (agent_load.h). Each takes `-t <seconds>` first to bound the wait for the JVM.
 *
 *   start <pid> [OPTIONS]       load the agent with the agent's options (as after
 *                               -agentpath:libhprof.so=); again after a stop: go on
 *   dump <pid> [FILE]           write the profile so far (FILE: a copy of it)
 *   stop <pid>                  stop gathering, write the profile
 *   set <pid> interval=N,depth=N
 *   profile <pid> -d 30s [-o FILE] [OPTIONS]
 *                               start, wait, stop: FILE holds the profile of those
 *                               seconds; its extension picks the view (VIEWS below)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_load.h"
#include "cmd_attach.h"
#include "exits.h"
#include "hprof.h"
#include "options/options.h"
#include "target.h"
#include "util/fd_io.h"

#define DEFAULT_TIMEOUT_S 300   /* a heap dump in a big heap takes its time */

/* The files `profile -o` can write, by the extension: the agent's options for it. The
 * views (flame graph, collapsed stacks, pprof) are made here from the text profile,
 * which stays beside them as FILE without its extension, plus .txt. */
static const struct view {
    const char *ext;
    const char *options;
    bool from_text;
} VIEWS[] = {
    {".txt", "format=a", false},
    {".hprof", "format=b", false},
    {".html", "format=a", true},
    {".collapsed", "format=a", true},
    {".pb.gz", "format=a", true},
};

/* "-t N" first, then the pid: what is left starts at *next. */
static int common_args(int argc, char **argv, const char *usage, struct target *t, int *timeout_s, int *next)
{
    int i = 1;
    *timeout_s = DEFAULT_TIMEOUT_S;
    if (i + 1 < argc && strcmp(argv[i], "-t") == 0) {
        *timeout_s = atoi(argv[i + 1]);
        i += 2;
    }
    pid_t pid = i < argc ? target_parse_pid(argv[i]) : -1;
    if (pid < 0 || *timeout_s <= 0) return tool_fail(EXIT_USAGE, "usage: hprof %s", usage);
    *next = i + 1;
    int rc = target_open(pid, t);
    return rc ? rc : target_check_attachable(t);
}

/* The options words joined by commas, with a relative file= made absolute (the JVM
 * resolves it against its own working directory, not ours). Malloc'd. */
static char *join_options(int argc, char **argv, const char *extra)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    /* Each word may be a relative file= that gets the folder and a slash: a word per
     * comma, plus the last. */
    size_t n = strlen(extra) + 2;
    for (int i = 0; i < argc; i++) {
        size_t words = 1;
        for (const char *c = argv[i]; (c = strchr(c, ',')) != NULL; c++) words++;
        n += strlen(argv[i]) + 2 + words * (strlen(cwd) + 2);
    }
    char *out = calloc(1, n);
    if (!out) return NULL;
    for (int i = 0; i < argc; i++) {
        char *copy = strdup(argv[i]), *save = NULL;
        if (!copy) {
            free(out);
            return NULL;
        }
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (*out) strcat(out, ",");
            if (strncmp(w, "file=", 5) == 0 && w[5] != '/' && w[5] && cwd[0]) {
                strcat(out, "file=");
                strcat(out, cwd);
                strcat(out, "/");
                strcat(out, w + 5);
            } else {
                strcat(out, w);
            }
        }
        free(copy);
    }
    if (*extra) {
        if (*out) strcat(out, ",");
        strcat(out, extra);
    }
    return out;
}

int cmd_start(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "help") == 0) {
        fputs(options_help_text(), stdout);
        return EXIT_DONE;
    }
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, "start [-t <seconds>] <pid> [OPTIONS]", &t, &timeout, &next);
    if (rc) return rc;
    char *opts = join_options(argc - next, argv + next, "");
    rc = opts ? agent_request(&t, "start", opts, timeout, NULL, 0) : EXIT_ERROR;
    free(opts);
    return rc;
}

/* The agent's file, as this process reaches it, from its answer ("dump written to X",
 * "the profile is in X (...)"). 0, or -1 (said). */
static int agent_file(const struct target *t, const char *said, char *src, size_t len)
{
    const char *p = strstr(said, " written to "), *tail = NULL;
    if (p) p += 12;
    else if ((p = strstr(said, "the profile is in ")) != NULL) p += 18, tail = strstr(p, " (the agent");
    if (!p) return tool_fail(EXIT_ERROR, "the agent did not say where the profile is"), -1;
    size_t n = strcspn(p, "\n");
    if (tail && (size_t)(tail - p) < n) n = (size_t)(tail - p);
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%.*s", (int)n, p);
    if (name[0] != '/') return tool_fail(EXIT_ERROR, "the profile goes to %s, not a file", name), -1;
    /* In a container the file is in its filesystem, reached through its root. */
    if (t->other_root) snprintf(src, len, "/proc/%d/root%s", (int)t->pid, name);
    else snprintf(src, len, "%s", name);
    return 0;
}

/* Copies src to dest: a new file, or (replace) one written over. */
static int copy_file(const char *src, const char *dest, bool replace)
{
    int in = open(src, O_RDONLY | O_CLOEXEC),
        out = open(dest, O_WRONLY | O_CREAT | O_NOFOLLOW | (replace ? O_TRUNC : O_EXCL), 0644);
    int rc = in < 0 || out < 0 ? -1 : fd_copy(in, out);
    int err = errno;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    if (rc != 0)
        return tool_fail(EXIT_ERROR, "cannot copy %s to %s: %s", src, dest, strerror(err));
    printf("hprof: copied to %s\n", dest);
    return EXIT_DONE;
}

/* Copies what the agent wrote (in the JVM's filesystem) to dest, a new file. */
static int copy_profile(const struct target *t, const char *said, const char *dest)
{
    char src[PATH_MAX + 64];
    return agent_file(t, said, src, sizeof src) != 0 ? EXIT_ERROR : copy_file(src, dest, false);
}

int cmd_dump(int argc, char **argv)
{
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, "dump [-t <seconds>] <pid> [FILE]", &t, &timeout, &next);
    if (rc) return rc;
    if (argc - next > 1) return tool_fail(EXIT_USAGE, "usage: hprof dump [-t <seconds>] <pid> [FILE]");
    if (next == argc) return agent_request(&t, "dump", "", timeout, NULL, 0);
    if (access(argv[next], F_OK) == 0) return tool_fail(EXIT_USAGE, "%s exists; not overwriting it", argv[next]);
    /* The answer names the profile's file. */
    char said[8192] = "";
    rc = agent_request(&t, "dump", "", timeout, said, sizeof said);
    return rc ? rc : copy_profile(&t, said, argv[next]);
}

int cmd_stop(int argc, char **argv)
{
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, "stop [-t <seconds>] <pid>", &t, &timeout, &next);
    if (rc) return rc;
    if (next != argc) return tool_fail(EXIT_USAGE, "usage: hprof stop [-t <seconds>] <pid>");
    return agent_request(&t, "stop", "", timeout, NULL, 0);
}

int cmd_set(int argc, char **argv)
{
    struct target t;
    int timeout, next;
    const char *usage = "set [-t <seconds>] <pid> interval=<ms>,depth=<frames>";
    int rc = common_args(argc, argv, usage, &t, &timeout, &next);
    if (rc) return rc;
    if (next == argc) return tool_fail(EXIT_USAGE, "usage: hprof %s", usage);
    char *opts = join_options(argc - next, argv + next, "");
    rc = opts ? agent_request(&t, "set", opts, timeout, NULL, 0) : EXIT_ERROR;
    free(opts);
    return rc;
}

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) { interrupted = 1; }   /* async-signal-safe: a flag only */

/* Waits ms, or until Ctrl-C (then the profile is written all the same). */
static void wait_for(long ms)
{
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (!interrupted && nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static const struct view *view_of(const char *file)
{
    size_t n = strlen(file);
    for (size_t i = 0; i < sizeof VIEWS / sizeof VIEWS[0]; i++) {
        size_t e = strlen(VIEWS[i].ext);
        if (n > e && strcmp(file + n - e, VIEWS[i].ext) == 0) return &VIEWS[i];
    }
    return NULL;
}

/* `hprof view --last TEXT -o FILE`, in this process: the dump at the stop alone, as a
 * loaded agent keeps writing to the same file. */
static int make_view(const char *text, const char *file)
{
    char *args[] = {"view", "--last", (char *)text, "-o", (char *)file, NULL};
    return cmd_view(5, args) == 0 ? EXIT_DONE : EXIT_ERROR;
}

int cmd_profile(int argc, char **argv)
{
    const char *usage = "profile [-t <seconds>] <pid> -d <duration> [-o FILE] [OPTIONS]";
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, usage, &t, &timeout, &next);
    if (rc) return rc;
    long ms = -1;
    char def[64], *file = NULL, **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    for (int i = next; i < argc; i++) {
        if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) ms = parse_duration_ms(argv[++i]);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) file = argv[++i];
        else rest[nrest++] = argv[i];
    }
    snprintf(def, sizeof def, "hprof-%d.txt", (int)t.pid);
    if (!file) file = def;
    const struct view *v = view_of(file);
    if (ms <= 0 || !v) {
        free(rest);
        return tool_fail(EXIT_USAGE, "usage: hprof %s (FILE ends in .txt, .hprof, .html, .collapsed or .pb.gz)",
                         usage);
    }
    if (nrest == 0) rest[nrest++] = "cpu=samples";
    char extra[3 * PATH_MAX], cwd[PATH_MAX], text[PATH_MAX];
    bool relative = file[0] != '/' && getcwd(cwd, sizeof cwd);
    if (v->from_text)
        snprintf(text, sizeof text, "%.*s.txt", (int)(strlen(file) - strlen(v->ext)) & 0x7fff, file);
    const char *written = v->from_text ? text : file;
    snprintf(extra, sizeof extra, "%s,file=%s%s%.*s", v->options, relative ? cwd : "", relative ? "/" : "",
             PATH_MAX, written);
    char *opts = join_options(nrest, rest, extra), said[8192] = "";
    rc = opts ? agent_request_quiet(&t, "start", opts, timeout, said, sizeof said) : EXIT_ERROR;
    free(opts);
    /* A view, from an agent loaded before with other options or another file: it keeps
     * them (it cannot be unloaded), so it is started again as it was, and the view made
     * from its own file. A .txt or .hprof asked for stays refused: its options count. */
    bool theirs = false;
    if (rc == EXIT_REFUSED && v->from_text && strstr(said, " differs)")) {
        rc = agent_request_quiet(&t, "start", "", timeout, said, sizeof said);
        theirs = rc == EXIT_DONE;
        if (theirs) printf("hprof: the agent loaded in this JVM keeps its options and file; the view is made from it\n");
    }
    free(rest);
    fputs(said, rc ? stderr : stdout);
    if (rc) return rc;
    wait_for(ms);
    rc = agent_request(&t, "stop", "", timeout, said, sizeof said);
    if (rc || !theirs) return rc || !v->from_text ? rc : make_view(text, file);
    char src[PATH_MAX + 64];
    if (agent_file(&t, said, src, sizeof src) != 0) return EXIT_ERROR;
    return v->from_text ? make_view(src, file) : copy_file(src, file, true);
}
