/*
 * The bytecode tracker source: instruments classes as they load so that they call
 * the Tracker class (java/hprof/Tracker.java), which the agent delivers on the
 * bootstrap class path so classes of every module, java.base included, reach it.
 *
 * Classes loaded before the agent could see them do not exist: with the early
 * class-hook capabilities the hook sees java.lang.Object first. Instrumentation is
 * on only for the options that need it (cpu=times, cpu=old).
 */
#ifndef HPROF_TRACKER_H
#define HPROF_TRACKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct agent;

#define TRACKER_CLASS "hprof/Tracker"

/* Does this run need bytecode instrumentation? */
bool tracker_wanted(const struct agent *a);
/* In Agent_OnLoad, before callbacks are set: capabilities and the class path. 0 on success. */
int tracker_onload(struct agent *a);
/* Once the callbacks are set: the class hook and class preparation events. */
void tracker_enable_events(struct agent *a);
/* A thread ends: hand over what its Tracker buffer still holds (on that thread). */
void tracker_thread_end(struct agent *a, JNIEnv *jni, jthread thread);
/* At VM init: name the classes loaded so far, bind the natives and engage the Tracker. */
void tracker_vm_init(struct agent *a, JNIEnv *jni);
/* At VM death, before the final dump: hand over what threads still hold, then go inert. */
void tracker_vm_death(struct agent *a, JNIEnv *jni);

void JNICALL tracker_on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined, jobject loader,
                                        const char *name, jobject protection_domain, jint len,
                                        const unsigned char *data, jint *new_len, unsigned char **new_data);
void JNICALL tracker_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls);

#endif
