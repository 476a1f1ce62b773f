/* SPDX-License-Identifier: Apache-2.0 */
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

struct host;

/* Starts the sampling thread: at VM init with cpu=samples, or when a socket CONTROL
 * turns sampling on without it. Its stop hook ends the thread and waits (bounded) until
 * it has left JVMTI for good. The life cycle: cpu_sampler_source (sources/source.h). */
int cpu_sampler_start(struct host *h, JNIEnv *jni);
/* Sampling on or off as a whole without starting or stopping the thread (a net= CONTROL
 * for one thread); the source's enable hook starts it when need be. */
void cpu_sampler_enable(struct host *h, bool on);

#include "sources/source.h"

#endif
