/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sources' life cycle (sources/source.h) over the one table of them, SOURCES: which
 * were set up (at load, or by a session since), the JVMTI callbacks they set, and the
 * events several of them share, handed to each that was set up.
 */
#ifndef HPROF_LIFECYCLE_H
#define HPROF_LIFECYCLE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>

#include "sources/jvm/virtual_threads.h"

struct host;
struct options;

struct lifecycle {
    union event_table events; /* every callback set so far (room for JDK 21's events) */
    unsigned on;              /* bit i: SOURCES[i] set up; its events reach it */
};

/* Agent_OnLoad: the init of every source the load's options want; their callbacks go
 * into l->events (the agent adds its own and sets them). -1 when one fails. */
int lifecycle_init(struct lifecycle *l, struct host *h);
/* VM init: their start. */
void lifecycle_start(struct lifecycle *l, struct host *h, JNIEnv *jni);
/* A session's gathering on or off (`hprof start|stop`): the enable hook of every set-up
 * source o wants, in the table's order on, in reverse order off. */
void lifecycle_enable(struct lifecycle *l, struct host *h, JNIEnv *jni, const struct options *o, bool on);
/* VM death: every stop hook, in reverse order (a command may have started one). */
void lifecycle_stop(struct host *h, JNIEnv *jni);
/* The events several sources share. */
void lifecycle_thread_start(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread);
void lifecycle_thread_end(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread);
void lifecycle_class_prepare(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread, jclass cls);
/* A session's start: the sources o wants that are not set up yet, set up and started in
 * the live phase (their callbacks added to the JVM's). 0, or -1 with the reason in why. */
int lifecycle_add(struct lifecycle *l, struct host *h, JNIEnv *jni, const struct options *o, char *why, size_t whylen);

#endif
