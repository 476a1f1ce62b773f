/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/method_times.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/cpu/call_replay.h"
#include "sources/host.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/log.h"

/*
 * Handing batches over without waiting. Each thread's stack has a list of batches not
 * yet replayed and a claim: whoever holds the claim replays the stack's batches, in the
 * order they came, and no one else touches the stack meanwhile. A thread hands a batch
 * over by pushing it on the list and trying the claim. If someone holds it, that one
 * replays the batch too. If not, the thread passes its stack to the timer thread while
 * fewer than MAX_QUEUED batches wait, or else replays them itself: a thread that outruns
 * the timer thread pays for its own events, and waits for no one. The timer thread, when
 * too much waits, leaves a stack after each round for its thread to take up at its next
 * batch (or a flush, if it has none), so one fast thread cannot pile batches up
 * behind it either.
 */

#define MAX_QUEUED   64         /* batches waiting for the timer thread, about (bounded memory) */
#define POOLED       MAX_QUEUED /* replayed batches kept for reuse: no more than may wait */
#define POOLED_SLOTS 8192       /* and only those with room for this many slots (64 KiB) */

/* A batch of events handed over by one thread. */
struct batch {
    struct batch *next;
    uint32_t thread_serial;
    int64_t cpu_ns;  /* the thread's CPU time when it handed the batch over */
    int64_t wall_ns; /* and the clock then */
    bool last;       /* the thread records nothing more: its stack can go */
    int nslots, cap; /* slots of events in it, and room for */
    int64_t slots[]; /* an event, then its time if it read the clock */
};

/* One Java thread's (and, once it ended, the next one's). */
struct call_stack {
    struct cmap_node node;
    int64_t tid;
    struct batch *_Atomic pending; /* handed over, not yet replayed; newest first */
    _Atomic bool claimed;          /* someone replays this stack's batches now */
    struct call_stack *next_ready; /* in the timer thread's list, while it holds the claim */
    struct call_stack *next_spare; /* in the list of free stacks, once its thread ended */
    struct call_replay *replay;    /* belongs to the claim's holder */
};

struct method_times {
    struct cmap stacks;
    struct registry all;              /* every stack, for a flush */
    struct call_stack *_Atomic ready; /* stacks passed to the timer thread, newest first */
    sem_t wake;                       /* posted when `ready` gains one */
    _Atomic int queued;               /* batches handed over and not yet replayed */
    _Atomic bool worker;              /* the timer thread runs */
    _Atomic int flushing;             /* flushes under way: the timer thread leaves no stack */
    /* A flush sleeps on `flushed` until something it waits for happened: the last batch
     * queued was replayed, or the timer thread left a stack (flush_news counts them). */
    pthread_mutex_t flush_lock;
    pthread_cond_t flushed;
    uint64_t flush_news;
    pthread_mutex_t spare_lock;
    struct call_stack *spare; /* stacks of threads that ended, for the next ones */
    _Atomic uint64_t ended;   /* threads whose stack was released */
    /* Replayed batches for the next ones: a batch is too large for malloc to keep (about
     * 128 KiB), and memory handed back and taken again costs a page fault per page. */
    pthread_mutex_t pool_lock;
    struct batch *pool[POOLED];
    int npool;
    struct method_costs *costs;                /* timing=sampled */
    bool stats;                                /* HPROF_STACK_STATS: the replays time themselves */
    _Atomic uint64_t replay_ns, replay_events; /* their CPU time, and the events they counted */
};

struct method_times *method_times_new(method_costs_switch *switch_to)
{
    struct method_times *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    if (!(m->costs = method_costs_new(switch_to))) {
        free(m);
        return NULL;
    }
    m->stats = env_switch("HPROF_STACK_STATS", false);
    cmap_init(&m->stacks);
    registry_init(&m->all);
    sem_init(&m->wake, 0, 0);
    pthread_mutex_init(&m->flush_lock, NULL);
    pthread_cond_init(&m->flushed, NULL);
    pthread_mutex_init(&m->spare_lock, NULL);
    pthread_mutex_init(&m->pool_lock, NULL);
    return m;
}

static bool stack_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct call_stack *)n)->tid == *(const int64_t *)key;
}

/* A stack for a new thread: one a thread that ended released, or a new one. A stack
 * released may still be claimed by a flush (which finds nothing to replay in it): its
 * claim is left as it is. */
static struct cmap_node *stack_make(const void *key, void *ctx)
{
    struct method_times *m = ctx;
    pthread_mutex_lock(&m->spare_lock);
    struct call_stack *s = m->spare;
    if (s) m->spare = s->next_spare;
    pthread_mutex_unlock(&m->spare_lock);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        if (!(s->replay = call_replay_new(m->costs)) || registry_add(&m->all, s) == UINT32_MAX) {
            free(s->replay);
            free(s);
            return NULL;
        }
    }
    s->tid = *(const int64_t *)key;
    return &s->node;
}

