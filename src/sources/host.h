/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a source may use of the agent that runs it: the JVM, the options, the tables it
 * fills, the few settings that change while the program runs, and a handful of services
 * (a struct of functions). The agent fills one struct host at load and installs it; a
 * source never includes the agent, and never writes output: what must reach the profile
 * as it happens (a thread's start, a socket command) is handed back through the services.
 */
#ifndef HPROF_HOST_H
#define HPROF_HOST_H

#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "options/options.h"
#include "tables/tables.h"

enum host_phase { PHASE_ONLOAD, PHASE_LIVE, PHASE_DEAD };

struct host;
struct command;
struct thread_info;
struct gc_record;

/* What a source hands over as it happens (the rest waits for a dump). */
enum live_kind { LIVE_THREAD_START, LIVE_THREAD_END, LIVE_MONITOR_WAIT, LIVE_MONITOR_WAITED };
struct live_record {
    enum live_kind kind;
    const struct thread_info *thread; /* THREAD START / END */
    const char *signature;            /* MONITOR WAIT(ED): the monitor's class */
    int64_t ms;                       /* the wait's timeout, or the time it waited */
    uint32_t thread_serial;           /* MONITOR WAIT(ED) */
};

/* The services the agent gives its sources. */
struct host_services {
    /* Starts a daemon Java thread of the agent's own, kept out of the profile. */
    jthread (*start_thread)(struct host *h, JNIEnv *jni, const char *name, jvmtiStartFunction run, void *arg);
    bool (*is_own_thread)(struct host *h, JNIEnv *jni, jthread thread);
    /* A record due in the profile now, in the order things happen. */
    void (*record)(struct host *h, const struct live_record *r);
    /* A command read from the net= socket, carried out on the reading thread. false
     * when it names what does not exist (why says what): the reader reports it. */
    bool (*command)(struct host *h, JNIEnv *jni, const struct command *cmd, char *why, size_t whylen);
    /* timeline=: a GC's record (gc, NULL for none), then, when `allocs`, the allocation
     * record of the interval that ends now; on the timeline's thread. */
    void (*timeline)(struct host *h, JNIEnv *jni, const struct gc_record *gc, bool allocs);
};

struct tracker;
struct bci_class_table;
struct method_times;
struct call_counts;
struct monitor_events;
struct juc_waits;

/* The sources that keep state of their own, each its slot in host.state. */
enum source_id {
    SOURCE_CPU_SAMPLER,    /* struct cpu_sampler: cpu=samples through JVMTI (sampler=jvmti, fallback) */
    SOURCE_SIGNAL_SAMPLER, /* struct signal_sampler: cpu=samples from signals (the default) */
    SOURCE_ALLOC,          /* struct alloc_tracker: heap=sites, allocations by site */
    SOURCE_LISTENER,       /* struct listener: commands on the net= socket (format=b) */
    SOURCE_GC,             /* struct gc_events: timeline=, GC records and the timeline */
    SOURCE_CLASS_SWEEPER,  /* struct class_sweeper: forgets unloaded classes (always) */
    SOURCE_TRACKER,        /* struct tracker: bytecode instrumentation (cpu=times|old, heap=sites) */
    SOURCE_BCI_CLASSES,    /* struct bci_class_table: the classes the tracker numbered */
    SOURCE_METHOD_TIMES,   /* struct method_times: shadow call stacks of cpu=times|old */
    SOURCE_CALL_COUNTS,    /* struct call_counts: cpu=times,timing=gprof, the calls threads counted */
    SOURCE_MONITORS,       /* struct monitor_events: monitor=y, contention and waits */
    SOURCE_JUC,            /* struct juc_waits: monitor=y, the same on java.util.concurrent */
    SOURCE_IDS
};

struct host {
    JavaVM *vm;
    jvmtiEnv *jvmti;
    const struct options *opt; /* as parsed at load; never changes (a session's own
                                  options reach the sources as the settings below) */
    const struct host_services *services;
    _Atomic int phase;    /* enum host_phase */
    bool gc_at_exit;      /* a GC can be forced at VM death (util/collector.h) */
    bool virtual_threads; /* thread=y follows virtual threads (JDK 21+) */
    /* Sources start while the program's threads run already: the agent was attached
     * to a running JVM, or a later session set them up. They adopt the threads there
     * and leave out what came before. */
    bool late_start;
    int net_fd; /* the net= socket, which commands come in by; -1 if none */
    struct tables t;

    /* Settings a socket command may change while the program runs. */
    _Atomic int depth;         /* stack depth of new traces (depth= at first) */
    _Atomic int interval_ms;   /* CPU sampling pause (interval= at first; `hprof set`) */
    _Atomic long alloc_sample; /* heap=sites sampled every this many bytes (alloc_sample=; a session's) */

    /* Each source's own state (and its parts'), by id (host_state); NULL where the
     * options did not ask for it. A source sets its own slots only. */
    void *state[SOURCE_IDS];
};

/* The host installed at load, for JVMTI callbacks and natives, which carry no context. */
void host_install(struct host *h);
struct host *host_get(void);

static inline void *host_state(const struct host *h, enum source_id id) { return h->state[id]; }
static inline void host_set_state(struct host *h, enum source_id id, void *state) { h->state[id] = state; }
/* The tracker's state and its parts', and the monitors', typed. */
static inline struct tracker *host_tracker(const struct host *h) { return h->state[SOURCE_TRACKER]; }
static inline struct bci_class_table *host_bci_classes(const struct host *h) { return h->state[SOURCE_BCI_CLASSES]; }
static inline struct method_times *host_method_times(const struct host *h) { return h->state[SOURCE_METHOD_TIMES]; }
static inline struct call_counts *host_call_counts(const struct host *h) { return h->state[SOURCE_CALL_COUNTS]; }
static inline struct monitor_events *host_monitors(const struct host *h) { return h->state[SOURCE_MONITORS]; }
static inline struct juc_waits *host_juc(const struct host *h) { return h->state[SOURCE_JUC]; }

static inline bool host_live(struct host *h) { return atomic_load(&h->phase) == PHASE_LIVE; }
static inline int host_depth(struct host *h) { return atomic_load_explicit(&h->depth, memory_order_relaxed); }
static inline int host_interval(struct host *h) { return atomic_load_explicit(&h->interval_ms, memory_order_relaxed); }
static inline jthread host_start_thread(struct host *h, JNIEnv *jni, const char *name, jvmtiStartFunction run,
                                        void *arg)
{
    return h->services->start_thread(h, jni, name, run, arg);
}
/* What this JVM can give, to ask only for that: sources and the agent add capabilities
 * each for itself, so a refused one is said by the part that wanted it. */
static inline jvmtiCapabilities host_potential_capabilities(jvmtiEnv *jvmti)
{
    jvmtiCapabilities have;
    memset(&have, 0, sizeof have);
    (*jvmti)->GetPotentialCapabilities(jvmti, &have);
    return have;
}

static inline void host_record(struct host *h, const struct live_record *r) { h->services->record(h, r); }
static inline bool host_is_own_thread(struct host *h, JNIEnv *jni, jthread thread)
{
    return h->services->is_own_thread(h, jni, thread);
}
/* host_is_own_thread for the calling thread (current is its jthread: an event's own),
 * asked once per OS thread, since events and hooks ask it at every allocation or wait:
 * the answer cannot change (the agent's threads are its own before they start, no other
 * thread becomes one, and a virtual thread's carrier is never one), and asking takes a
 * JNI call per agent thread. */
bool host_is_own_current(struct host *h, JNIEnv *jni, jthread current);
/* Whether a GC may be forced now: while the VM runs, and at VM death unless the
 * collector is ZGC or Shenandoah (they never finish one then). */
static inline bool host_can_force_gc(struct host *h) { return host_live(h) || h->gc_at_exit; }

#endif
