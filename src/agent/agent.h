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

#include "options/options.h"
#include "report/report.h"
#include "sources/host.h"

#define AGENT_MAX_THREADS 5

struct agent {
    struct host host;                /* what the sources see (first: a host is an agent) */
    struct options opt;
    struct report report;
    /* Our own Java threads, kept out of the profile. A slot is filled before the count
     * that publishes it grows (release/acquire), so readers never see an empty one. */
    jobject own_threads[AGENT_MAX_THREADS];
    pthread_mutex_t own_lock;      /* one starter at a time takes a slot (readers need none) */
    _Atomic int nown_threads;
    _Atomic bool said_missing;
    _Atomic bool said_missing_allocs; /* "ALLOCS needs heap=sites and timeline=", once */       /* "the net= command ... needs heap=sites", once */
};

/* Carries out one command from the net= socket (agent/commands.c). */
bool agent_command(struct host *h, JNIEnv *jni, const struct command *cmd, char *why, size_t whylen);

#endif
