/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HotSpot's description of its own structures: the tables it exports for its
 * serviceability agent (gHotSpotVMStructs, gHotSpotVMTypes), found in libjvm by name.
 * They say where a field lies in a VM structure, or where a static one is, for what
 * JVMTI does not give: the command-line flags (vm_flags.c), the OS id of a thread
 * already running when the agent is attached (running_threads.c).
 *
 * The names are HotSpot's own and change between releases (Thread::_osthread was
 * JavaThread::_osthread in JDK 17), so every lookup may fail and callers do without.
 */
#ifndef HPROF_VM_STRUCTS_H
#define HPROF_VM_STRUCTS_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct vm_field {
    bool is_static;
    uint64_t offset;     /* of a field in its structure */
    const void *address; /* of a static field */
};

/* The field of that name in that type (HotSpot's spelling: "Thread", "_osthread"). */
bool vm_structs_field(jvmtiEnv *jvmti, const char *type, const char *field, struct vm_field *out);
/* The offset of an instance (not static) field in its type; false when there is none. */
bool vm_structs_offset(jvmtiEnv *jvmti, const char *type, const char *field, uint64_t *offset);
/* The size of a type, in bytes. */
bool vm_structs_type_size(jvmtiEnv *jvmti, const char *type, uint64_t *size);

#endif
