#include "sources/vm_flags.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where the flags are, as HotSpot's tables say. */
struct flag_table {
    const char *flags;               /* JVMFlag flags[] */
    size_t count, stride;
    uint64_t name_at, addr_at;       /* offsets of const char *_name and void *_addr */
};

static const void *sym(void *lib, const char *name) { return lib ? dlsym(lib, name) : NULL; }

static uint64_t u64(void *lib, const char *name)
{
    const uint64_t *p = sym(lib, name);
    return p ? *p : 0;
}

/* libjvm, found through a JVMTI function it implements. */
static void *open_jvm(jvmtiEnv *jvmti)
{
    Dl_info info;
    if (!jvmti || !dladdr((void *)(*jvmti)->GetPhase, &info) || !info.dli_fname) return NULL;
    return dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
}

static bool find_table(jvmtiEnv *jvmti, struct flag_table *t)
{
    memset(t, 0, sizeof *t);
    void *lib = open_jvm(jvmti);
    const char *const *structs = sym(lib, "gHotSpotVMStructs");
    const char *const *types = sym(lib, "gHotSpotVMTypes");
    uint64_t stride = u64(lib, "gHotSpotVMStructEntryArrayStride"), type_at = u64(lib, "gHotSpotVMStructEntryTypeNameOffset"),
             field_at = u64(lib, "gHotSpotVMStructEntryFieldNameOffset"),
             offset_at = u64(lib, "gHotSpotVMStructEntryOffsetOffset"),
             address_at = u64(lib, "gHotSpotVMStructEntryAddressOffset");
    uint64_t tstride = u64(lib, "gHotSpotVMTypeEntryArrayStride"), tname_at = u64(lib, "gHotSpotVMTypeEntryTypeNameOffset"),
             tsize_at = u64(lib, "gHotSpotVMTypeEntrySizeOffset");
    bool ok = structs && *structs && types && *types && stride && tstride;
    const void *flags_at = NULL, *count_at = NULL;
    bool have_name = false, have_addr = false;
    for (const char *e = ok ? *structs : NULL; e && *(const char *const *)(e + type_at); e += stride) {
        const char *type = *(const char *const *)(e + type_at), *field = *(const char *const *)(e + field_at);
        if (!field || strcmp(type, "JVMFlag") != 0) continue;
        if (strcmp(field, "flags") == 0) flags_at = *(const void *const *)(e + address_at);
        else if (strcmp(field, "numFlags") == 0) count_at = *(const void *const *)(e + address_at);
        else if (strcmp(field, "_name") == 0) {
            t->name_at = *(const uint64_t *)(e + offset_at);
            have_name = true;
        } else if (strcmp(field, "_addr") == 0) {
            t->addr_at = *(const uint64_t *)(e + offset_at);
            have_addr = true;
        }
    }
    for (const char *e = ok ? *types : NULL; e && *(const char *const *)(e + tname_at); e += tstride)
        if (strcmp(*(const char *const *)(e + tname_at), "JVMFlag") == 0) t->stride = *(const uint64_t *)(e + tsize_at);
    if (lib) dlclose(lib);
    if (!flags_at || !count_at || !have_name || !have_addr || !t->stride) return false;
    t->flags = *(const char *const *)flags_at;
    t->count = *(const size_t *)count_at;
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
    char *list = malloc(n);                 /* the VM keeps it for good */
    if (!list) return false;
    strcpy(list, old ? old : "");
    if (old) strcat(list, ",");
    strcat(list, items);
    *v = list;
    return true;
}
