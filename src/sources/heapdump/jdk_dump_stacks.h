/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The threads' stacks of a dump the JDK wrote (its STACK TRACE and STACK FRAME records,
 * which its Java frame roots number), made into traces of hprof's trace table: each frame
 * found again as a jmethodID (its class, name and signature) and a location on its line.
 * The dump's thread roots then name those traces, and they are written with the others.
 */
#ifndef HPROF_JDK_DUMP_STACKS_H
#define HPROF_JDK_DUMP_STACKS_H

#include <jni.h>
#include <stdint.h>

struct host;
struct jdr;
struct dump_thread;

/* For each of the n threads (dump_ids[i]: its object's ID in the JDK's dump): its trace
 * from the JDK's stack, else the one JVMTI gave before the dump (threads[i]->trace),
 * handed to the reader (jdr_set_thread_trace). */
void jdk_dump_stacks(struct host *h, JNIEnv *jni, struct jdr *r, const uint64_t *dump_ids,
                     const struct dump_thread *const *threads, uint32_t n);

#endif
