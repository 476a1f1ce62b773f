/*
 * Classes the bytecode tracker has instrumented, by class number (cnum).
 *
 * Instrumented code calls the Tracker with (cnum, mnum). A class gets its number when
 * its bytes pass through the class-file hook, before it exists as a jclass; when the
 * VM prepares it (or, for the classes loaded before VM init, at VM init) its methods'
 * jmethodIDs are filled in by name and descriptor, so (cnum, mnum) can be named.
 */
#ifndef HPROF_BCI_CLASSES_H
#define HPROF_BCI_CLASSES_H

#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct bci_class {
    uint32_t cnum;
    char *name;                   /* internal form, "java/lang/String" */
    jobject loader;               /* weak global reference; NULL for the boot loader */
    unsigned nmethods;
    char **method_names, **method_descs;
    _Atomic(jmethodID) *ids;      /* by mnum; NULL until the class is prepared */
    _Atomic bool prepared;
    struct bci_class *same_name;  /* other classes of this name (other loaders) */
};

struct bci_class_table {
    struct registry all;          /* index = cnum - 1 */
    struct cmap by_name;          /* name -> first struct bci_class of that name */
    pthread_mutex_t lock;         /* guards same_name chains and preparation */
};

void bci_classes_init(struct bci_class_table *t);
/* Numbers a class seen by the class-file hook (jni and loader may be NULL early on). */
struct bci_class *bci_classes_add(struct bci_class_table *t, JNIEnv *jni, const char *name, jobject loader);
/* Its methods, in mnum order (copied), once the instrumenter has listed them. */
int bci_classes_set_methods(struct bci_class *c, unsigned nmethods, char *const *names, char *const *descs);
/* The class a cnum names, or NULL. */
struct bci_class *bci_classes_get(struct bci_class_table *t, uint32_t cnum);
/* Has this loaded class been numbered (instrumented) already? */
bool bci_classes_is_numbered(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
/* The class is already loaded (a retransformation): name its methods now. */
void bci_classes_bind(struct bci_class *c, jvmtiEnv *jvmti, jclass cls);
/* A loaded class: fill in the jmethodIDs of its numbered twin, if it has one. */
void bci_classes_prepared(struct bci_class_table *t, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

#endif
