/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the files that build the index read of the dump's records once they are indexed:
 * a CLASS DUMP's statics and fields, an instance's field data. The lookups others use
 * (an_find, an_string, an_field, ...) are in analyze.h.
 */
#ifndef HPROF_ANALYZE_LOOKUP_H
#define HPROF_ANALYZE_LOOKUP_H

#include "analyze.h"
#include "analyze_read.h"

/* A cursor on a CLASS DUMP at off, past its constant pool: at the count of its statics. */
struct cur an_statics_at(const struct an_heap *h, uint64_t off);
/* The same past its statics too: at the count of its instance fields. */
struct cur an_fields_at(const struct an_heap *h, uint64_t off);
/* The bytes of an instance's field data (NULL for other objects). */
const uint8_t *an_instance_data(const struct an_heap *h, uint32_t o, uint32_t *len);

#endif
