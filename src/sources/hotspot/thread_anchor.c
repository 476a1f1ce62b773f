/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/hotspot/thread_anchor.h"

#include <string.h>

#include "sources/hotspot/running_threads.h"
#include "sources/hotspot/vm_structs.h"

bool thread_anchor_find(jvmtiEnv *jvmti, JNIEnv *jni, struct thread_anchor *out)
{
    memset(out, 0, sizeof *out);
    uint64_t anchor, sp, pc;
    if (!vm_structs_offset(jvmti, "JavaThread", "_anchor", &anchor) ||
        !vm_structs_offset(jvmti, "JavaFrameAnchor", "_last_Java_sp", &sp) ||
        !vm_structs_offset(jvmti, "JavaFrameAnchor", "_last_Java_pc", &pc) ||
        !running_threads_env_offset(jvmti, jni, &out->env_at))
        return false;
    out->sp_at = anchor + sp;
    out->pc_at = anchor + pc;
    out->found = true;
    return true;
}
