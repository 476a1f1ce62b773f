/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/interp_frame.h"
#include "sources/hotspot/code_heap.h"
#include "sources/hotspot/vm_structs.h"

#include <sys/uio.h>
#include <unistd.h>

bool interp_layout_init(jvmtiEnv *jvmti, struct interp_layout *l)
{
    *l = (struct interp_layout){0};
#if defined(__x86_64__)
    struct code_heap c;
    if (!code_heap_find(jvmti, &c) || !c.interp_lo) return false;
    l->code_lo = c.interp_lo;
    l->code_hi = c.interp_hi;
    l->ok = vm_structs_offset(jvmti, "Method", "_constMethod", &l->const_method) &&
        vm_structs_offset(jvmti, "ConstMethod", "_constants", &l->constants) &&
        vm_structs_offset(jvmti, "ConstMethod", "_method_idnum", &l->idnum) &&
        vm_structs_offset(jvmti, "ConstantPool", "_pool_holder", &l->holder) &&
        vm_structs_offset(jvmti, "InstanceKlass", "_methods_jmethod_ids", &l->jmethod_ids) &&
        vm_structs_type_size(jvmti, "ConstMethod", &l->const_size);
#endif
    return l->ok;
}

/* n bytes at addr, or false where nothing is mapped (a wrong guess of the layout): the
 * kernel copies them, so that a bad address fails the call instead of faulting. */
static bool read_at(uintptr_t addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    return addr && process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static bool read_word(uintptr_t addr, uintptr_t *out) { return read_at(addr, out, sizeof *out); }

bool interp_frame_is(const struct interp_layout *l, uintptr_t method, uintptr_t bcp, jmethodID id, jlocation bci)
{
    uintptr_t cm, cp, holder, ids, count, found;
    uint16_t idnum;
    /* A native method's frame (location -1 in a walk) points at where bytecode would
     * start, or has no bytecode pointer. */
    bool native = bci == -1;
    if (!l->ok || !id || (bci < 0 && !native) || !read_word(method + l->const_method, &cm) ||
        bcp != (native && bcp == 0 ? 0 : cm + l->const_size + (uintptr_t)(native ? 0 : bci)))
        return false;
    if (!read_word(cm + l->constants, &cp) || !read_at(cm + l->idnum, &idnum, sizeof idnum) ||
        !read_word(cp + l->holder, &holder) || !read_word(holder + l->jmethod_ids, &ids))
        return false;
    /* The array's first word is its length; the ID of method number i follows at i + 1. */
    return read_word(ids, &count) && idnum < count && read_word(ids + (idnum + 1u) * sizeof(uintptr_t), &found) &&
        found == (uintptr_t)id;
}
