/* SPDX-License-Identifier: Apache-2.0 */
/* The environment switches of DEVELOPERS.md (for tests and diagnosis, not for users). */
#ifndef HPROF_ENV_H
#define HPROF_ENV_H

#include <stdbool.h>

/* A switch: unset gives `otherwise`; "0" or empty is off; anything else is on. */
bool env_switch(const char *name, bool otherwise);

#endif
