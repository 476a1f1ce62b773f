/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The life cycle every event source has, so that the agent runs them all from one table
 * (agent/lifecycle.c, SOURCES). A source is one file that defines a `const struct source`;
 * the hooks it does not need are NULL.
 *
 *   init           Agent_OnLoad: its capabilities, its state (hung off the host), the
 *                  callbacks of the JVMTI events only it uses. -1 when the JVM cannot
 *                  run it: the agent stops the JVM with an HPROF ERROR.
 *   start          VMInit: its threads, its events on.
 *   enable         gathering off or on again while the VM runs (start has turned it
 *                  on), for what the options o ask of this source: a session's start
 *                  and stop (`hprof start|stop`, through lifecycle_enable) and the net=
 *                  socket's CONTROL commands (o: the load's). Nothing is freed when
 *                  off: its threads and tables stay, idle, until it is on again.
 *   stop           VMDeath, before the last dump (in the table's reverse order).
 *   thread_start, thread_end, class_prepare
 *                  events several sources want: the agent hands each to every source
 *                  that has the hook.
 *
 * What a dump needs from a source (a snapshot of its tables) the report layer asks for
 * by the source's own call (monitor_events_snapshot, alloc_tracker_count_live, ...).
 */
#ifndef HPROF_SOURCE_H
#define HPROF_SOURCE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct host;
struct options;

struct source {
    const char *name;
    bool (*wanted)(const struct options *o);
    int (*init)(struct host *h, jvmtiEventCallbacks *cb);
    void (*start)(struct host *h, JNIEnv *jni);
    void (*enable)(struct host *h, JNIEnv *jni, const struct options *o, bool on);
    void (*stop)(struct host *h, JNIEnv *jni);
    void (*thread_start)(struct host *h, JNIEnv *jni, jthread thread);
    void (*thread_end)(struct host *h, JNIEnv *jni, jthread thread);
    void (*class_prepare)(struct host *h, JNIEnv *jni, jthread thread, jclass cls);
};

extern const struct source thread_events_source;
extern const struct source virtual_threads_source;
extern const struct source tracker_source;
extern const struct source alloc_tracker_source;
extern const struct source cpu_sampler_source;
extern const struct source cpu_signal_sampler_source;
extern const struct source monitor_events_source;
extern const struct source socket_commands_source;
extern const struct source gc_events_source;
extern const struct source class_sweeper_source;

#endif
