/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/method_costs.h"

#include <stdlib.h>

#include "sources/host.h"
#include "tables/bci_classes.h"
#include "util/log.h"

/*
 * A method is timed by sample once WINDOW_CALLS of its calls timed at both ends took less
 * than CHEAP_NS of their own on average. Two clock reads and the Tracker's stores cost
 * about 60-100 ns here (kvm-clock), so such a call spends at least half as long again
 * being timed as working, and its measure is mostly the clock's own noise; a call of a
 * microsecond (cpu_times_short's) is five times over it and stays timed. The mean is
 * looked at again every window (the JIT makes methods cheaper as it goes); one over
 * DEAR_NS is timed at every call again.
 */
#define WINDOW_CALLS 1024u
#define CHEAP_NS     200
#define DEAR_NS      400
/* A window packs (calls << CALLS_SHIFT | their ns) in one word, added to atomically: 8191
 * calls of METHOD_COST_MAX_NS each cannot overflow the ns part. */
#define CALLS_SHIFT 40
#define ONE_CALL    ((uint64_t)1 << CALLS_SHIFT)

struct method_costs {
    method_costs_switch *switch_to; /* tells the Tracker how to time a method */
    _Atomic uint32_t sampled;       /* methods ever timed by sample */
    _Atomic uint64_t charged;       /* calls charged their method's mean */
};

struct method_costs *method_costs_new(method_costs_switch *switch_to)
{
    struct method_costs *mc = calloc(1, sizeof *mc);
    if (mc) mc->switch_to = switch_to;
    return mc;
}

struct method_cost *method_cost_of(struct host *h, uint32_t cnum, uint32_t mnum, uint32_t *nmethods)
{
    struct bci_class *c = bci_classes_get(host_bci_classes(h), cnum);
    if (!c || mnum >= c->nmethods) return NULL;
    *nmethods = c->nmethods;
    struct method_cost *k = atomic_load_explicit(&c->costs, memory_order_acquire);
    if (k) return &k[mnum];
    struct method_cost *made = calloc(c->nmethods, sizeof *made);
    if (!made) return NULL;
    if (atomic_compare_exchange_strong_explicit(&c->costs, &k, made, memory_order_acq_rel, memory_order_acquire))
        return &made[mnum];
    free(made); /* another replay made them first */
    return &k[mnum];
}

/* The mean own time of (cnum, mnum) is now `mean` ns: the method is switched to timing by
 * sample if it is cheap, back to timing every call if it is dear. */
static void decide(struct host *h, JNIEnv *jni, struct method_costs *mc, uint32_t cnum, uint32_t mnum,
                   struct method_cost *c, uint32_t mean)
{
    atomic_store_explicit(&c->mean_ns, mean, memory_order_relaxed);
    uint8_t state = atomic_load_explicit(&c->state, memory_order_relaxed);
    bool sampled = state == METHOD_COST_SAMPLED;
    if (!(sampled ? mean > DEAR_NS : mean < CHEAP_NS)) return;
    uint32_t nmethods = 0;
    if (!method_cost_of(h, cnum, mnum, &nmethods)) return;
    if (state == METHOD_COST_TIMED) atomic_fetch_add(&mc->sampled, 1);
    atomic_store(&c->state, sampled ? METHOD_COST_WAS_SAMPLED : METHOD_COST_SAMPLED);
    if (mc->switch_to) mc->switch_to(h, jni, cnum, mnum, nmethods, !sampled);
}

/* A replay adds a batch's calls at once, through its edges; a batch with a window's
 * worth of calls is decided on alone. */
void method_costs_add(struct host *h, JNIEnv *jni, struct method_costs *mc, uint32_t cnum, uint32_t mnum,
                      struct method_cost *c, uint32_t calls, uint64_t ns)
{
    uint32_t nmethods;
    if (!c && !(c = method_cost_of(h, cnum, mnum, &nmethods))) return;
    if (calls >= WINDOW_CALLS) {
        decide(h, jni, mc, cnum, mnum, c, (uint32_t)(ns / calls));
        return;
    }
    uint64_t add = (uint64_t)calls * ONE_CALL | ns;
    uint64_t w = atomic_fetch_add_explicit(&c->window, add, memory_order_relaxed) + add;
    if (w / ONE_CALL < WINDOW_CALLS || (w - add) / ONE_CALL >= WINDOW_CALLS) return;
    atomic_fetch_sub_explicit(&c->window, w, memory_order_relaxed); /* calls added since stay */
    decide(h, jni, mc, cnum, mnum, c, (uint32_t)(w % ONE_CALL / (w / ONE_CALL)));
}

void method_costs_charged(struct method_costs *mc, uint64_t n)
{
    atomic_fetch_add_explicit(&mc->charged, n, memory_order_relaxed);
}

void method_costs_log(struct host *h, struct method_costs *mc)
{
    log_plain("HPROF: cpu=times timing=sampled: %u methods timed by sample, %llu calls charged their mean",
              atomic_load(&mc->sampled), (unsigned long long)atomic_load(&mc->charged));
    for (uint32_t i = 0, n = registry_count(&host_bci_classes(h)->all); i < n; i++) {
        struct bci_class *c = registry_get(&host_bci_classes(h)->all, i);
        struct method_cost *k = atomic_load_explicit(&c->costs, memory_order_acquire);
        for (unsigned j = 0; k && j < c->nmethods; j++) {
            uint8_t state = atomic_load(&k[j].state);
            if (state != METHOD_COST_TIMED)
                log_plain("HPROF: %s %s.%s%s, mean %u ns",
                          state == METHOD_COST_SAMPLED ? "timed by sample:" : "was timed by sample:", c->name,
                          c->method_names[j], c->method_descs[j], atomic_load(&k[j].mean_ns));
        }
    }
}
