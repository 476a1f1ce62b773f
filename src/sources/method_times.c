#include "sources/method_times.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/host.h"
#include "tables/bci_classes.h"

#define CACHE_SLOTS 1024
#define MAX_STACK (1 << 20)

struct call_frame {
    uint32_t cnum, mnum;
    jmethodID method;     /* named when the entry is processed */
    int64_t start;        /* nanoTime at entry */
    int64_t callees;      /* time spent in callees so far */
};

struct call_stack {
    struct cmap_node node;
    int64_t tid;
    pthread_mutex_t lock;
    struct call_frame *frames;
    int n, cap;
    int64_t cpu_last, wall_last;     /* for the CPU/wall ratio of each batch */
    jvmtiFrameInfo key[64];          /* scratch: the trace being looked up */
    struct {
        uint64_t hash;
        struct trace *trace;
        uint64_t calls, ns;          /* not yet added to the trace (one atomic per batch) */
    } cache[CACHE_SLOTS];            /* recent traces, in front of the shared table */
};

/* A batch of events handed over by one thread, waiting for the timer thread. */
struct batch {
    struct batch *next;
    int64_t tid;
    uint32_t thread_serial;
    int64_t cpu_ns;            /* the thread's CPU time when it handed the batch over */
    int64_t wall_ns;           /* and the wall clock then */
    int npairs;
    int64_t pairs[];
};

#define MAX_QUEUED 64          /* batches; past this, threads wait (bounded memory) */

struct method_times {
    struct cmap stacks;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct batch *head, *tail;
    int queued;
    bool worker;               /* the timer thread runs: batches are queued for it */
    bool busy;                 /* it is processing one */
};

struct method_times *method_times_new(void)
{
    struct method_times *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    cmap_init(&m->stacks);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->changed, NULL);
    return m;
}

static bool stack_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct call_stack *)n)->tid == *(const int64_t *)key;
}

static struct cmap_node *stack_make(const void *key, void *ctx)
{
    struct call_stack *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->tid = *(const int64_t *)key;
    pthread_mutex_init(&s->lock, NULL);
    return &s->node;
}

static jmethodID method_of(struct host *h, uint32_t cnum, uint32_t mnum)
{
    struct bci_class *c = bci_classes_get(h->bci_classes, cnum);
    if (!c || mnum >= c->nmethods) return NULL;
    return atomic_load_explicit(&c->ids[mnum], memory_order_relaxed);
}

static void flush_slot(struct call_stack *s, unsigned slot)
{
    struct trace *t = s->cache[slot].trace;
    if (!t || (!s->cache[slot].calls && !s->cache[slot].ns)) return;
    atomic_fetch_add_explicit(&t->calls, s->cache[slot].calls, memory_order_relaxed);
    atomic_fetch_add_explicit(&t->cost_ns, s->cache[slot].ns, memory_order_relaxed);
    s->cache[slot].calls = s->cache[slot].ns = 0;
}

/* Adds one call of frame `top` (and the frames under it) to its trace, through the
 * per-thread cache, which adds up counts and hands them to the trace once per batch. */
static void count_call(struct host *h, JNIEnv *jni, struct call_stack *s, int top, uint32_t thread_serial,
                       uint64_t ns)
{
    int depth = h->opt->cpu == CPU_OLD ? 2 : host_depth(h);
    if (depth > (int)(sizeof s->key / sizeof s->key[0])) depth = (int)(sizeof s->key / sizeof s->key[0]);
    int n = 0;
    for (int i = top; i >= 0 && n < depth; i--, n++) {
        s->key[n].method = s->frames[i].method;
        s->key[n].location = -1;
    }
    /* A cheap hash for the cache; the table behind it has its own. */
    uint64_t hash = thread_serial * 0x9E3779B97F4A7C15ULL + (uint64_t)n;
    for (int i = 0; i < n; i++) hash = (hash ^ (uint64_t)(uintptr_t)s->key[i].method) * 0xff51afd7ed558ccdULL;
    hash ^= hash >> 29;
    unsigned slot = (unsigned)(hash % CACHE_SLOTS);
    struct trace *t = s->cache[slot].trace;
    if (!t || s->cache[slot].hash != hash || !traces_key_equals(t, thread_serial, s->key, n)) {
        flush_slot(s, slot);
        t = traces_of(&h->t.traces, h->jvmti, jni, thread_serial, s->key, n);
        if (!t) return;
        s->cache[slot].hash = hash;
        s->cache[slot].trace = t;
    }
    s->cache[slot].calls++;
    s->cache[slot].ns += ns;
}

static void push(struct host *h, struct call_stack *s, uint32_t cnum, uint32_t mnum, int64_t when)
{
    if (s->n == s->cap) {
        if (s->cap >= MAX_STACK) return;
        int cap = s->cap ? s->cap * 2 : 256;
        struct call_frame *f = realloc(s->frames, (size_t)cap * sizeof *f);
        if (!f) return;
        s->frames = f;
        s->cap = cap;
    }
    s->frames[s->n++] = (struct call_frame){cnum, mnum, method_of(h, cnum, mnum), when, 0};
}

