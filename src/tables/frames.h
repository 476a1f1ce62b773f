/* SPDX-License-Identifier: Apache-2.0 */
/* Stack frames (a method and a location in it), each with the ID binary output names it by. */
#ifndef HPROF_FRAMES_H
#define HPROF_FRAMES_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct method_info;

struct frame {
    struct cmap_node node;
    uint32_t id; /* 0x70000001 ... */
    struct method_info *method;
    jlocation location; /* -1 when unknown or lineno=n */
    int line;           /* a line, or one of LINE_* */
    bool written;       /* binary STACK FRAME written (output lock held) */
};

struct frame_table {
    struct cmap map;
    struct registry all;
};

void frames_init(struct frame_table *t);
struct frame *frames_of(struct frame_table *t, struct method_info *m, jlocation location);
/* Frames made (HPROF_TABLE_STATS). */
static inline uint32_t frames_count(struct frame_table *t) { return registry_count(&t->all); }

#endif
