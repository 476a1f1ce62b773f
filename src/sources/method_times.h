/*
 * cpu=times and cpu=old: turns the Tracker's method entry/exit events into call
 * counts and times per stack trace.
 *
 * Each Java thread keeps a shadow call stack here. An exit closes the frame it names
 * (frames above it were left by an exception); the time between entry and exit, less
 * the callees' time, is the method's own time. Times come from System.nanoTime and
 * are scaled, per batch of events, by the thread's CPU time over the wall time of that
 * batch, so a method that sleeps or blocks is not charged for the wait.
 */
#ifndef HPROF_METHOD_TIMES_H
#define HPROF_METHOD_TIMES_H

#include <jni.h>
#include <stdint.h>

struct agent;
struct method_times;

struct method_times *method_times_new(void);
/* Processes a batch of (event, nanoTime) pairs of the Java thread with this id.
 * cpu_ns is the thread's CPU time now, or -1 when it is not known. */
void method_times_batch(struct agent *a, JNIEnv *jni, int64_t tid, const int64_t *pairs, int npairs,
                        int64_t cpu_ns, uint32_t thread_serial);

#define TRACKER_EXIT_BIT INT64_MIN

#endif
