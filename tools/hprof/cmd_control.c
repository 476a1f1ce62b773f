/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof start|dump|stop|set|profile: requests to the hprof agent in a running JVM
 * (agent_load.h). Each takes `-t <seconds>` first to bound the wait for the JVM.
 *
 *   start <pid> [OPTIONS]       load the agent with the agent's options (as after
 *                               -agentpath:libhprof.so=); again after a stop: go on
 *   dump <pid> [FILE]           write the profile so far (FILE: a copy of it)
 *   stop <pid>                  stop gathering, write the profile
 *   set <pid> interval=N,depth=N
 *   status <pid>                what the agent does now
 *   profile <pid> -d 30s [-o FILE] [OPTIONS]
 *                               start, wait, stop: FILE holds the profile of those
 *                               seconds; its extension picks the view (VIEWS below)
 *   profile <pid> [-d TOTAL] --every SECONDS [--keep N] -o PATTERN [OPTIONS]
 *                               a rolling session (rotate=, keep=): the agent writes a
 *                               file per window, %t in PATTERN its start
 * profile is cpu=samples unless OPTIONS name a mode (cpu=, heap=, monitor=y), whatever
 * the last session was; a view (.html, .collapsed, .pb.gz) takes 64 frames unless
 * depth= is given. stop on a stopped agent says so and succeeds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent_load.h"
#include "cmd_attach.h"
#include "exits.h"
#include "hd.h"
#include "hprof.h"
#include "options/options.h"
#include "target.h"
#include "target_jvm.h"
#include "target_fs.h"
#include "util/clock.h"

#define DEFAULT_TIMEOUT_S 300 /* a heap dump in a big heap takes its time */

/* The files `profile -o` can write, by the extension: the agent's options for it. The
 * views (flame graph, collapsed stacks, pprof) are made here from the text profile,
 * which stays beside them as FILE without its extension, plus .txt. */
static const struct view {
    const char *ext;
    const char *options;
    bool from_text;
} VIEWS[] = {
    {".txt", "format=a", false},      {".hprof", "format=b", false}, {".html", "format=a", true},
    {".collapsed", "format=a", true}, {".pb.gz", "format=a", true},
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

/* The agent's file, as the JVM names it, from its answer ("dump written to X", "the
 * profile is in X (...)", "the profile goes to X"). 0, or -1 (said). */
static int agent_file(const char *said, char *name, size_t len)
{
    static const char *const SAYS[] = {" written to ", "the profile is in ", "the profile goes to "};
    const char *p = NULL, *tail = NULL;
    for (size_t i = 0; !p && i < sizeof SAYS / sizeof SAYS[0]; i++)
        if ((p = strstr(said, SAYS[i])) != NULL) p += strlen(SAYS[i]);
    if (!p) return tool_fail(EXIT_ERROR, "the agent did not say where the profile is"), -1;
    size_t n = strcspn(p, "\n");
    if ((tail = strstr(p, " (the agent")) != NULL && (size_t)(tail - p) < n) n = (size_t)(tail - p);
    if (n >= len) return tool_fail(EXIT_ERROR, "the agent named too long a file"), -1;
    snprintf(name, len, "%.*s", (int)n, p);
    if (name[0] != '/') return tool_fail(EXIT_ERROR, "the profile goes to %s, not a file", name), -1;
    return 0;
}

/* A file whose holes say gigabytes the disk does not hold (a sparse file: a few blocks
 * that claim 20 GB) would fill this side's disk at no cost to the JVM's user; the agent
 * writes its files whole, with no hole. Holes are found with SEEK_DATA and SEEK_HOLE,
 * not by the blocks a file holds, which a compressing file system (ZFS) makes far fewer
 * than its size for a real profile. */
#define HOLES_MAX         (1 << 20) /* bytes of holes taken, for a file system's odd block */
#define HOLES_EXTENTS_MAX 100000    /* extents looked at: past that, called sparse */

/* The bytes of holes in the file's first `size` bytes; 0 where the file system does not
 * tell holes apart. The file's offset is left at its start. */
static off_t hole_bytes(int fd, off_t size)
{
    off_t holes = 0, at = 0;
    for (int n = 0; at < size; n++) {
        off_t data = lseek(fd, at, SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO) holes += size - at; /* no data after `at`: a hole to the end */
            break;
        }
        if (n == HOLES_EXTENTS_MAX) return lseek(fd, 0, SEEK_SET), size;
        holes += (data < size ? data : size) - at;
        if ((at = lseek(fd, data, SEEK_HOLE)) < 0) break;
    }
    lseek(fd, 0, SEEK_SET);
    return holes;
}

/* The JVM's file `name`, opened as the JVM's user inside its root (target_fs.h): the
 * agent's answer is the JVM's to choose, so it is never opened as this tool's user. */
