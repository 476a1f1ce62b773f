/* Threads starting and ending: the thread table and THREAD START / THREAD END records. */
#ifndef HPROF_THREAD_EVENTS_H
#define HPROF_THREAD_EVENTS_H

#include <jni.h>
#include <jvmti.h>

struct agent;

/* At VM init: the main thread first, then every other thread already running. */
void thread_events_vm_init(struct agent *a, JNIEnv *jni, jthread main_thread);

void JNICALL thread_events_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
void JNICALL thread_events_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);

#endif
