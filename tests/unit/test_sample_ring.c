/* SPDX-License-Identifier: Apache-2.0 */
/* The sample ring (many producers, one consumer) and the per-thread-ID map. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "unit.h"
#include "util/sample_ring.h"
#include "util/tid_map.h"

#define PRODUCERS    4
#define PER_PRODUCER 200000

static struct sample_ring ring;
static _Atomic int producers_left;

/* Each sample carries its producer and a running number in its frames, so the consumer
 * can tell a torn or repeated slot from a good one. */
static void *produce(void *arg)
{
    long id = (long)arg;
    for (long i = 0; i < PER_PRODUCER; i++) {
        uint64_t ticket;
        struct sample *s;
        while (!(s = sample_ring_claim(&ring, 1, &ticket))) sched_yield();
        s->thread = (uint32_t)id;
        s->nframes = 3;
        for (int f = 0; f < 3; f++) {
            s->frames[f].method = (const void *)(id * 1000 + f);
            s->frames[f].location = (int32_t)i;
        }
        sample_ring_publish(&ring, s, ticket);
    }
    atomic_fetch_sub(&producers_left, 1);
    return NULL;
}

static void test_concurrent(void)
{
    CHECK(sample_ring_init(&ring, 256, 8) == 0, "ring: init");
    atomic_store(&producers_left, PRODUCERS);
    pthread_t t[PRODUCERS];
    for (long i = 0; i < PRODUCERS; i++) pthread_create(&t[i], NULL, produce, (void *)(i + 1));
    long next[PRODUCERS + 1] = {0};
    long got = 0, bad = 0;
    while (got < (long)PRODUCERS * PER_PRODUCER) {
        struct sample *s = sample_ring_next(&ring);
        if (!s) {
            if (atomic_load(&producers_left) == 0 && !sample_ring_next(&ring)) break;
            continue;
        }
        long id = (long)s->thread;
        if (id < 1 || id > PRODUCERS || s->nframes != 3)
            bad++;
        else {
            /* One producer's samples come out in its order, none lost, none twice. */
            for (int f = 0; f < 3; f++)
                if (s->frames[f].method != (const void *)(id * 1000 + f) || s->frames[f].location != next[id]) bad++;
            next[id]++;
        }
        sample_ring_release(&ring, s);
        got++;
    }
    for (int i = 0; i < PRODUCERS; i++) pthread_join(t[i], NULL);
    CHECK(got == (long)PRODUCERS * PER_PRODUCER, "ring: %ld samples from %d producers, all received", got, PRODUCERS);
    CHECK(bad == 0, "ring: every sample whole and in its producer's order (%ld bad)", bad);
    CHECK(sample_ring_used(&ring) == 0, "ring: empty at the end");
    sample_ring_destroy(&ring);
}

static void test_full(void)
{
    struct sample_ring r;
    sample_ring_init(&r, 4, 2);
    uint64_t t;
    int claimed = 0;
    for (int i = 0; i < 6; i++) {
        struct sample *s = sample_ring_claim(&r, 3, &t);
        if (s) {
            s->nframes = 0;
            sample_ring_publish(&r, s, t);
            claimed++;
        }
    }
    uint64_t w = 0;
    CHECK(claimed == 4, "ring: a ring of 4 takes 4 samples (%d)", claimed);
    CHECK(sample_ring_take_refused(&r, &w) == 2 && w == 6, "ring: the 2 refused are counted with their weight");
    CHECK(sample_ring_take_refused(&r, &w) == 0 && w == 0, "ring: the refused count restarts at zero");
    struct sample *s = sample_ring_next(&r);
    CHECK(s && s->weight == 3, "ring: a sample keeps its weight");
    sample_ring_release(&r, s);
    CHECK(sample_ring_claim(&r, 1, &t) != NULL, "ring: a released slot is taken again");
    sample_ring_destroy(&r);
}

struct rec {
    struct tid_entry e;
    long value;
};

static void test_tid_map(void)
{
    struct tid_map m;
    CHECK(tid_map_init(&m, 16, sizeof(struct rec)) == 0, "tid map: init");
    for (int tid = 1; tid <= 16; tid++) {
        struct rec *r = (struct rec *)tid_map_add(&m, tid * 7);
        if (r) {
            r->value = tid;
            tid_map_publish(&r->e);
        }
    }
    int found = 0;
    for (int tid = 1; tid <= 16; tid++) {
        struct rec *r = (struct rec *)tid_map_find(&m, tid * 7);
        found += r && r->value == tid;
    }
    CHECK(found == 16, "tid map: a full map finds all 16 (%d)", found);
    CHECK(tid_map_add(&m, 1000) == NULL, "tid map: a 17th thread is refused");
    CHECK(tid_map_find(&m, 5) == NULL, "tid map: an unknown thread is not found");
    /* Thread churn: records of ended threads are reused, so the map never fills up. */
    int ok = 1;
    for (int round = 0; round < 1000 && ok; round++) {
        struct tid_entry *e = tid_map_find(&m, (round % 16 + 1) * 7);
        tid_map_remove(&m, e);
        struct rec *r = (struct rec *)tid_map_add(&m, 100000 + round);
        ok = r && r->value == 0;
        if (r) tid_map_publish(&r->e);
        tid_map_remove(&m, &r->e);
        r = (struct rec *)tid_map_add(&m, (round % 16 + 1) * 7);
        ok = ok && r;
        if (r) {
            r->value = round % 16 + 1;
            tid_map_publish(&r->e);
        }
    }
    CHECK(ok, "tid map: ended threads' records are reused by new ones (1000 rounds of churn)");
    struct tid_entry *e = tid_map_add(&m, 7);
    CHECK(e && tid_map_find(&m, 7) == NULL, "tid map: a record being filled is not found until published");
    tid_map_publish(e);
    CHECK(tid_map_find(&m, 7) == e, "tid map: the same thread ID gets its old record back");
    tid_map_destroy(&m);
}

int main(void)
{
    test_full();
    test_concurrent();
    test_tid_map();
    return UNIT_DONE();
}
