/*
 * The agent context: the one owned piece of mutable state, created in Agent_OnLoad
 * and reached from every JVMTI callback through agent_get().
 */
#ifndef HPROF_AGENT_H
#define HPROF_AGENT_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "agent/options.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/methods.h"
#include "tables/object_ids.h"
#include "tables/strings.h"
#include "tables/threads.h"
#include "tables/traces.h"
#include "writers/output.h"
#include "writers/writer.h"

enum agent_phase { PHASE_ONLOAD, PHASE_LIVE, PHASE_DEAD };

struct cpu_sampler;
struct tracker;
struct bci_class_table;
struct method_times;
struct alloc_tracker;
struct monitor_events;
struct listener;

struct agent {
    JavaVM *vm;
    jvmtiEnv *jvmti;
    struct options opt;
    _Atomic int phase;

    /* tables */
    struct ids ids;
    struct string_table strings;
    struct class_table classes;
    struct method_table methods;
    struct frame_table frames;
    struct trace_table traces;
    struct thread_table threads;

    /* output */
    struct output out;
    const struct writer *writer;
    struct writer_ctx wctx;

    /* sources */
    struct cpu_sampler *sampler;
    struct tracker *tracker;                 /* bytecode instrumentation (cpu=times|old) */
    struct bci_class_table *bci_classes;     /* classes it numbered */
    struct method_times *method_times;       /* shadow call stacks of cpu=times|old */
    struct alloc_tracker *alloc;             /* heap=sites: allocations by site */
    struct monitor_events *monitors;         /* monitor=y: contention and waits */
    struct listener *listener;               /* commands on the net= socket (format=b) */
    _Atomic bool alloc_traces_off;           /* socket CONTROL 2: allocation sites stop counting */
    jobject agent_threads[4];        /* our own Java threads, kept out of the profile */
    int nagent_threads;

    bool gc_at_exit;                 /* a GC can be forced at VM death (util/collector.h) */
    pthread_mutex_t dump_lock;       /* one dump at a time */
    int dumps;                       /* dumps written so far */
};

struct agent *agent_get(void);

/* Starts a daemon Java thread of the agent's own, kept out of the profile. */
jthread agent_start_thread(struct agent *a, JNIEnv *jni, const char *name,
                           jvmtiStartFunction run, void *arg);
bool agent_is_own_thread(struct agent *a, JNIEnv *jni, jthread thread);
/* Whether a dump may force a GC now: while the VM runs, and at VM death unless the
 * collector is ZGC or Shenandoah (they never finish one then). */
bool agent_can_force_gc(struct agent *a);

#endif