static int open_agent_file(const struct target *t, const char *name, int *fd, off_t *size)
{
    if (tfs_open_read(t, name, fd, size) != 0)
        return tool_fail(EXIT_ERROR,
                         "not reading %s: %s (only a regular file of the JVM's user, reached without a "
                         "symbolic link, is taken)",
                         name, strerror(errno));
    off_t holes = hole_bytes(*fd, *size);
    if (holes <= HOLES_MAX) return 0;
    close(*fd);
    *fd = -1;
    return tool_fail(EXIT_ERROR,
                     "not copying %s: it says %lld bytes but %lld of them are holes (a sparse file, not one "
                     "the agent wrote)",
                     name, (long long)*size, (long long)holes);
}

/* Copies the JVM's file `name` to dest (0600: a profile holds the program's data), a new
 * file or (replace) one written over; no more than the file held when opened. */
static int copy_file(const struct target *t, const char *name, const char *dest, bool replace)
{
    int in, out;
    off_t size;
    if (open_agent_file(t, name, &in, &size) != 0) return EXIT_ERROR;
    out = open(dest, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL), 0600);
    int rc = out < 0 || fchmod(out, 0600) != 0 ? -1 : tfs_copy_bounded(in, out, size);
    int err = errno;
    close(in);
    if (out >= 0 && close(out) != 0 && rc == 0) rc = -1, err = errno;
    if (rc != 0) return tool_fail(EXIT_ERROR, "cannot copy %s to %s: %s", name, dest, strerror(err));
    printf("hprof: copied to %s\n", dest);
    return EXIT_DONE;
}

