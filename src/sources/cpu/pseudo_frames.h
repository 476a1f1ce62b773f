/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The frames cpu=samples shows where there is no Java method to show: why a walk failed
 * ([walk_failed].unknown_Java), a thread's state ([thread_state].BLOCKED), what kind of
 * thread that is not a Java thread burnt the CPU ([GC].G1 Conc#). Each is a made-up class
 * and method entered in the tables under a jmethodID no real method can have (a small
 * number: the VM's are addresses), so traces hold them like any frame.
 */
#ifndef HPROF_PSEUDO_FRAMES_H
#define HPROF_PSEUDO_FRAMES_H

#include <jni.h>

struct host;
struct class_info;

/* The class called name (a new entry), or NULL when out of memory. */
struct class_info *pseudo_class(struct host *h, const char *name);
/* Enters method `name` of c under id; false when out of memory. */
int pseudo_method(struct host *h, struct class_info *c, jmethodID id, const char *name);

#endif
