/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent: the one owned piece of mutable state. It parses the options, runs the
 * sources through their life cycle (sources/source.h), gives them the services of
 * struct host, and has the report layer write what they gathered.
 */
#ifndef HPROF_AGENT_H
#define HPROF_AGENT_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>

#include "agent/lifecycle.h"
#include "agent/session.h"
#include "options/options.h"
#include "report/report.h"
#include "sources/host.h"

#define AGENT_MAX_THREADS 6

struct agent {
    struct host host; /* what the sources see (first: a host is an agent) */
    struct options opt;
    struct report report;
    /* Our own Java threads, kept out of the profile. A slot is filled before the count
     * that publishes it grows (release/acquire), so readers never see an empty one. */
    jobject own_threads[AGENT_MAX_THREADS];
    pthread_mutex_t own_lock; /* one starter at a time takes a slot (readers need none) */
    _Atomic int nown_threads;
    _Atomic bool said_missing;        /* "the net= command ... needs heap=sites", once */
    _Atomic bool said_missing_allocs; /* "ALLOCS needs heap=sites and timeline=", once */
    _Atomic bool said_depth_cut;      /* "CONTROL depth=N: ... cut to K", once */
    struct lifecycle sources;         /* which sources run, the callbacks they set (lifecycle.h) */
    struct session session;           /* what it gathers now, where to (agent/session.h) */
    bool exit_on_oom;                 /* -XX:+ExitOnOutOfMemoryError taken over (agent.c) */
    _Atomic bool oom_exiting;         /* the first OutOfMemoryError is on its way out */
};

/*
 * The agent made and installed: options, capabilities, the sources' init, the output
 * opened. live: attached to a running JVM (then $_JAVA_HPROF_OPTIONS is not read, and
 * on failure nothing is left in the JVM). NULL on failure or help (*parsed says which),
 * errors said through util/log.h.
 */
struct agent *agent_create(JavaVM *vm, const char *options, bool live, enum options_result *parsed);
/* What VM init does: the sources' start. */
void agent_start(struct agent *a, JNIEnv *jni);

/* Carries out one command from the net= socket (agent/commands.c). */
bool agent_command(struct host *h, JNIEnv *jni, const struct command *cmd, char *why, size_t whylen);

#endif
