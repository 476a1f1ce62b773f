/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classes the bytecode tracker has instrumented, by class number (cnum).
 *
 * Instrumented code calls the Tracker with (cnum, mnum). A class gets its number when
 * its bytes pass through the class-file hook, before it exists as a jclass; when the
 * VM prepares it (or, for the classes loaded before VM init, at VM init) its methods'
 * jmethodIDs are filled in by name and descriptor (sources/resolve.c), so (cnum, mnum)
 * can be named.
 *
 * A class defined again from the same bytes by a new loader after the old one was
 * unloaded (a loader per plugin, per request) takes the entry, and the number, the old
 * one left vacant: the entries of a name are as many as its copies loaded at once.
 * Calls of the old copy still waiting to be counted then name the same methods.
 */
#ifndef HPROF_BCI_CLASSES_H
#define HPROF_BCI_CLASSES_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct frame;

/* The bytes a class of some name came in (one for most names): the methods their numbers
 * name, once known, for every copy of them. Events of a copy counted after it was
 * unloaded still name its methods so. */
struct bci_version {
    struct bci_version *next; /* the other versions of its name */
    uint64_t bytes_hash;
    unsigned nmethods;
    struct frame *_Atomic *frames; /* by mnum: the method's frame (no location), once
                                       one copy's method is named */
};

/* cpu=times, timing=sampled: the mean own time of a method's calls timed at both
 * ends, shared by every thread's replay (sources/cpu/method_costs.c). */
struct method_cost {
    _Atomic uint64_t window;  /* calls << 40 | their own ns, since the last look */
    _Atomic uint32_t mean_ns; /* own time per call at the last look: what an untimed call is charged */
    _Atomic uint8_t state;    /* METHOD_COST_*: timed by sample now, or before */
};
enum { METHOD_COST_TIMED = 0, METHOD_COST_SAMPLED = 1, METHOD_COST_WAS_SAMPLED = 2 };

struct bci_class {
    uint32_t cnum;
    char *name;          /* internal form, "java/lang/String" */
    jweak loader;        /* NULL for the boot loader (lock) */
    uint64_t bytes_hash; /* of the class file as it came */
    bool vacant;         /* its loader is gone: free for the same bytes again (lock) */
    unsigned nmethods;
    char **method_names, **method_descs;
    _Atomic(jmethodID) *ids;           /* by mnum; NULL until the class is prepared */
    struct bci_version *version;       /* its bytes' (set with the methods) */
    struct method_cost *_Atomic costs; /* by mnum, made at the first call learned from */
    _Atomic bool prepared;
    struct bci_class *same_name;       /* the class of this name numbered before (another loader) */
    struct bci_class *next_vacant;     /* the other vacant classes of its name (lock) */
    struct bci_class *next_unprepared; /* the others of its name waiting for their
                                           ClassPrepare (lock) */
};

struct bci_class_table {
    pthread_mutex_t lock; /* over loaders, vacancy and reuse; held over no JVMTI call, only
                                     JNI's IsSameObject */
    struct registry all;  /* index = cnum - 1 */
    struct cmap by_name;  /* name -> the newest struct bci_class of that name */
};

void bci_classes_init(struct bci_class_table *t);
/* Numbers a class seen by the class-file hook, or gives it the vacant entry of an
 * unloaded class of the same name and bytes; loader is the caller's weak reference (the
 * table keeps it), NULL for the boot loader. NULL when out of memory. */
struct bci_class *bci_classes_add(struct bci_class_table *t, const char *name, uint64_t bytes_hash, jweak loader);
/* Its methods, in mnum order (copied), once the instrumenter has listed them (kept as
 * they are when a reused entry has them), and its version. */
int bci_classes_set_methods(struct bci_class_table *t, struct bci_class *c, unsigned nmethods, char *const *names,
                            char *const *descs);
/* The class a cnum names, or NULL. */
struct bci_class *bci_classes_get(struct bci_class_table *t, uint32_t cnum);
/* The newest class numbered under this name (the others follow by same_name), or NULL. */
struct bci_class *bci_classes_named(struct bci_class_table *t, const char *name);
/* The loader of an entry is gone (is_gone(loader, ctx) says so, lock held: no JNI call
 * that may wait): vacant from then on, its weak reference handed to drop(loader, ctx).
 * Returns how many entries were vacated. */
uint32_t bci_classes_sweep(struct bci_class_table *t, bool (*is_gone)(jweak loader, void *ctx),
                           void (*drop)(jweak loader, void *ctx), void *ctx);
/* Calls match(c, ctx) for the classes of this name that are not vacant (only those not
 * prepared yet: `unprepared`, a short list), under the lock, until it says yes; returns
 * that class or NULL. */
struct bci_class *bci_classes_find(struct bci_class_table *t, const char *name, bool unprepared,
                                   bool (*match)(const struct bci_class *c, void *ctx), void *ctx);
/* The most classes numbered under one name (HPROF_TABLE_STATS). */
uint32_t bci_classes_most(struct bci_class_table *t);
/* A method of the loaded class: fills in its jmethodID if it is one of c's numbered methods. */
void bci_classes_name_method(struct bci_class *c, const char *name, const char *desc, jmethodID id);

#endif
