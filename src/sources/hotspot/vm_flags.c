/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/vm_flags.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/hotspot/vm_structs.h"

/* Where the flags are, as HotSpot's tables say. */
struct flag_table {
    const char *flags; /* JVMFlag flags[] */
    size_t count, stride;
    uint64_t name_at, addr_at; /* offsets of const char *_name and void *_addr */
};

static bool find_table(jvmtiEnv *jvmti, struct flag_table *t)
{
    memset(t, 0, sizeof *t);
    struct vm_field flags, count, name, addr;
    uint64_t stride = 0;
    if (!vm_structs_field(jvmti, "JVMFlag", "flags", &flags) ||
        !vm_structs_field(jvmti, "JVMFlag", "numFlags", &count) ||
        !vm_structs_field(jvmti, "JVMFlag", "_name", &name) || !vm_structs_field(jvmti, "JVMFlag", "_addr", &addr) ||
        !vm_structs_type_size(jvmti, "JVMFlag", &stride) || !flags.address || !count.address || !stride)
        return false;
    t->flags = *(const char *const *)flags.address;
    t->count = *(const size_t *)count.address;
    t->stride = stride;
    t->name_at = name.offset;
    t->addr_at = addr.offset;
    return t->flags && t->count > 0 && t->count < 100000;
}

/* The value of flag name, or NULL. */
static void *flag_value(jvmtiEnv *jvmti, const char *name)
{
    struct flag_table t;
    if (!find_table(jvmti, &t)) return NULL;
    for (size_t i = 0; i < t.count; i++) {
        const char *f = t.flags + i * t.stride;
        const char *fname = *(const char *const *)(f + t.name_at);
        if (fname && strcmp(fname, name) == 0) return *(void *const *)(f + t.addr_at);
    }
    return NULL;
}

bool vm_flags_set_bool(jvmtiEnv *jvmti, const char *name, bool value)
{
    bool *v = flag_value(jvmti, name);
    if (v) *v = value;
    return v != NULL;
}

bool vm_flags_get_bool(jvmtiEnv *jvmti, const char *name, bool *value)
{
    const bool *v = flag_value(jvmti, name);
    if (v) *value = *v;
    return v != NULL;
}

bool vm_flags_get_u64(jvmtiEnv *jvmti, const char *name, unsigned long long *value)
{
    const uint64_t *v = flag_value(jvmti, name);
    if (v) *value = *v;
    return v != NULL;
}

bool vm_flags_add_to_list(jvmtiEnv *jvmti, const char *name, const char *items)
{
    const char **v = flag_value(jvmti, name);
    if (!v) return false;
    const char *old = *v && **v ? *v : NULL;
    size_t n = (old ? strlen(old) + 1 : 0) + strlen(items) + 1;
    char *list = malloc(n); /* the VM keeps it for good */
    if (!list) return false;
    strcpy(list, old ? old : "");
    if (old) strcat(list, ",");
    strcat(list, items);
    *v = list;
    return true;
}