struct batch *method_times_batch_new(struct method_times *m, int nslots)
{
    struct batch *b = NULL;
    pthread_mutex_lock(&m->pool_lock);
    if (m->npool > 0 && m->pool[m->npool - 1]->cap >= nslots) b = m->pool[--m->npool];
    pthread_mutex_unlock(&m->pool_lock);
    int cap = b ? b->cap : nslots;
    if (!b && !(b = malloc(sizeof *b + (size_t)nslots * sizeof(int64_t)))) return NULL;
    memset(b, 0, sizeof *b);
    b->nslots = nslots;
    b->cap = cap;
    return b;
}

/* A batch replayed or not wanted: a large one is kept for the next, if there is room. */
static void batch_free(struct method_times *m, struct batch *b)
{
    pthread_mutex_lock(&m->pool_lock);
    bool kept = b->cap >= POOLED_SLOTS && m->npool < POOLED;
    if (kept) m->pool[m->npool++] = b;
    pthread_mutex_unlock(&m->pool_lock);
    if (!kept) free(b);
}

int64_t *method_times_batch_slots(struct batch *b) { return b->slots; }

/* Replays a batch of the stack's thread (the claim held), and with HPROF_STACK_STATS the
 * CPU time that took. */
static void replay(struct host *h, JNIEnv *jni, struct call_stack *s, struct batch *b)
{
    struct method_times *m = host_method_times(h);
    struct replay_batch rb = {b->slots, b->nslots, b->cpu_ns, b->wall_ns, b->thread_serial};
    if (!m->stats) {
        call_replay_batch(h, jni, s->replay, &rb);
        return;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    uint64_t events = call_replay_batch(h, jni, s->replay, &rb);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    atomic_fetch_add(&m->replay_ns, (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec));
    atomic_fetch_add(&m->replay_events, events);
}

/* The stack's batches handed over so far, oldest first, taken off its list. */
static struct batch *take_pending(struct call_stack *s)
{
    struct batch *newest = atomic_exchange(&s->pending, NULL), *oldest = NULL;
    while (newest) {
        struct batch *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    return oldest;
}

static bool too_much_waits(struct method_times *m) { return atomic_load(&m->queued) > MAX_QUEUED; }

/* Wakes the flushes under way to look again. */
static void wake_flush(struct method_times *m)
{
    pthread_mutex_lock(&m->flush_lock);
    m->flush_news++;
    pthread_cond_broadcast(&m->flushed);
    pthread_mutex_unlock(&m->flush_lock);
}

/*
 * The stack of a thread that ended, its last batch replayed (the claim held): out of the
 * map and emptied for the next thread. The claim goes last, once nothing of the thread
 * is left.
 */
static void release(struct method_times *m, struct call_stack *s)
{
    int64_t tid = s->tid;
    cmap_remove(&m->stacks, hash_mix64((uint64_t)tid), &tid, stack_eq);
    call_replay_clear(s->replay);
    atomic_fetch_add(&m->ended, 1);
    pthread_mutex_lock(&m->spare_lock);
    s->next_spare = m->spare;
    m->spare = s;
    atomic_store(&s->claimed, false);
    pthread_mutex_unlock(&m->spare_lock);
}

/*
 * Replays the stack's batches, the claim held, until there are none left, then lets the
 * claim go. A batch pushed while the claim is let go is either seen by the re-check or
 * finds the claim free itself. The timer thread (`may_leave`) lets go after a round when
 * too much waits: what it leaves came during the round, from a thread that is busy, and
 * that thread's next batch (or a flush) takes the stack up again. After a thread's last
 * batch nothing more comes for it: its stack is released.
 *
 * A flush must hear of both the last batch queued being replayed and a stack left (see
 * method_times_flush): each side stores, then loads what the other stores, in one total
 * order (sequentially consistent atomics), so either the flush sees the news or this
 * side sees the flush.
 */
static void replay_claimed(struct host *h, JNIEnv *jni, struct call_stack *s, bool may_leave)
{
    struct method_times *m = host_method_times(h);
    for (;;) {
        struct batch *b = take_pending(s);
        bool last = false;
        while (b) {
            struct batch *next = b->next;
            replay(h, jni, s, b);
            last |= b->last;
            batch_free(m, b);
            if (atomic_fetch_sub(&m->queued, 1) == 1 && atomic_load(&m->flushing)) wake_flush(m);
            b = next;
        }
        if (last) {
            release(m, s);
            return;
        }
        bool leave = may_leave && too_much_waits(m) && !atomic_load(&m->flushing);
        atomic_store(&s->claimed, false);
        if (leave) {
            if (atomic_load(&m->flushing)) wake_flush(m); /* a flush began meanwhile: it takes the stack */
            return;
        }
        if (!atomic_load(&s->pending) || atomic_exchange(&s->claimed, true)) return;
    }
}

/* Passes a claimed stack to the timer thread. */
static void pass_to_timer(struct method_times *m, struct call_stack *s)
{
    s->next_ready = atomic_load(&m->ready);
    while (!atomic_compare_exchange_weak(&m->ready, &s->next_ready, s)) {}
    sem_post(&m->wake);
}

void method_times_submit(struct host *h, JNIEnv *jni, struct batch *b, int64_t tid, int64_t cpu_ns,
                         uint32_t thread_serial, bool last)
{
    struct method_times *m = host_method_times(h);
    b->cpu_ns = cpu_ns;
    b->wall_ns = (int64_t)clock_ns();
    b->thread_serial = thread_serial;
    b->last = last;
    uint64_t hash = hash_mix64((uint64_t)tid);
    /* A thread's end with nothing to replay and no stack: nothing to release. */
    struct call_stack *s =
        (struct call_stack *)(b->nslots == 0 ? cmap_find(&m->stacks, hash, &tid, stack_eq)
                                             : cmap_intern(&m->stacks, hash, &tid, stack_eq, stack_make, m, NULL));
    if (!s) { /* out of memory, or nothing to do */
        batch_free(m, b);
        return;
    }
    atomic_fetch_add(&m->queued, 1);
    b->next = atomic_load(&s->pending);
    while (!atomic_compare_exchange_weak(&s->pending, &b->next, b)) {}
    if (atomic_exchange(&s->claimed, true)) return; /* its holder replays it */
    if (atomic_load(&m->worker) && !too_much_waits(m))
        pass_to_timer(m, s);
    else
        replay_claimed(h, jni, s, false);
}

void method_times_log_stats(struct host *h)
{
    struct method_times *m = host_method_times(h);
    if (!m) return;
    if (env_switch("HPROF_STACK_STATS", false)) {
        log_plain("HPROF: cpu=times call stacks: %u made, %llu given up by threads that ended", registry_count(&m->all),
                  (unsigned long long)atomic_load(&m->ended));
        struct replay_stats sum = {0};
        for (uint32_t i = 0, n = registry_count(&m->all); i < n; i++) {
            const struct call_stack *s = registry_get(&m->all, i);
            call_replay_add_stats(s->replay, &sum);
        }
        log_plain(
            "HPROF: cpu=times steps found: %llu by hint, %llu by hash; at most %u edges in a stack, full %u times",
            (unsigned long long)sum.by_hint, (unsigned long long)sum.by_hash, sum.most_edges, sum.full);
        uint64_t ns = atomic_load(&m->replay_ns), events = atomic_load(&m->replay_events);
        log_plain("HPROF: cpu=times replay: %llu events in %.3f s of CPU, %.1f ns an event", (unsigned long long)events,
                  ns / 1e9, events ? (double)ns / events : 0.0);
    }
    if (method_costs_wanted(h->opt) && host_bci_classes(h) && env_switch("HPROF_TIMING_STATS", false))
        method_costs_log(h, m->costs);
}

/* The timer thread: replays the stacks passed to it, in the order they came. */
static void JNICALL timer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct method_times *m = host_method_times(h);
    for (;;) {
        while (sem_wait(&m->wake) != 0) {} /* EINTR */
        struct call_stack *newest = atomic_exchange(&m->ready, NULL), *s = NULL;
        while (newest) { /* oldest first */
            struct call_stack *next = newest->next_ready;
            newest->next_ready = s;
            s = newest;
            newest = next;
        }
        while (s) {
            struct call_stack *next = s->next_ready; /* read first: once let go, s may be passed again */
            replay_claimed(h, jni, s, true);
            s = next;
        }
    }
}

int method_times_start(struct host *h, JNIEnv *jni)
{
    /* Until it runs, threads replay their batches themselves. */
    if (!host_start_thread(h, jni, "HPROF method timer", timer_main, h)) return -1;
    atomic_store(&host_method_times(h)->worker, true);
    return 0;
}

/* Stacks the timer thread left to their threads: back to it now. Without a timer thread
 * no stack is left, and the batches under way are being replayed. */
static void take_left_stacks(struct method_times *m)
{
    uint32_t n = atomic_load(&m->worker) ? registry_count(&m->all) : 0;
    for (uint32_t i = 0; i < n; i++) {
        struct call_stack *s = registry_get(&m->all, i);
        if (atomic_load(&s->pending) && !atomic_exchange(&s->claimed, true)) pass_to_timer(m, s);
    }
}

/* Sleeps until every batch queued is replayed: woken when the count falls to none, or
 * when the timer thread left a stack, which is then taken back (replay_claimed). */
void method_times_flush(struct host *h)
{
    struct method_times *m = host_method_times(h);
    if (!m) return;
    atomic_fetch_add(&m->flushing, 1);
    pthread_mutex_lock(&m->flush_lock);
    while (atomic_load(&m->queued) > 0) {
        uint64_t seen = m->flush_news;
        pthread_mutex_unlock(&m->flush_lock);
        take_left_stacks(m);
        pthread_mutex_lock(&m->flush_lock);
        while (m->flush_news == seen && atomic_load(&m->queued) > 0) pthread_cond_wait(&m->flushed, &m->flush_lock);
    }
    pthread_mutex_unlock(&m->flush_lock);
    atomic_fetch_sub(&m->flushing, 1);
}
