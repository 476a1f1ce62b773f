/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/threads.h"

#include <stdlib.h>
#include <string.h>

#include "tables/ids.h"
#include "tables/object_ids.h"
#include "util/buf.h"

void threads_init(struct thread_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->naming, NULL);
    t->next_serial = SERIAL_THREAD_BASE + 1;
}

/* The lowest slot free: one a reclaimed entry gave back, or a new one (lock held). */
static int take_slot(struct thread_table *t, uint32_t *slot)
{
    if (t->nfree) {
        *slot = t->free_slots[--t->nfree];
        return 0;
    }
    /* room to give it back later, so that the giving back never fails */
    if (!grow_array((void **)&t->free_slots, &t->capfree, t->nslots + 1, sizeof *t->free_slots)) return -1;
    *slot = t->nslots++;
    return 0;
}

int threads_add(struct thread_table *t, struct thread_info *ti, struct ids *ids)
{
    pthread_mutex_lock(&t->lock);
    int rc = -1;
    if (grow_array((void **)&t->live, &t->caplive, t->nlive + 1, sizeof *t->live) && take_slot(t, &ti->slot) == 0) {
        ti->object_id = ids_new_object(ids);
        ti->serial = t->next_serial++;
        ti->sampled = true;
        ti->ended = false;
        t->live[t->nlive++] = ti;
        rc = 0;
    }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void threads_end(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive; i++) {
        if (t->live[i] == ti) {
            t->live[i] = t->live[--t->nlive];
            ti->ended = true;
            ti->next_ended = t->ended;
            t->ended = ti;
            t->nended++;
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
}

void threads_hold(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    ti->lent++;
    pthread_mutex_unlock(&t->lock);
}

void threads_give_back(struct thread_table *t, struct thread_info *const *infos, int n)
{
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < n; i++) infos[i]->lent--;
    pthread_mutex_unlock(&t->lock);
}

void threads_release(struct thread_table *t, struct thread_info *ti) { threads_give_back(t, &ti, 1); }

static int lend_live(struct thread_table *t, jthread *refs, struct thread_info **infos, int max, bool sampled_only)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->nlive && n < max; i++) {
        struct thread_info *ti = t->live[i];
        if (sampled_only && !ti->sampled) continue;
        ti->lent++;
        refs[n] = ti->ref;
        infos[n] = ti;
        n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

int threads_lend_sampled(struct thread_table *t, jthread *refs, struct thread_info **infos, int max)
{
    return lend_live(t, refs, infos, max, true);
}

int threads_lend_live(struct thread_table *t, jthread *refs, struct thread_info **infos, int max)
{
    return lend_live(t, refs, infos, max, false);
}

jthread threads_lend(struct thread_table *t, struct thread_info *ti)
{
    pthread_mutex_lock(&t->lock);
    jthread r = ti->ended ? NULL : ti->ref;
    if (r) ti->lent++;
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

void threads_read_begin(struct thread_table *t)
{
    pthread_mutex_lock(&t->lock);
    t->readers++;
    pthread_mutex_unlock(&t->lock);
}

void threads_read_end(struct thread_table *t)
{
    pthread_mutex_lock(&t->lock);
    t->readers--;
    pthread_mutex_unlock(&t->lock);
}

struct thread_info *threads_find_ended(struct thread_table *t, bool (*same)(jthread ref, void *arg), void *arg)
{
    pthread_mutex_lock(&t->lock);
    struct thread_info *ti = t->ended;
    while (ti && !(ti->ref && same(ti->ref, arg))) ti = ti->next_ended;
    if (ti) ti->lent++;
    pthread_mutex_unlock(&t->lock);
    return ti;
}

int threads_ended_take(struct thread_table *t, struct thread_info **out, int max)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (struct thread_info *ti = t->ended; ti && n < max; ti = ti->next_ended) {
        if (ti->lent) continue;
        ti->lent++;
        out[n++] = ti;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* Takes ti off the ended list and gives its slot back (lock held). */
static void unlink_ended(struct thread_table *t, struct thread_info *ti)
{
    if (t->ended == ti) {
        t->ended = ti->next_ended;
    } else {
        struct thread_info *prev = t->ended;
        while (prev->next_ended != ti) prev = prev->next_ended;
        prev->next_ended = ti->next_ended;
    }
    t->nended--;
    t->free_slots[t->nfree++] = ti->slot; /* room made by take_slot */
}

struct thread_info *threads_ended_reclaim(struct thread_table *t, struct thread_info **held, const bool *gone, int n)
{
    struct thread_info *out = NULL;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < n; i++) {
        struct thread_info *ti = held[i];
        if (--ti->lent || !gone[i] || t->readers) continue;
        unlink_ended(t, ti);
        ti->next_ended = out;
        out = ti;
    }
    pthread_mutex_unlock(&t->lock);
    return out;
}

void threads_free(struct thread_info *ti)
{
    free(ti->name);
    free(ti->group);
    free(ti->parent_group);
    free(ti);
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
