/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every table the profile is made of, in one place: the sources fill them, the report
 * layer reads them. Plain concurrent data (util/cmap.h, util/registry.h): no JVMTI.
 */
#ifndef HPROF_TABLES_H
#define HPROF_TABLES_H

#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/methods.h"
#include "tables/object_ids.h"
#include "tables/strings.h"
#include "tables/threads.h"
#include "tables/traces.h"

struct tables {
    struct ids ids;
    struct string_table strings;
    struct class_table classes;
    struct method_table methods;
    struct frame_table frames;
    struct trace_table traces;
    struct thread_table threads;
};

static inline void tables_init(struct tables *t)
{
    ids_init(&t->ids);
    strings_init(&t->strings);
    classes_init(&t->classes);
    methods_init(&t->methods, &t->classes, &t->ids);
    frames_init(&t->frames);
    traces_init(&t->traces, &t->methods, &t->frames);
    threads_init(&t->threads);
}

#endif
