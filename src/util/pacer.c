/* SPDX-License-Identifier: Apache-2.0 */
#include "util/pacer.h"

#include <errno.h>

#include "util/clock.h"

void pacer_init(struct pacer *p)
{
    pthread_mutex_init(&p->lock, NULL);
    clock_cond_init(&p->wake);
    p->stop = p->running = false;
}

bool pacer_begin(struct pacer *p)
{
    pthread_mutex_lock(&p->lock);
    bool fresh = !p->running;
    p->running = true;
    p->stop = false;
    pthread_mutex_unlock(&p->lock);
    return fresh;
}

bool pacer_pause(struct pacer *p, int ms)
{
    pthread_mutex_lock(&p->lock);
    struct timespec until;
    clock_deadline_after(&until, ms);
    while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &until) != ETIMEDOUT) {}
    bool go_on = !p->stop;
    pthread_mutex_unlock(&p->lock);
    return go_on;
}

void pacer_end(struct pacer *p)
{
    pthread_mutex_lock(&p->lock);
    p->running = false;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

void pacer_stop(struct pacer *p, int wait_ms)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    struct timespec until;
    clock_deadline_after(&until, wait_ms);
    while (p->running && pthread_cond_timedwait(&p->wake, &p->lock, &until) != ETIMEDOUT) {}
    pthread_mutex_unlock(&p->lock);
}
