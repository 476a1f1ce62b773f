/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sessions: what the agent gathers now and where it writes it. A JVMTI agent cannot be
 * unloaded, but nothing ties it to its first options: each `hprof start` on a JVM that
 * has the agent (a later Agent_OnAttach) begins a new session, with its own options,
 * its own file and its own window (the counts start from zero: report_reset_window),
 * and `hprof stop` ends it, leaving the agent idle (events off, timers disarmed, the
 * file closed). The first session is the load's.
 *
 * A session may switch to what JVMTI allows in the live phase: cpu=samples, heap=sites
 * with alloc_sample=, monitor=y, heap=dump are set up when first asked for; exact
 * heap=sites and cpu=times|old only where the first load set up their instrumentation;
 * net=, timeline=, thread=, clock= and sampler= stay as at the first load (the rules:
 * agent/switch_rules.h). A refused switch says why and Agent_OnAttach returns
 * SESSION_CANNOT_SWITCH. A start and a stop turn the sources the session's options want
 * on and off through their enable hooks (lifecycle_enable).
 *
 * Rolling (rotate=<seconds>): the agent's own thread ends the window every <seconds>,
 * writes it to its file (file= with %t, the window's start) and opens the next; keep=<n>
 * deletes all but the last n files it wrote (agent/session_files.h). The program's threads never wait on that
 * disk: they only ever take the output's lock for a record, never for a window's write
 * (the rotation holds the dump lock, as any dump does).
 */
#ifndef HPROF_SESSION_H
#define HPROF_SESSION_H

#include <jni.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/session_files.h"

struct host;
struct lifecycle;
struct options;
struct report;

/* Agent_OnAttach's return code for a switch JVMTI cannot make (the tool's exit 10). */
#define SESSION_CANNOT_SWITCH 10

struct session {
    struct host *h;            /* the sources' settings and services */
    struct report *r;          /* where its profile is written */
    struct lifecycle *sources; /* the sources a switch sets up */
    pthread_mutex_t lock;      /* one start, stop, dump, status or window's end at a time */
    pthread_cond_t wake;       /* the rotation thread waits on it: a start, a stop, VM death */
    unsigned number;           /* sessions so far: 1 is the load's */
    bool active;               /* gathering (else idle) */
    bool rotating;             /* the rotation thread runs */
    const struct options *opt; /* its options: the load's (h->opt) for the first */
    struct options *owned;     /* opt when a start made it (freed when the next replaces it) */
    char *path;                /* its file now: file= with the window's start for %t */
    int64_t start_ns;          /* the session's start, wall clock */
    int64_t window_ns;         /* the window's start (rotate=), wall clock */
    int64_t idle_ns;           /* when the last one stopped */
    unsigned windows;          /* windows written so far */
    struct kept_files kept;    /* rotate= with keep=: the files written (session_files.h) */
};

/* At load: the first session (h->opt's), its file named (%t: now). 0, or -1 with err. */
int session_init(struct session *s, struct host *h, struct report *r, struct lifecycle *sources, char *err,
                 size_t errlen);
/* At VM init (or the first attach): the first session gathers; its rotation starts. */
void session_vm_init(struct session *s, JNIEnv *jni);

/* The requests of a later attach: a JNI return code, the answer said through log.h. */
int session_start(struct session *s, JNIEnv *jni, const char *given);
int session_stop(struct session *s, JNIEnv *jni);
int session_dump(struct session *s, JNIEnv *jni);
int session_status(struct session *s);
/* "cpu=samples (every 10 ms, depth 4), heap=sites": what the session gathers. */
void session_mode_text(struct session *s, char *buf, size_t len);
/* depth= as the CPU traces take it: "depth N", or, when they keep fewer frames (the
 * signal sampler's, fixed when it started; a cpu=times call stack's), "depth N cut to
 * K (why)"; true then. */
bool session_depth_text(struct session *s, char *buf, size_t len);

/* "HPROF: <how>: <mode>; the profile goes to <file>" (and the rotation's line). */
void session_say_started(struct session *s, const char *how);

/* VM death: true when a session was gathering (its last dump is due); the rotation
 * stops. Then, when it was, session_exit_end once that dump is written (keep= applies
 * to it). */
bool session_exit_begin(struct session *s);
void session_exit_end(struct session *s);

#endif
