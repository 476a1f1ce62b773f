/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/thread_anchor.h"

#include <string.h>

#include "sources/hotspot/running_threads.h"
#include "sources/hotspot/vm_structs.h"

bool thread_anchor_find(jvmtiEnv *jvmti, JNIEnv *jni, struct thread_anchor *out)
{
    memset(out, 0, sizeof *out);
    struct vm_field anchor, sp, pc;
    if (!vm_structs_field(jvmti, "JavaThread", "_anchor", &anchor) ||
        !vm_structs_field(jvmti, "JavaFrameAnchor", "_last_Java_sp", &sp) ||
        !vm_structs_field(jvmti, "JavaFrameAnchor", "_last_Java_pc", &pc) || anchor.is_static || sp.is_static ||
        pc.is_static || !running_threads_env_offset(jvmti, jni, &out->env_at))
        return false;
    out->sp_at = anchor.offset + sp.offset;
    out->pc_at = anchor.offset + pc.offset;
    out->found = true;
    return true;
}
