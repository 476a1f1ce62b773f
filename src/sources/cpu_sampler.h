/*
 * cpu=samples: a Java agent thread that, every `interval` ms, looks at each live thread
 * and counts the stack trace of every one that is running.
 *
 * "Running" means RUNNABLE and not suspended; a thread inside a native method counts
 * only if it used CPU since the last look, so threads parked in a blocking read are
 * not mistaken for busy ones. Each stack is taken with GetStackTrace, which stops only
 * that thread briefly (a handshake), never the whole VM.
 */
#ifndef HPROF_CPU_SAMPLER_H
#define HPROF_CPU_SAMPLER_H

#include <jni.h>
#include <stdbool.h>

struct agent;

int cpu_sampler_start(struct agent *a, JNIEnv *jni);
/* Stops the thread and waits until it has left JVMTI for good. */
void cpu_sampler_stop(struct agent *a);
/* Sampling on or off as a whole (socket CONTROL), without stopping the thread. */
void cpu_sampler_enable(struct agent *a, bool on);

#endif
