/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Methods seen in stack traces: name, signature, class and line table, found by jmethodID.
 * sources/resolve.c names a method through JVMTI the first time it is seen, while its
 * class is surely loaded; later output never calls back into the JVM for it.
 *
 * A class defined by many loaders (or again and again) has a jmethodID per copy for each
 * method. They are aliases of one entry, the canonical method: same class name, name,
 * signature and line table. So the frames, traces and counts of every copy add up in one
 * row, and what a copy leaves behind once unloaded is its aliases, which the sweeper
 * takes out (methods_sweep).
 */
#ifndef HPROF_METHODS_H
#define HPROF_METHODS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#include "util/cmap.h"

struct class_info;
struct class_table;
struct ids;

struct method_info {
    struct cmap_node node;
    jmethodID id;           /* the first method entered as this one */
    struct class_info *cls; /* the canonical entry of its class (see classes.h) */
    char *name;             /* "<Unknown Method>" when JVMTI cannot tell */
    char *signature;        /* "(I)V" */
    bool native;
    int nlines;
    jvmtiLineNumberEntry *lines; /* sorted by start_location */
};

struct method_table {
    struct cmap map;             /* the canonical methods */
    struct cmap aliases;         /* jmethodID -> its canonical method */
    struct class_table *classes; /* where a method's class is entered */
    struct ids *ids;
    struct method_info unknown; /* stands in for a method no one can name any more */
};

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids);
/* The method of this jmethodID, or NULL when it was never entered. */
struct method_info *methods_find(struct method_table *t, jmethodID id);
/*
 * Enters m, named by the caller (m, its strings and lines from malloc; the table owns
 * them now), as method m->id of a class whose entry is `defined_in` at `generation`
 * (its generation while the caller held the class; NULL: a method JVMTI could not
 * place, not noted under its jmethodID). Returns the canonical method: m, or
 * an equal one entered before (m is freed then); NULL when out of memory.
 */
struct method_info *methods_add(struct method_table *t, struct method_info *m, struct class_info *defined_in,
                                uint32_t generation);
/* Takes out the aliases of methods whose class was unloaded (its entry's generation
 * moved on), telling dead(id, ctx) of each. Returns how many. */
uint32_t methods_sweep(struct method_table *t, void (*dead)(jmethodID id, void *ctx), void *ctx);
/* Canonical methods and jmethodIDs noted (HPROF_TABLE_STATS). */
static inline uint64_t methods_count(struct method_table *t) { return cmap_count(&t->map); }
static inline uint64_t methods_aliases(struct method_table *t) { return cmap_count(&t->aliases); }
/* The source line of a location in the method (see LINE_* in ids.h for the others). */
int methods_line(const struct method_info *m, jlocation location);

#endif
