/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/host.h"

/* The one pointer to the agent's context that callbacks without one reach it by. Set
 * once at load, before any event is enabled, and never changed. */
static struct host *installed;

void host_install(struct host *h) { installed = h; }

struct host *host_get(void) { return installed; }

bool host_is_own_current(struct host *h, JNIEnv *jni, jthread current)
{
    static _Thread_local signed char known; /* 0: not asked yet, 1: ours, -1: not */
    if (!known) known = host_is_own_thread(h, jni, current) ? 1 : -1;
    return known > 0;
}
