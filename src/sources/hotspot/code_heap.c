/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/code_heap.h"

#include <string.h>

#include "sources/hotspot/vm_structs.h"

/* The value of a static pointer field, or 0. */
static uintptr_t static_pointer(jvmtiEnv *jvmti, const char *type, const char *field)
{
    struct vm_field f;
    if (!vm_structs_field(jvmti, type, field, &f) || !f.is_static || !f.address) return 0;
    return *(const uintptr_t *)f.address;
}

/* The interpreter's StubQueue: its buffer and the buffer's length. */
static void find_interpreter(jvmtiEnv *jvmti, struct code_heap *out)
{
    uint64_t buf, limit;
    uintptr_t queue = static_pointer(jvmti, "AbstractInterpreter", "_code");
    if (!queue || !vm_structs_offset(jvmti, "StubQueue", "_stub_buffer", &buf) ||
        !vm_structs_offset(jvmti, "StubQueue", "_buffer_limit", &limit))
        return;
    uintptr_t lo = *(const uintptr_t *)(queue + buf);
    int32_t len = *(const int32_t *)(queue + limit);
    /* Inside the code cache, or not believed. */
    if (len > 0 && code_heap_has(out, lo) && code_heap_has(out, lo + (uint32_t)len - 1)) {
        out->interp_lo = lo;
        out->interp_hi = lo + (uint32_t)len;
    }
}

/* Each CodeHeap's VirtualSpace (CodeHeap::_memory): where its _low and _high lie. */
static void find_heaps(jvmtiEnv *jvmti, struct code_heap *out)
{
    uint64_t len, data, memory, low, high;
    uintptr_t array = static_pointer(jvmti, "CodeCache", "_heaps");
    if (!array || !vm_structs_offset(jvmti, "GrowableArrayBase", "_len", &len) ||
        !vm_structs_offset(jvmti, "GrowableArray<int>", "_data", &data) ||
        !vm_structs_offset(jvmti, "CodeHeap", "_memory", &memory) ||
        !vm_structs_offset(jvmti, "VirtualSpace", "_low", &low) ||
        !vm_structs_offset(jvmti, "VirtualSpace", "_high", &high))
        return;
    int32_t n = *(const int32_t *)(array + len);
    const uintptr_t *heaps = *(const uintptr_t *const *)(array + data);
    if (n <= 0 || n > CODE_HEAP_MAX || !heaps) return;
    for (int32_t i = 0; i < n; i++) {
        if (!heaps[i]) return;
        uintptr_t space = heaps[i] + memory;
        out->committed_lo[i] = (const volatile uintptr_t *)(space + low);
        out->committed_hi[i] = (const volatile uintptr_t *)(space + high);
    }
    out->nheaps = n;
}

bool code_heap_find(jvmtiEnv *jvmti, struct code_heap *out)
{
    memset(out, 0, sizeof *out);
    uintptr_t lo = static_pointer(jvmti, "CodeCache", "_low_bound");
    uintptr_t hi = static_pointer(jvmti, "CodeCache", "_high_bound");
    if (!lo || hi <= lo) return false;
    out->lo = lo;
    out->hi = hi;
    find_interpreter(jvmti, out);
    find_heaps(jvmti, out);
    return true;
}
