/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,callers=sampled: the class a site makes, found by the signature the
 * instrumenter gave it, and the bytes of its instances (sources/alloc/alloc_counted.c
 * weighs its samples and dumps with them).
 */
#ifndef HPROF_ALLOC_SITE_CLASSES_H
#define HPROF_ALLOC_SITE_CLASSES_H

#include <jni.h>
#include <stdint.h>

struct host;
struct alloc_site;
struct class_info;

/* Names every class loaded so far (at VM init, or when attached). */
void alloc_name_loaded_classes(struct host *h, JNIEnv *jni);
/* Site s's class (kept on the site once found); NULL when not found. */
struct class_info *alloc_site_class(struct host *h, JNIEnv *jni, struct alloc_site *s);
/* Bytes of every instance of class ci that `new` makes; 0 when not known. */
uint64_t alloc_instance_size(struct host *h, JNIEnv *jni, struct class_info *ci);

#endif
