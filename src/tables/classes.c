#include "tables/classes.h"

#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"

void classes_init(struct class_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->naming, NULL);
    registry_init(&t->all);
    t->unknown.serial = SERIAL_CLASS_BASE;   /* never written as a LOAD CLASS */
    t->unknown.name = "<Unknown Class>";
    t->unknown.signature = "L<Unknown Class>;";
}

uint32_t classes_count(struct class_table *t) { return registry_count(&t->all); }
struct class_info *classes_at(struct class_table *t, uint32_t i) { return registry_get(&t->all, i); }

int classes_add(struct class_table *t, struct class_info *c, struct ids *ids)
{
    uint32_t i = registry_add(&t->all, c);
    if (i == UINT32_MAX) return -1;
    c->serial = SERIAL_CLASS_BASE + 1 + i;
    c->object_id = ids_new_object(ids);
    return 0;
}
