/*
 * Methods seen in stack traces, by jmethodID: name, signature, class and line table.
 * sources/resolve.c names a method through JVMTI the first time it is seen, while its
 * class is surely loaded; later output never calls back into the JVM for it.
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
    jmethodID id;
    struct class_info *cls;
    char *name;            /* "<Unknown Method>" when JVMTI cannot tell */
    char *signature;       /* "(I)V" */
    bool native;
    int nlines;
    jvmtiLineNumberEntry *lines;   /* sorted by start_location */
};

struct method_table {
    struct cmap map;
    struct class_table *classes;   /* where a method's class is entered */
    struct ids *ids;
};

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids);
/* The entry of a method, or NULL when it was never entered. */
struct method_info *methods_find(struct method_table *t, jmethodID id);
/*
 * Enters m, named by the caller (m, its strings and lines from malloc; the table owns
 * them now). Returns the entry of m->id: m, or the one another thread entered first
 * (m is freed then); NULL when out of memory.
 */
struct method_info *methods_add(struct method_table *t, struct method_info *m);
/* The source line of a location in the method (see LINE_* in ids.h for the others). */
int methods_line(const struct method_info *m, jlocation location);

#endif