/* Closes frame i (and every frame above it) at time `when`. */
static void pop_to(struct host *h, JNIEnv *jni, struct call_stack *s, int i, int64_t when, double ratio,
                   uint32_t thread_serial)
{
    while (s->n > i) {
        int top = s->n - 1;
        struct call_frame *f = &s->frames[top];
        int64_t total = when - f->start;
        if (total < 0) total = 0;
        int64_t own = total - f->callees;
        if (own < 0) own = 0;
        count_call(h, jni, s, top, thread_serial, (uint64_t)((double)own * ratio));
        if (top > 0) s->frames[top - 1].callees += total;
        s->n = top;
    }
}

static void on_method_exit(struct host *h, JNIEnv *jni, struct call_stack *s, uint32_t cnum, uint32_t mnum,
                    int64_t when, double ratio, uint32_t thread_serial)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (s->frames[i].cnum == cnum && s->frames[i].mnum == mnum) {
            pop_to(h, jni, s, i, when, ratio, thread_serial);
            return;
        }
    }
    /* An exit with no entry (the method began before the Tracker was engaged): ignored. */
}

int64_t method_times_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time over wall time since the thread's previous batch (1 when unknown). */
static double cpu_ratio(struct call_stack *s, const struct batch *b)
{
    double r = 1.0;
    if (b->cpu_ns >= 0) {
        int64_t since = s->wall_last ? s->wall_last : b->pairs[1];
        int64_t dw = b->wall_ns - since, dc = b->cpu_ns - s->cpu_last;
        if (dw > 0 && dc >= 0) r = (double)dc / (double)dw;
        if (r > 1.0) r = 1.0;
        s->cpu_last = b->cpu_ns;
    }
    s->wall_last = b->wall_ns;
    return r;
}

static void process(struct host *h, JNIEnv *jni, struct batch *b)
{
    int64_t tid = b->tid;
    struct call_stack *s = (struct call_stack *)cmap_intern(&h->method_times->stacks, hash_mix64((uint64_t)tid),
                                                            &tid, stack_eq, stack_make, NULL, NULL);
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    double ratio = cpu_ratio(s, b);
    for (int i = 0; i < b->npairs; i++) {
        int64_t ev = b->pairs[2 * i], when = b->pairs[2 * i + 1];
        bool is_exit = ev < 0;
        uint64_t code = (uint64_t)ev & ~(uint64_t)TRACKER_EXIT_BIT;
        uint32_t cnum = (uint32_t)(code >> 16), mnum = (uint32_t)(code & 0xffff);
        if (is_exit) on_method_exit(h, jni, s, cnum, mnum, when, ratio, b->thread_serial);
        else push(h, s, cnum, mnum, when);
    }
    for (unsigned slot = 0; slot < CACHE_SLOTS; slot++) flush_slot(s, slot);
    pthread_mutex_unlock(&s->lock);
}

struct batch *method_times_batch_new(int npairs)
{
    struct batch *b = malloc(sizeof *b + (size_t)npairs * 2 * sizeof(int64_t));
    if (b) {
        memset(b, 0, sizeof *b);
        b->npairs = npairs;
    }
    return b;
}

int64_t *method_times_batch_pairs(struct batch *b) { return b->pairs; }

void method_times_submit(struct host *h, JNIEnv *jni, struct batch *b, int64_t tid, int64_t cpu_ns,
                         uint32_t thread_serial)
{
    struct method_times *m = h->method_times;
    b->tid = tid;
    b->cpu_ns = cpu_ns;
    b->wall_ns = method_times_now_ns();
    b->thread_serial = thread_serial;
    pthread_mutex_lock(&m->lock);
    if (!m->worker) {                    /* no timer thread: do it here */
        pthread_mutex_unlock(&m->lock);
        process(h, jni, b);
        free(b);
        return;
    }
    while (m->queued >= MAX_QUEUED && m->worker) pthread_cond_wait(&m->changed, &m->lock);
    b->next = NULL;
    if (m->tail) m->tail->next = b;
    else m->head = b;
    m->tail = b;
    m->queued++;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
}

/* The timer thread: processes batches in the order threads handed them over. */
static void JNICALL timer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct host *h = arg;
    struct method_times *m = h->method_times;
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->head) pthread_cond_wait(&m->changed, &m->lock);
        struct batch *b = m->head;
        m->head = b->next;
        if (!m->head) m->tail = NULL;
        m->busy = true;
        pthread_mutex_unlock(&m->lock);
        process(h, jni, b);
        free(b);
        pthread_mutex_lock(&m->lock);
        m->queued--;
        m->busy = false;
        pthread_cond_broadcast(&m->changed);
    }
}

int method_times_start(struct host *h, JNIEnv *jni)
{
    struct method_times *m = h->method_times;
    pthread_mutex_lock(&m->lock);
    m->worker = true;
    pthread_mutex_unlock(&m->lock);
    if (!host_start_thread(h, jni, "HPROF method timer", timer_main, h)) {
        pthread_mutex_lock(&m->lock);
        m->worker = false;
        pthread_mutex_unlock(&m->lock);
        return -1;
    }
    return 0;
}

void method_times_flush(struct host *h)
{
    struct method_times *m = h->method_times;
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    while (m->worker && (m->head || m->busy)) pthread_cond_wait(&m->changed, &m->lock);
    pthread_mutex_unlock(&m->lock);
}