/* Copies what the agent wrote (in the JVM's filesystem) to dest, a new file. */
static int copy_profile(const struct target *t, const char *said, const char *dest)
{
    char name[PATH_MAX];
    return agent_file(said, name, sizeof name) != 0 ? EXIT_ERROR : copy_file(t, name, dest, false);
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

int cmd_status(int argc, char **argv)
{
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, "status [-t <seconds>] <pid>", &t, &timeout, &next);
    if (rc) return rc;
    if (next != argc) return tool_fail(EXIT_USAGE, "usage: hprof status [-t <seconds>] <pid>");
    return agent_request(&t, "status", "", timeout, NULL, 0);
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
static void on_interrupt(int sig) { interrupted = 1; } /* async-signal-safe: a flag only */

/* Waits ms, or until Ctrl-C (then the profile is written all the same) or the end of the
 * process (its pidfd turns readable): false when the process has ended. */
static bool wait_for(const struct target *t, long ms)
{
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    long end = (long)(clock_ns() / 1000000u) + ms;
    for (long left = ms; left > 0 && !interrupted; left = end - (long)(clock_ns() / 1000000u)) {
        struct pollfd p = {t->pidfd, POLLIN, 0};
        int step = left > 200 ? 200 : (int)left;
        if (t->pidfd >= 0 ? poll(&p, 1, step) > 0 : (poll(NULL, 0, step), !target_alive(t))) return false;
    }
    return target_alive(t);
}

/* Option words that name what a session profiles (format=short: heap=sites or its
 * timeline); "=" ends a prefix, a word without one is matched whole. */
static const char *const MODE_WORDS[] = {"cpu=", "heap=", "monitor=y", "format=short", NULL};
static const char *const DEPTH_WORDS[] = {"depth=", NULL};

/* Does one of the comma-separated option words in args[0..n) match one of words? */
static bool names_word(char **args, int n, const char *const *words)
{
    for (int i = 0; i < n; i++) {
        const char *w = args[i];
        while (*w) {
            size_t len = strcspn(w, ",");
            for (const char *const *k = words; *k; k++) {
                size_t kl = strlen(*k);
                bool prefix = (*k)[kl - 1] == '=';
                if ((prefix ? len >= kl : len == kl) && strncmp(w, *k, kl) == 0) return true;
            }
            w += len;
            if (*w == ',') w++;
        }
    }
    return false;
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

/* A binary profile (fd, of size bytes) is whole when hprof-dump's reader walks it from
 * its header through every record (tag u1, time u4, length u4, body), none past the
 * file's size, to the end of the last one exactly at EOF, and finds no other problem
 * on the way (said on stderr). The agent writes whole records only: a write that fails
 * cuts the file back to the last whole one (src/writers/output.c), so a file that ends inside a
 * record was cut after the agent wrote it. */
static bool whole_binary(int fd, const char *path, off_t size)
{
    hd_state st;
    hd_state_init(&st, stdout);
    st.path = path;
    st.fd = fd;
    st.fsize = (uint64_t)size;
    st.seekable = 1;
    hd_reader_init(&st.r, fd, 0, 0);
    hd_run(&st);
    bool ok = st.idsize && st.records && !st.errors && !st.io_error && st.r.off == (uint64_t)size;
    hd_state_free(&st);
    return ok;
}

/* A profile the agent wrote at the JVM's exit is whole when it ends as the agent ends
 * one: the text one with a section's END line, the binary one with a whole record. */
static bool whole(const char *path, bool binary)
{
    char buf[256] = "";
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    ssize_t n = -1;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (binary) {
            bool ok = whole_binary(fd, path, st.st_size);
            close(fd);
            return ok;
        }
        n = pread(fd, buf, sizeof buf - 1, st.st_size > (off_t)sizeof buf - 1 ? st.st_size - 255 : 0);
    }
    if (fd >= 0) close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    char *end = buf + n;
    if (end[-1] != '\n') return false;
    end[-1] = 0;
    char *last = strrchr(buf, '\n');
    last = last ? last + 1 : buf;
    return strlen(last) > 4 && strcmp(last + strlen(last) - 4, " END") == 0;
}

/* What `profile` writes: `written` (FILE, or for a view the text profile beside it) and,
 * unless the agent writes that itself (`direct`: the JVM runs as this user, in this
 * root), the agent's own file in a folder of the JVM's user in the JVM's /tmp. */
struct plan {
    const struct view *v;
    const char *file, *written;
    char text[PATH_MAX], agent[PATH_MAX + 64], folder[NAME_MAX + 8];
    bool direct;
};

static int plan_files(const struct target *t, const struct view *v, const char *file, struct plan *p)
{
    char cwd[PATH_MAX];
    p->v = v;
    p->file = file;
    p->folder[0] = 0;
    if (v->from_text)
        snprintf(p->text, sizeof p->text, "%.*s.txt", (int)(strlen(file) - strlen(v->ext)) & 0x7fff, file);
    p->written = v->from_text ? p->text : file;
    p->direct = !t->other_root && t->uid == geteuid();
    if (p->direct) {
        bool relative = p->written[0] != '/' && getcwd(cwd, sizeof cwd);
        int n = snprintf(p->agent, sizeof p->agent, "%s%s%s", relative ? cwd : "", relative ? "/" : "", p->written);
        return n < (int)sizeof p->agent ? 0 : tool_fail(EXIT_USAGE, "%s: too long a path", p->written);
    }
    char name[NAME_MAX + 1];
    if (tfs_mkdtemp(t, "/tmp", "hprof-profile-", name, sizeof name) != 0)
        return tool_fail(EXIT_ERROR, "cannot make a folder in the JVM's /tmp: %s", strerror(errno));
    snprintf(p->folder, sizeof p->folder, "/tmp/%s", name);
    snprintf(p->agent, sizeof p->agent, "%s/profile%s", p->folder, v->from_text ? ".txt" : v->ext);
    return 0;
}

/* Starts a session for the plan; the agent's answer in said. */
static int start_for(struct target *t, struct plan *p, char **rest, int nrest, int timeout, char *said, size_t len)
{
    char extra[sizeof p->agent + 64], depth[32] = "";
    /* A view made here from the text profile gets a view's depth, as view= and --every
     * do in the agent (a flame graph 4 frames tall shows nothing). */
    if (p->v->from_text && !names_word(rest, nrest, DEPTH_WORDS))
        snprintf(depth, sizeof depth, ",depth=%d", VIEW_DEPTH);
    if (snprintf(extra, sizeof extra, "%s%s,file=%s", p->v->options, depth, p->agent) >= (int)sizeof extra)
        return EXIT_USAGE;
    char *opts = join_options(nrest, rest, extra);
    int rc = opts ? agent_request_quiet(t, "start", opts, timeout, said, len) : EXIT_ERROR;
    free(opts);
    if (p->folder[0] && rc) { /* the folder made for the agent goes unused */
        tfs_remove(t, p->folder, NULL);
        p->folder[0] = 0;
    }
    fputs(said, rc ? stderr : stdout);
    fflush(stdout); /* a script waits for it while the profile runs */
    return rc;
}

/* The user's files once the agent has written (at the stop, or at the JVM's exit). */
static int finish(const struct target *t, const struct plan *p, bool ended)
{
    int rc = p->direct ? EXIT_DONE : copy_file(t, p->agent, p->written, true);
    if (rc == EXIT_DONE && ended && !whole(p->written, !p->v->from_text && strcmp(p->v->ext, ".hprof") == 0))
        rc = tool_fail(EXIT_ERROR, "the profile the agent wrote at the JVM's exit (%s) is not whole", p->written);
    if (ended && p->folder[0])
        tfs_remove(t, p->folder, strrchr(p->agent, '/') + 1);
    else if (p->folder[0])
        printf("hprof: the agent's own file stays in the JVM's %s\n", p->agent);
    return rc == EXIT_DONE && p->v->from_text ? make_view(p->text, p->file) : rc;
}

/* A rolling session (--every): the agent names and writes each window's file itself,
 * so the JVM must be able to write where PATTERN says: its user, its root. Runs for ms
 * (-1: until Ctrl-C or the JVM's end), then stops. */
static int profile_every(struct target *t, const struct view *v, const char *pattern, long every_s, long keep, long ms,
                         char **rest, int nrest, int timeout)
{
    if (!strstr(pattern, "%t")) return tool_fail(EXIT_USAGE, "--every: the -o PATTERN needs %%t (the window's start)");
    if (t->other_root || t->uid != geteuid())
        return tool_fail(EXIT_USAGE,
                         "--every: the JVM writes each window's file itself; run hprof as the JVM's "
                         "user, in its root (or give the agent rotate= and file= with hprof start)");
    char cwd[PATH_MAX], extra[PATH_MAX * 2 + 96], said[8192] = "";
    bool relative = pattern[0] != '/' && getcwd(cwd, sizeof cwd);
    int n = snprintf(extra, sizeof extra, "%s,rotate=%ld,file=%s%s%s", v->options, every_s, relative ? cwd : "",
                     relative ? "/" : "", pattern);
    if (keep > 0 && n > 0 && (size_t)n < sizeof extra) snprintf(extra + n, sizeof extra - (size_t)n, ",keep=%ld", keep);
    char *opts = join_options(nrest, rest, extra);
    int rc = opts ? agent_request(t, "start", opts, timeout, said, sizeof said) : EXIT_ERROR;
    free(opts);
    if (rc) return rc;
    fflush(stdout);
    if (!wait_for(t, ms > 0 ? ms : 0x7fffffffL)) {
        printf("hprof: process %d ended; the agent wrote its last window at exit\n", (int)t->pid);
        return EXIT_DONE;
    }
    rc = agent_request(t, "stop", "", timeout, said, sizeof said);
    return rc == EXIT_NO_PROCESS && !target_alive(t) ? EXIT_DONE : rc;
}

int cmd_profile(int argc, char **argv)
{
    const char *usage = "profile [-t <seconds>] <pid> -d <duration> [-o FILE] [OPTIONS], or\n"
                        "       hprof profile [-t <seconds>] <pid> [-d <duration>] --every <seconds> [--keep <n>] "
                        "-o PATTERN [OPTIONS]";
    struct target t;
    int timeout, next;
    int rc = common_args(argc, argv, usage, &t, &timeout, &next);
    if (rc) return rc;
    long ms = -1, every_s = 0, keep = 0;
    bool every = false;
    char def[64], *file = NULL, **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    for (int i = next; rest && i < argc; i++) {
        if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            ms = parse_duration_ms(argv[++i]) < 0 ? -2 : parse_duration_ms(argv[i]); /* -2: given, bad */
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            file = argv[++i];
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
            every = true, every_s = (parse_duration_ms(argv[++i]) + 999) / 1000;
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = atol(argv[++i]);
        else
            rest[nrest++] = argv[i];
    }
    snprintf(def, sizeof def, "hprof-%d.txt", (int)t.pid);
    if (!file) file = def;
    const struct view *v = view_of(file);
    bool bad = !v || !rest ||
        (every ? every_s <= 0 || every_s > 86400 || keep < 0 || keep > 100000 || ms == 0 || ms < -1 : ms <= 0);
    if (bad) {
        free(rest);
        return tool_fail(EXIT_USAGE, "usage: hprof %s (FILE ends in .txt, .hprof, .html, .collapsed or .pb.gz)", usage);
    }
    /* `profile` is CPU sampling unless a mode is named: a label or depth= alone never
     * makes it the agent's own default (heap=all), nor the last session's mode. */
    if (!names_word(rest, nrest, MODE_WORDS)) {
        memmove(rest + 1, rest, (size_t)nrest * sizeof *rest);
        rest[0] = "cpu=samples";
        nrest++;
    }
    if (every) {
        rc = profile_every(&t, v, file, every_s, keep, ms, rest, nrest, timeout);
        free(rest);
        return rc;
    }
    struct plan p;
    char said[8192] = "";
    rc = plan_files(&t, v, file, &p);
    if (rc == 0) rc = start_for(&t, &p, rest, nrest, timeout, said, sizeof said);
    free(rest);
    if (rc) return rc;
    bool ended = !wait_for(&t, ms);
    if (!ended) rc = agent_request(&t, "stop", "", timeout, said, sizeof said);
    /* The JVM that ends while profiled writes its profile at exit (a stop under way may
     * meet the end too). */
    if (ended || (rc == EXIT_NO_PROCESS && !target_alive(&t))) {
        printf("hprof: process %d ended during the profile; the agent wrote its profile at exit to %s\n", (int)t.pid,
               p.agent);
        ended = true;
        rc = EXIT_DONE;
    }
    return rc ? rc : finish(&t, &p, ended);
}
