/*
 * Classes hprof has named: serial number, object ID, name and source file.
 *
 * sources/resolve.c names a class through JVMTI on first sight and tags the class
 * object with its entry's address (see tags.h), so a class is found from its jclass
 * by one tag lookup, and two classes of the same name from different loaders stay apart.
 */
#ifndef HPROF_CLASSES_H
#define HPROF_CLASSES_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/registry.h"

struct class_info {
    uint32_t serial;       /* 100001 ... */
    uint32_t object_id;    /* the class object's ID */
    char *signature;       /* "Ljava/lang/String;" */
    char *name;            /* "java.lang.String" */
    char *source_file;     /* "String.java", or NULL when the class has none */
    bool load_written;     /* binary LOAD CLASS written (output lock held) */
    _Atomic int64_t instance_size;   /* bytes of every instance, once measured; 0: not yet
                                       (never set for arrays and java.lang.Class) */
    _Atomic(jweak) mirror;           /* the class, weakly, once someone needed it (heap=sites
                                       compares classes with it, far cheaper than a tag) */
    _Atomic uint8_t clone_override;  /* heap=sites: 0 not asked yet, 1 its clone() is
                                       Object's, 2 it has its own */
};

struct class_table {
    /* Held by sources/resolve.c from its check that a class has no entry yet to its
     * tagging with the new one, so a class is entered once. Nothing slow runs under it. */
    pthread_mutex_t naming;
    struct registry all;
    struct class_info unknown;   /* stands in when JVMTI cannot tell */
};

struct ids;

void classes_init(struct class_table *t);
/* Numbers a class named by the caller: its serial and object ID. -1 when the table is
 * full (c is still the caller's then). */
int classes_add(struct class_table *t, struct class_info *c, struct ids *ids);
uint32_t classes_count(struct class_table *t);
struct class_info *classes_at(struct class_table *t, uint32_t i);

#endif
