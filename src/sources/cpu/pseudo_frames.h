/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The frames cpu=samples shows where there is no Java method to show: why a walk failed
 * ([walk_failed].unknown_Java), a thread's state ([thread_state].BLOCKED), what kind of
 * thread that is not a Java thread burnt the CPU ([GC].G1 Conc#), a native function
 * (libjvm.so.Compile::Optimize, native=y: its library is the class and the source
 * file, and it is a native method: "(libjvm.so:Native method)" in a TRACE), where a
 * native walk stopped short ([native_walk_stopped].no_row). Each is a made-up class
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
/* The class of a native library's functions: named lib, with lib as its source file. */
struct class_info *pseudo_library(struct host *h, const char *lib);
/* As pseudo_method, a native method (its frames say "Native method"). */
int pseudo_native_method(struct host *h, struct class_info *c, jmethodID id, const char *name);

#endif
