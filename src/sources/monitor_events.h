/*
 * monitor=y: JVMTI monitor events feed the monitor table, and a dump writes the
 * MONITOR DUMP (monitors in use, every thread's state) and MONITOR TIME sections.
 *
 * Contended enters are timed from MonitorContendedEnter to MonitorContendedEntered,
 * waits from MonitorWait to MonitorWaited, each on the thread's own clock of events
 * (the callbacks run on the thread that blocks). The stack trace and the monitor's
 * class are taken when the thread starts to block.
 */
#ifndef HPROF_MONITOR_EVENTS_H
#define HPROF_MONITOR_EVENTS_H

#include <jni.h>
#include <jvmti.h>

struct agent;

/* The capabilities monitor=y needs, from those the VM offers. */
void monitor_events_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *have);
/* Sets up the table (Agent_OnLoad); 0 on success. */
int monitor_events_onload(struct agent *a);
void monitor_events_callbacks(jvmtiEventCallbacks *cb);
/* Turns the events on (VMInit). */
void monitor_events_enable(struct agent *a);
/* The MONITOR DUMP and MONITOR TIME sections (takes the output lock). */
void monitor_events_dump(struct agent *a, JNIEnv *jni);

#endif
