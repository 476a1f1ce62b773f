/*
 * Classes the bytecode tracker has instrumented, by class number (cnum).
 *
 * Instrumented code calls the Tracker with (cnum, mnum). A class gets its number when
 * its bytes pass through the class-file hook, before it exists as a jclass; when the
 * VM prepares it (or, for the classes loaded before VM init, at VM init) its methods'
 * jmethodIDs are filled in by name and descriptor (sources/resolve.c), so (cnum, mnum)
 * can be named.
 */
#ifndef HPROF_BCI_CLASSES_H
#define HPROF_BCI_CLASSES_H

#include <jni.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct bci_class {
    uint32_t cnum;
    char *name;                   /* internal form, "java/lang/String" */
    jweak loader;                 /* NULL for the boot loader */
    unsigned nmethods;
    char **method_names, **method_descs;
    _Atomic(jmethodID) *ids;      /* by mnum; NULL until the class is prepared */
    _Atomic bool prepared;
    struct bci_class *same_name;  /* the class of this name numbered before (another loader) */
};

struct bci_class_table {
    struct registry all;          /* index = cnum - 1 */
    struct cmap by_name;          /* name -> the newest struct bci_class of that name */
};

void bci_classes_init(struct bci_class_table *t);
/* Numbers a class seen by the class-file hook; loader is the caller's weak reference
 * (the table keeps it), NULL for the boot loader. NULL when out of memory. */
struct bci_class *bci_classes_add(struct bci_class_table *t, const char *name, jweak loader);
/* Its methods, in mnum order (copied), once the instrumenter has listed them. */
int bci_classes_set_methods(struct bci_class *c, unsigned nmethods, char *const *names, char *const *descs);
/* The class a cnum names, or NULL. */
struct bci_class *bci_classes_get(struct bci_class_table *t, uint32_t cnum);
/* The newest class numbered under this name (the others follow by same_name), or NULL. */
struct bci_class *bci_classes_named(struct bci_class_table *t, const char *name);
/* A method of the loaded class: fills in its jmethodID if it is one of c's numbered methods. */
void bci_classes_name_method(struct bci_class *c, const char *name, const char *desc, jmethodID id);

#endif
