/* SPDX-License-Identifier: Apache-2.0 */
/* What a heap dump's class views own (tables/heap_records.h). */
#include "tables/heap_records.h"

#include <stdlib.h>

void hd_class_free(struct hd_class *c)
{
    for (uint32_t i = 0; c->fields && i < c->nfields; i++) free(c->fields[i].name);
    for (uint32_t i = 0; c->statics && i < c->nstatics; i++) free(c->statics[i].name);
    free(c->fields);
    free(c->statics);
    free(c->static_values);
    free(c->inst_slot_off);
    free(c->inst_slot_type);
    free(c->static_slot_off);
    free(c->static_slot_type);
}
