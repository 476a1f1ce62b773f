/*
 * Java threads hprof has seen: serial number, object ID, names, and a global reference
 * while the thread lives (the CPU sampler walks the live ones).
 */
#ifndef HPROF_THREADS_H
#define HPROF_THREADS_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/registry.h"

struct ids;

struct thread_info {
    uint32_t serial;        /* 200001 ... */
    uint32_t object_id;
    char *name;
    char *group;            /* thread group name, or NULL */
    char *parent_group;     /* the group's parent name, or NULL */
    jthread ref;            /* global reference; NULL once the thread has ended */
    bool sampled;           /* CPU sampling on for this thread (socket CONTROL) */
    int64_t last_cpu_ns;    /* the sampler's last look at its CPU time */
};

struct thread_table {
    pthread_mutex_t lock;   /* guards `ref` and the live list; taken at thread start/end */
    struct registry all;
    struct thread_info **live;
    uint32_t nlive, caplive;
};

void threads_init(struct thread_table *t);
void threads_destroy(struct thread_table *t, JNIEnv *jni);
/*
 * Registers a thread seen alive (thread start, or already running at VM init). Returns
 * NULL when it was registered before (*existing is set to it then).
 */
struct thread_info *threads_started(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni,
                                    jthread thread, struct ids *ids, struct thread_info **existing);
/* Marks the thread ended and returns its entry (NULL if it was never registered). */
struct thread_info *threads_ended(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* The entry of a live thread, from JVMTI thread-local storage (NULL if unknown). */
struct thread_info *threads_lookup(jvmtiEnv *jvmti, jthread thread);

/*
 * Copies the live threads that are being sampled into `refs` as new local references
 * (caller deletes them) with their entries; returns how many (at most max).
 */
int threads_snapshot_sampled(struct thread_table *t, JNIEnv *jni, jthread *refs,
                             struct thread_info **infos, int max);
int threads_live_count(struct thread_table *t);
/* CPU sampling on or off for one thread (by its object) or for all (thread == NULL). */
void threads_set_sampled(struct thread_table *t, JNIEnv *jni, jobject thread, bool on);
/* The same for the live thread with this object ID; false when there is none. */
bool threads_set_sampled_by_id(struct thread_table *t, uint32_t object_id, bool on);

uint32_t threads_count(struct thread_table *t);
struct thread_info *threads_at(struct thread_table *t, uint32_t i);

#endif
