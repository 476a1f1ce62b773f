/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process this tool may talk to: what /proc says of it (its user, its pid inside its
 * own pid namespace, the signals it catches, its root). Every failure is said once, with
 * its exit code (exits.h). Whether it is a HotSpot JVM, and its jvmstat file: target_jvm.h.
 */
#ifndef HPROF_TOOL_TARGET_H
#define HPROF_TOOL_TARGET_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct target {
    pid_t pid;           /* as this tool sees it */
    pid_t nspid;         /* as the JVM sees itself (innermost pid namespace) */
    int pidfd;           /* the process, whatever takes its pid later (-1: no pidfds) */
    int root_fd, cwd_fd; /* its root and working directory (target_read; else -1),
                                 * still there once it has exited */
    uid_t uid;           /* effective */
    gid_t gid;
    gid_t groups[64]; /* supplementary (the first 64) */
    int ngroups;
    char name[64]; /* /proc/<pid>/comm */
    uint64_t sig_caught, sig_ignored;
    bool other_root; /* in another mount namespace (a container) */
    int protocol;    /* attach protocol the JVM speaks (0: not asked yet) */
    /* Non-zero once a signal (Ctrl-C, `timeout`'s SIGTERM) asks to give up: waits on the
     * JVM end early, so the request can clean up after itself (NULL: never). */
    const volatile sig_atomic_t *cancel;
};

static inline bool target_cancelled(const struct target *t) { return t->cancel && *t->cancel; }

/* Reads /proc/<pid>; 0, or an exit code with the message said (no such process, another
 * user's process). target_read says nothing. */
int target_open(pid_t pid, struct target *t);
int target_read(pid_t pid, struct target *t);

/* Is it still the process first read (not gone, its pid not reused)? */
bool target_alive(const struct target *t);
/* Sends it a signal, never to another process that took its pid since. */
int target_signal(const struct target *t, int sig);
void target_close(struct target *t);

/* Text the JVM or its user chose, made safe for a terminal: control characters (its
 * escapes) become '?', but for newlines and tabs when keep_lines; the C1 ones too (CSI is
 * one), as raw bytes 0x80-0x9f outside valid UTF-8 and as UTF-8 (U+0080-U+009F, each of
 * its two bytes a '?'). Other valid UTF-8 stays; the length never changes. */
void target_printable(char *s, bool keep_lines);

/* A pid argument, or -1. */
pid_t target_parse_pid(const char *s);

#endif
