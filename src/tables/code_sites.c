#include "tables/code_sites.h"

#include <stdlib.h>
#include <string.h>

#include "util/cmap.h"

/* A cached trace: its pointer (below 2^48 on every 64-bit Linux) and the depth above. */
#define DEPTH_SHIFT 48
#define PTR_MASK (((uintptr_t)1 << DEPTH_SHIFT) - 1)
#define MAX_PROBE 64

bool code_sites_init(struct code_sites *t, uint32_t slots)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    if (sizeof(uintptr_t) < 8 || slots < 2 || (slots & (slots - 1))) return false;
    t->slots = calloc(slots, sizeof *t->slots);
    t->methods = calloc(slots, sizeof *t->methods);
    if (!t->slots || !t->methods) {
        code_sites_destroy(t);
        return false;
    }
    t->mask = slots - 1;
    t->methods_mask = slots - 1;
    return true;
}

void code_sites_destroy(struct code_sites *t)
{
    free(t->slots);
    free(t->methods);
    t->slots = NULL;
    t->methods = NULL;
    t->mask = t->methods_mask = 0;
    pthread_mutex_destroy(&t->lock);
}

static uint32_t home(uintptr_t key, uint32_t mask) { return (uint32_t)hash_mix64(key) & mask; }

/* The chain head of a compiled method's sites (lock held): its slot in t->methods, made
 * if need be; NULL when that table is full. */
static uint32_t *method_chain(struct code_sites *t, uintptr_t code_addr, bool make)
{
    uint32_t i = home(code_addr, t->methods_mask);
    for (uint32_t k = 0; k <= t->methods_mask; k++, i = (i + 1) & t->methods_mask) {
        if (t->methods[i].code_addr == code_addr) return &t->methods[i].first;
        if (t->methods[i].code_addr == 0) {
            if (!make || t->methods_used >= t->methods_mask / 4 * 3) return NULL;
            t->methods[i].code_addr = code_addr;
            t->methods[i].first = 0;
            t->methods_used++;
            return &t->methods[i].first;
        }
    }
    return NULL;
}

void code_sites_add(struct code_sites *t, uintptr_t code_addr, uintptr_t pc, const uint8_t *code,
                    int nframes, const jmethodID *methods, const jint *bcis)
{
    if (!t->slots || !pc || nframes <= 0) return;
    pthread_mutex_lock(&t->lock);
    uint32_t *chain = t->used < t->mask / 4 * 3 ? method_chain(t, code_addr, true) : NULL;
    uint32_t i = home(pc, t->mask);
    for (uint32_t k = 0; chain && k < MAX_PROBE; k++, i = (i + 1) & t->mask) {
        struct code_site *s = &t->slots[i];
        if (atomic_load_explicit(&s->pc, memory_order_relaxed)) continue;   /* taken, maybe by a dead site */
        s->code_addr = code_addr;
        s->nframes = (uint8_t)(nframes > 255 ? 255 : nframes);
        memcpy(s->code, code, CODE_SITE_CODE);
        for (int f = 0; f < CODE_SITE_FRAMES; f++) {
            s->methods[f] = f < nframes ? methods[f] : NULL;
            s->bcis[f] = f < nframes ? bcis[f] : -1;
        }
        atomic_store_explicit(&s->cached, 0, memory_order_relaxed);
        atomic_store_explicit(&s->dead, false, memory_order_relaxed);
        s->next_same_code = *chain;
        *chain = i + 1;
        t->used++;
        atomic_store_explicit(&s->pc, pc, memory_order_release);           /* readers may look now */
        break;
    }
    pthread_mutex_unlock(&t->lock);
}

void code_sites_unload(struct code_sites *t, uintptr_t code_addr)
{
    if (!t->slots) return;
    pthread_mutex_lock(&t->lock);
    uint32_t *chain = method_chain(t, code_addr, false);
    for (uint32_t i = chain ? *chain : 0; i; i = t->slots[i - 1].next_same_code)
        atomic_store_explicit(&t->slots[i - 1].dead, true, memory_order_release);
    if (chain) *chain = 0;   /* the slots stay taken: entries never move under a reader */
    pthread_mutex_unlock(&t->lock);
}

struct code_site *code_sites_find(struct code_sites *t, uintptr_t pc)
{
    if (!t->slots || !pc) return NULL;
    uint32_t i = home(pc, t->mask);
    for (uint32_t k = 0; k < MAX_PROBE; k++, i = (i + 1) & t->mask) {
        struct code_site *s = &t->slots[i];
        uintptr_t at = atomic_load_explicit(&s->pc, memory_order_acquire);
        if (!at) return NULL;
        if (at != pc || atomic_load_explicit(&s->dead, memory_order_acquire)) continue;
        /* Code unloaded and its memory reused before the JVM told us differs here: the
         * new method's own site, if any, is further on. */
        if (memcmp((const void *)pc, s->code, CODE_SITE_CODE) == 0) return s;
    }
    return NULL;
}

struct trace *code_site_trace(struct code_site *s, int depth)
{
    uintptr_t c = atomic_load_explicit(&s->cached, memory_order_acquire);
    return c && (int)(c >> DEPTH_SHIFT) == depth ? (struct trace *)(c & PTR_MASK) : NULL;
}

void code_site_set_trace(struct code_site *s, struct trace *tr, int depth)
{
    uintptr_t p = (uintptr_t)tr;
    if (!tr || (p & ~PTR_MASK) || depth < 0 || depth >= (1 << 15)) return;
    atomic_store_explicit(&s->cached, p | (uintptr_t)depth << DEPTH_SHIFT, memory_order_release);
}
