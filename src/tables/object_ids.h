/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one counter every object ID comes from: threads and classes as they are entered,
 * heap objects as a heap dump names them (sources/heapdump/jdk_dumper.c takes a block at once).
 */
#ifndef HPROF_OBJECT_IDS_H
#define HPROF_OBJECT_IDS_H

#include <stdatomic.h>
#include <stdint.h>

#include "tables/ids.h"

struct ids {
    _Atomic uint32_t next_object;
};

static inline void ids_init(struct ids *ids) { atomic_init(&ids->next_object, ID_OBJECT_BASE + 1); }
static inline uint32_t ids_new_object(struct ids *ids)
{
    return atomic_fetch_add_explicit(&ids->next_object, 1, memory_order_relaxed);
}

#endif
