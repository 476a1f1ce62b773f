/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=times and cpu=old: the frame of an instrumented method, from its (class number,
 * method number), as the Tracker's events and counts name it.
 *
 * A method is named through its class's bytes (struct bci_version): once one copy of a
 * class's bytes is named, every copy is, even one unloaded before its calls are counted.
 */
#ifndef HPROF_CPU_METHOD_NAMES_H
#define HPROF_CPU_METHOD_NAMES_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct bci_class;
struct frame;

/* The frame of method (cnum, mnum); the unknown method's when it cannot be named (a class
 * unloaded before any copy of it was named); NULL when out of memory. *for_good (unless
 * NULL): it is the method's own, kept with its bytes for good. */
struct frame *method_names_frame(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, bool *for_good);

/* Names the methods of a class that may be unloaded before its calls are counted (its
 * loader is not one of the JDK's own), now that it is prepared: once for its bytes. */
void method_names_class(struct host *h, JNIEnv *jni, struct bci_class *c);

#endif
