/* SPDX-License-Identifier: Apache-2.0 */
#include "util/env.h"

#include <stdlib.h>
#include <string.h>

bool env_switch(const char *name, bool otherwise)
{
    const char *v = getenv(name);
    if (!v) return otherwise;
    return *v && strcmp(v, "0") != 0;
}
