#include "sources/method_times.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent.h"
#include "tables/bci_classes.h"

#define CACHE_SLOTS 1024
#define MAX_STACK (1 << 20)

struct call_frame {
    uint32_t cnum, mnum;
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
    } cache[CACHE_SLOTS];            /* recent traces, in front of the shared table */
};

struct method_times {
    struct cmap stacks;
};

struct method_times *method_times_new(void)
{
    struct method_times *m = calloc(1, sizeof *m);
    if (m) cmap_init(&m->stacks);
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

static jmethodID method_of(struct agent *a, uint32_t cnum, uint32_t mnum)
{
    struct bci_class *c = bci_classes_get(a->bci_classes, cnum);
    if (!c || mnum >= c->nmethods) return NULL;
    return atomic_load_explicit(&c->ids[mnum], memory_order_relaxed);
}

/* The trace of frame `top` and those under it, through the per-thread cache. */
static struct trace *trace_at(struct agent *a, JNIEnv *jni, struct call_stack *s, int top, uint32_t thread_serial)
{
    int depth = a->opt.cpu == CPU_OLD ? 2 : a->opt.depth;
    if (depth > (int)(sizeof s->key / sizeof s->key[0])) depth = (int)(sizeof s->key / sizeof s->key[0]);
    int n = 0;
    for (int i = top; i >= 0 && n < depth; i--, n++) {
        s->key[n].method = method_of(a, s->frames[i].cnum, s->frames[i].mnum);
        s->key[n].location = -1;
    }
    uint64_t h = traces_key_hash(thread_serial, s->key, n);
    unsigned slot = (unsigned)(h % CACHE_SLOTS);
    struct trace *t = s->cache[slot].trace;
    if (t && s->cache[slot].hash == h && traces_key_equals(t, thread_serial, s->key, n)) return t;
    t = traces_of(&a->traces, a->jvmti, jni, thread_serial, s->key, n);
    if (t) {
        s->cache[slot].hash = h;
        s->cache[slot].trace = t;
    }
    return t;
}

static void push(struct call_stack *s, uint32_t cnum, uint32_t mnum, int64_t when)
{
    if (s->n == s->cap) {
        if (s->cap >= MAX_STACK) return;
        int cap = s->cap ? s->cap * 2 : 256;
        struct call_frame *f = realloc(s->frames, (size_t)cap * sizeof *f);
        if (!f) return;
        s->frames = f;
        s->cap = cap;
    }
    s->frames[s->n++] = (struct call_frame){cnum, mnum, when, 0};
}

/* Closes frame i (and every frame above it) at time `when`. */
static void pop_to(struct agent *a, JNIEnv *jni, struct call_stack *s, int i, int64_t when, double ratio,
                   uint32_t thread_serial)
{
    while (s->n > i) {
        int top = s->n - 1;
        struct call_frame *f = &s->frames[top];
        int64_t total = when - f->start;
        if (total < 0) total = 0;
        int64_t own = total - f->callees;
        if (own < 0) own = 0;
        struct trace *t = trace_at(a, jni, s, top, thread_serial);
        if (t) {
            atomic_fetch_add_explicit(&t->calls, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&t->cost_ns, (uint64_t)((double)own * ratio), memory_order_relaxed);
        }
        if (top > 0) s->frames[top - 1].callees += total;
        s->n = top;
    }
}

static void on_method_exit(struct agent *a, JNIEnv *jni, struct call_stack *s, uint32_t cnum, uint32_t mnum,
                    int64_t when, double ratio, uint32_t thread_serial)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (s->frames[i].cnum == cnum && s->frames[i].mnum == mnum) {
            pop_to(a, jni, s, i, when, ratio, thread_serial);
            return;
        }
    }
    /* An exit with no entry (the method began before the Tracker was engaged): ignored. */
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time over wall time since the thread's previous batch (1 when unknown). */
static double cpu_ratio(struct call_stack *s, int64_t cpu_ns, int64_t first_event)
{
    int64_t wall = monotonic_ns();
    double r = 1.0;
    if (cpu_ns >= 0) {
        int64_t since = s->wall_last ? s->wall_last : first_event;
        int64_t dw = wall - since, dc = cpu_ns - s->cpu_last;
        if (dw > 0 && dc >= 0) r = (double)dc / (double)dw;
        if (r > 1.0) r = 1.0;
        s->cpu_last = cpu_ns;
    }
    s->wall_last = wall;
    return r;
}

void method_times_batch(struct agent *a, JNIEnv *jni, int64_t tid, const int64_t *pairs, int npairs,
                        int64_t cpu_ns, uint32_t thread_serial)
{
    if (npairs <= 0) return;
    struct call_stack *s = (struct call_stack *)cmap_intern(&a->method_times->stacks, hash_mix64((uint64_t)tid),
                                                            &tid, stack_eq, stack_make, NULL, NULL);
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    double ratio = cpu_ratio(s, cpu_ns, pairs[1]);
    for (int i = 0; i < npairs; i++) {
        int64_t ev = pairs[2 * i], when = pairs[2 * i + 1];
        bool is_exit = ev < 0;
        uint64_t code = (uint64_t)ev & ~(uint64_t)TRACKER_EXIT_BIT;
        uint32_t cnum = (uint32_t)(code >> 16), mnum = (uint32_t)(code & 0xffff);
        if (is_exit) on_method_exit(a, jni, s, cnum, mnum, when, ratio, thread_serial);
        else push(s, cnum, mnum, when);
    }
    pthread_mutex_unlock(&s->lock);
}
