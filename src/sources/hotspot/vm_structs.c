/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/vm_structs.h"

#include <dlfcn.h>
#include <string.h>

/* The two tables and the layout of their entries, as libjvm exports them. */
struct tables {
    const char *structs, *types;
    uint64_t stride, type_at, field_at, static_at, offset_at, address_at;
    uint64_t tstride, tname_at, tsize_at;
};

static uint64_t u64(void *lib, const char *name)
{
    const uint64_t *p = dlsym(lib, name);
    return p ? *p : 0;
}

/* libjvm, found through a JVMTI function it implements. */
static void *open_jvm(jvmtiEnv *jvmti)
{
    Dl_info info;
    if (!jvmti || !dladdr((void *)(*jvmti)->GetPhase, &info) || !info.dli_fname) return NULL;
    return dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
}

static bool find_tables(jvmtiEnv *jvmti, struct tables *t)
{
    memset(t, 0, sizeof *t);
    void *lib = open_jvm(jvmti);
    if (!lib) return false;
    const char *const *structs = dlsym(lib, "gHotSpotVMStructs"), *const *types = dlsym(lib, "gHotSpotVMTypes");
    t->structs = structs ? *structs : NULL;
    t->types = types ? *types : NULL;
    t->stride = u64(lib, "gHotSpotVMStructEntryArrayStride");
    t->type_at = u64(lib, "gHotSpotVMStructEntryTypeNameOffset");
    t->field_at = u64(lib, "gHotSpotVMStructEntryFieldNameOffset");
    t->static_at = u64(lib, "gHotSpotVMStructEntryIsStaticOffset");
    t->offset_at = u64(lib, "gHotSpotVMStructEntryOffsetOffset");
    t->address_at = u64(lib, "gHotSpotVMStructEntryAddressOffset");
    t->tstride = u64(lib, "gHotSpotVMTypeEntryArrayStride");
    t->tname_at = u64(lib, "gHotSpotVMTypeEntryTypeNameOffset");
    t->tsize_at = u64(lib, "gHotSpotVMTypeEntrySizeOffset");
    dlclose(lib); /* NOLOAD: the JVM keeps it loaded, and the tables with it */
    return t->structs && t->types && t->stride && t->tstride;
}

static const char *str_at(const char *e, uint64_t at) { return *(const char *const *)(e + at); }

bool vm_structs_field(jvmtiEnv *jvmti, const char *type, const char *field, struct vm_field *out)
{
    struct tables t;
    if (!find_tables(jvmti, &t)) return false;
    for (const char *e = t.structs; str_at(e, t.type_at); e += t.stride) {
        const char *f = str_at(e, t.field_at);
        if (!f || strcmp(str_at(e, t.type_at), type) != 0 || strcmp(f, field) != 0) continue;
        out->is_static = *(const int32_t *)(e + t.static_at) != 0;
        out->offset = *(const uint64_t *)(e + t.offset_at);
        out->address = *(const void *const *)(e + t.address_at);
        return true;
    }
    return false;
}

bool vm_structs_offset(jvmtiEnv *jvmti, const char *type, const char *field, uint64_t *offset)
{
    struct vm_field f;
    if (!vm_structs_field(jvmti, type, field, &f) || f.is_static) return false;
    *offset = f.offset;
    return true;
}

bool vm_structs_type_size(jvmtiEnv *jvmti, const char *type, uint64_t *size)
{
    struct tables t;
    if (!find_tables(jvmti, &t)) return false;
    for (const char *e = t.types; str_at(e, t.tname_at); e += t.tstride) {
        if (strcmp(str_at(e, t.tname_at), type) != 0) continue;
        *size = *(const uint64_t *)(e + t.tsize_at);
        return true;
    }
    return false;
}
