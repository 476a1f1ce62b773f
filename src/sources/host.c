/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/host.h"

/* The one pointer to the agent's context that callbacks without one reach it by. Set
 * once at load, before any event is enabled, and never changed. */
static struct host *installed;

void host_install(struct host *h) { installed = h; }

struct host *host_get(void) { return installed; }
