/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/entry_frame.h"

#include "sources/hotspot/vm_structs.h"

bool entry_layout_init(jvmtiEnv *jvmti, struct entry_layout *l)
{
    *l = (struct entry_layout){0};
#if defined(__x86_64__)
    struct vm_field ret;
    uint64_t anchor, sp, pc, fp;
    if (!vm_structs_field(jvmti, "StubRoutines", "_call_stub_return_address", &ret) || !ret.is_static || !ret.address ||
        !vm_structs_offset(jvmti, "JavaCallWrapper", "_anchor", &anchor) ||
        !vm_structs_offset(jvmti, "JavaFrameAnchor", "_last_Java_sp", &sp) ||
        !vm_structs_offset(jvmti, "JavaFrameAnchor", "_last_Java_pc", &pc) ||
        !vm_structs_offset(jvmti, "JavaFrameAnchor", "_last_Java_fp", &fp))
        return false;
    l->stub_return = *(const uintptr_t *)ret.address;
    l->sp_at = anchor + sp;
    l->pc_at = anchor + pc;
    l->fp_at = anchor + fp;
    uint64_t most = sp > pc ? sp : pc;
    l->size = anchor + (most > fp ? most : fp) + sizeof(uintptr_t);
    l->ok = l->stub_return != 0;
#endif
    return l->ok;
}
