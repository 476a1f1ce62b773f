/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JVMTI side of the tables: what a source holds as a jclass, jmethodID, stack or
 * jthread is named here, once, and stored in the tables (src/tables), which hold plain
 * data only. The first sight of a thing pays the JVMTI calls, made outside the tables'
 * locks; later sights are lookups. Threads' global references are made and deleted here
 * too (the thread table lends them, see tables/threads.h).
 */
#ifndef HPROF_RESOLVE_H
#define HPROF_RESOLVE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bci_class;
struct bci_class_table;
struct class_info;
struct class_table;
struct ids;
struct method_info;
struct method_table;
struct thread_info;
struct thread_table;
struct trace;
struct trace_table;

/* The entry of a class, made on first sight (or the vacant entry of an unloaded class
 * of its name taken; jni NULL: the class keeps no mirror, its entry is never reused).
 * Never NULL (falls back to the table's `unknown`). */
struct class_info *classes_of(struct class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls, struct ids *ids);
/* The entry of a method, made on first sight; NULL when out of memory. */
struct method_info *methods_of(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id);
/* The trace of these frames on this thread (0 = any), made on first sight; NULL if out of
 * memory. The caller may keep it: it is held for good (see tables/traces.h). */
struct trace *traces_of(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint32_t thread_serial,
                        const jvmtiFrameInfo *frames, int nframes);
/* traces_of, for a caller that has the key's hash (traces_key_hash) already. */
struct trace *traces_of_hashed(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint64_t hash,
                               uint32_t thread_serial, const jvmtiFrameInfo *frames, int nframes);
/* traces_of for a CPU sampler, which counts its sample and lets the trace go, between
 * traces_sampling_begin and _end: a trace only samples name may be forgotten later. */
struct trace *traces_of_sample(struct trace_table *t, jvmtiEnv *jvmti, JNIEnv *jni, uint32_t thread_serial,
                               const jvmtiFrameInfo *frames, int nframes);

/* Numbers a class seen by the class-file hook (jni and loader may be NULL early on), or
 * gives it the number of an unloaded class of the same name and bytes. */
struct bci_class *bci_classes_number(struct bci_class_table *t, JNIEnv *jni, const char *name, jobject loader,
                                     const unsigned char *bytes, size_t len);
/* The numbered (instrumented) twin of a loaded class, or NULL. */
struct bci_class *bci_classes_of(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
/* Has this loaded class been numbered (instrumented) already? */
bool bci_classes_is_numbered(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
/* The class is already loaded (a retransformation): name its methods now. */
void bci_classes_bind(struct bci_class *c, jvmtiEnv *jvmti, jclass cls);
/* A loaded class: fill in the jmethodIDs of its numbered twin, if it has one; that twin,
 * or NULL. */
struct bci_class *bci_classes_prepared(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

/* The entry of the current thread, from JVMTI thread-local storage (NULL if unknown, or
 * once its end was seen): for a thread's own events, which its end does not race. For
 * another thread, threads_serial. */
struct thread_info *threads_lookup(jvmtiEnv *jvmti, jthread thread);
/* The serial of any thread, 0 if it has no entry (takes the table's naming lock). */
uint32_t threads_serial(struct thread_table *t, jvmtiEnv *jvmti, jthread thread);
/*
 * Enters a thread seen alive (thread start, or already running at VM init), or finds
 * the entry it has (*existing, a thread whose end was seen and that still runs
 * included). Either is held for the caller, who releases it (threads_release). Returns
 * the new entry, or NULL when it had one or memory ran out.
 */
struct thread_info *threads_started(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                    struct ids *ids, struct thread_info **existing);
/* Marks the thread ended, on the thread itself, and returns its entry (NULL if it was
 * never entered): valid until the thread is gone (threads_reclaim). */
struct thread_info *threads_ended(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* Frees the entries of ended threads that are gone (not alive for JVMTI), unless held
 * or read; their references are deleted. */
void threads_reclaim(struct thread_table *t, jvmtiEnv *jvmti, JNIEnv *jni);

#endif
