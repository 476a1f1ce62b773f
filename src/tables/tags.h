/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JVMTI object tags: one tag space for the whole agent, so every part can tag objects
 * without stepping on another's.
 *   even and non-zero: the address of the struct class_info of a class object
 *   odd: (object ID << 1) | 1, for any other object hprof has named (threads, heap objects)
 */
#ifndef HPROF_TAGS_H
#define HPROF_TAGS_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

struct class_info;

static inline bool tag_is_class(jlong tag) { return tag != 0 && (tag & 1) == 0; }
static inline struct class_info *tag_class(jlong tag) { return (struct class_info *)(intptr_t)tag; }
static inline jlong tag_for_class(struct class_info *c) { return (jlong)(intptr_t)c; }

static inline bool tag_is_object(jlong tag) { return (tag & 1) != 0; }
static inline uint32_t tag_object_id(jlong tag) { return (uint32_t)((uint64_t)tag >> 1); }
static inline jlong tag_for_object_id(uint32_t id) { return (jlong)(((uint64_t)id << 1) | 1u); }

#endif
