/*
 * Methods seen in stack traces, by jmethodID: name, signature, class and line table.
 * A method is resolved through JVMTI the first time it is seen, while its class is
 * surely loaded; later output never calls back into the JVM for it.
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
    struct class_table *classes;
    struct ids *ids;
};

void methods_init(struct method_table *t, struct class_table *classes, struct ids *ids);
void methods_destroy(struct method_table *t);
struct method_info *methods_of(struct method_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id);
/* The source line of a location in the method (see LINE_* in ids.h for the others). */
int methods_line(const struct method_info *m, jlocation location);

#endif
