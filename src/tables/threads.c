#include "tables/threads.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"

void threads_init(struct thread_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->naming, NULL);
    registry_init(&t->all);
}

uint32_t threads_count(struct thread_table *t) { return registry_count(&t->all); }
struct thread_info *threads_at(struct thread_table *t, uint32_t i) { return registry_get(&t->all, i); }

static int room_for_one_more(struct thread_table *t)
{
    if (t->nlive < t->caplive) return 0;
    uint32_t cap = t->caplive ? t->caplive * 2 : 64;
    struct thread_info **l = realloc(t->live, cap * sizeof *l);
    if (!l) return -1;
    t->live = l;
    t->caplive = cap;
    return 0;
}

static void thread_number(void *p, uint32_t i) { ((struct thread_info *)p)->serial = SERIAL_THREAD_BASE + 1 + i; }

int threads_add(struct thread_table *t, struct thread_info *ti, struct ids *ids)
{
    pthread_mutex_lock(&t->lock);
    /* whole before it is published: threads_at readers take no lock */
    ti->object_id = ids_new_object(ids);
    ti->sampled = true;
    uint32_t i = room_for_one_more(t) == 0 ? registry_add_numbered(&t->all, ti, thread_number) : UINT32_MAX;
    if (i != UINT32_MAX && ti->ref) t->live[t->nlive++] = ti;
    pthread_mutex_unlock(&t->lock);
    return i == UINT32_MAX ? -1 : 0;
}

jthread threads_end(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) {
        if (t->live[i] == ti) {
            t->live[i] = t->live[--t->nlive];
            break;
        }
    }
    jthread r = ti->ref;
    ti->ref = NULL;
    if (r && ti->lent) {             /* the last borrower deletes it */
        ti->ended_ref = r;
        r = NULL;
    }
    pthread_mutex_unlock(&t->lock);
    return r;
}

int threads_lend_sampled(struct thread_table *t, jthread *refs, struct thread_info **infos, int max)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive && n < max; i++) {
        struct thread_info *ti = t->live[i];
        if (!ti->sampled) continue;
        ti->lent++;
        refs[n] = ti->ref;
        infos[n] = ti;
        n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

jthread threads_lend(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    jthread r = ti->ref;
    if (r) ti->lent++;
    pthread_mutex_unlock(&t->lock);
    return r;
}

jthread threads_unlend(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    jthread r = NULL;
    if (--ti->lent == 0) {
        r = ti->ended_ref;
        ti->ended_ref = NULL;
    }
    pthread_mutex_unlock(&t->lock);
    return r;
}

int threads_live_count(struct thread_table *t)
{
    pthread_mutex_lock(&t->lock);
    int n = (int)t->nlive;
    pthread_mutex_unlock(&t->lock);
    return n;
}

void threads_set_sampled_all(struct thread_table *t, bool on)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) t->live[i]->sampled = on;
    pthread_mutex_unlock(&t->lock);
}

bool threads_set_sampled_by_id(struct thread_table *t, uint32_t object_id, bool on)
{
    bool found = false;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) {
        struct thread_info *ti = t->live[i];
        if (ti->object_id == object_id) {
            ti->sampled = on;
            found = true;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return found;
}
