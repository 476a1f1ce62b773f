/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The threads of one heap dump, for both heap sources (heap_walk.c, jdk_dumper.c): every
 * thread alive when the dump begins, each with its entry in the thread table (so that
 * its ROOT THREAD OBJECT names a thread serial whose THREAD START is written, and its
 * object keeps that record's ID) and its stack as a trace (so that the dump's thread
 * roots name it, and readers show each thread's frames).
 *
 * A thread the table does not know as live is entered now: one started and not seen
 * yet gets its THREAD START here; one whose end was seen while it still runs keeps its
 * entry. The JVM posts ThreadEnd for the thread that ends the VM (DestroyJavaVM, or the
 * one calling System.exit) before VMDeath, and that thread then writes the dump at exit.
 * The agent's own threads are left out: the dump writes no thread roots for them.
 */
#ifndef HPROF_DUMP_THREADS_H
#define HPROF_DUMP_THREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct thread_info;
struct trace;

struct dump_thread {
    struct thread_info *ti;
    jthread ref;         /* a local reference, valid while the dump is made */
    struct trace *trace; /* its stack when the dump began (NULL: none known) */
};

struct dump_threads {
    struct dump_thread *t;
    uint32_t n;
};

/* Takes the threads (see the top), with their stacks. false when JVMTI cannot list them
 * (d is empty then). Call before the dump's sink is opened: THREAD STARTs go out now. */
bool dump_threads_take(struct host *h, JNIEnv *jni, struct dump_threads *d);
/* Deletes the threads' local references (before the heap is walked or dumped: they
 * would be JNI local roots). */
void dump_threads_drop_refs(JNIEnv *jni, struct dump_threads *d);
/* Deletes them, and lets their entries go (held while the dump is made). */
void dump_threads_free(struct host *h, JNIEnv *jni, struct dump_threads *d);

#endif
