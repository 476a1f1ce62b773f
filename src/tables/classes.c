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

static void class_number(void *p, uint32_t i) { ((struct class_info *)p)->serial = SERIAL_CLASS_BASE + 1 + i; }

/* Whole before it is published: a dump walks the classes while others load. */
int classes_add(struct class_table *t, struct class_info *c, struct ids *ids)
{
    c->object_id = ids_new_object(ids);
    return registry_add_numbered(&t->all, c, class_number) == UINT32_MAX ? -1 : 0;
}
