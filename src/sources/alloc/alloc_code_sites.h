/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: traces named by return addresses in compiled code
 * (sources/alloc/alloc_code_sites.c, tables/code_sites.h), alone or with the chain of
 * their callers' sites. The lookups on the allocation path are static inline.
 */
#ifndef HPROF_ALLOC_CODE_SITES_H
#define HPROF_ALLOC_CODE_SITES_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/alloc/alloc_state.h"

/*
 * A code site and the call sites of the compiled methods it returns through, up to
 * CHAIN_MAX in all: as many as it takes for their inlined frames to make the trace (see
 * site_chain_of). n is 0 when the site needs none, or when no chain makes the trace.
 * When the last compiled method was called by the interpreter (a loop compiled on stack
 * replacement, under a caller that ran once), the chain goes on with up to CHAIN_INTERP
 * interpreted frames, each named by its Method* and bytecode pointer.
 */
#define CHAIN_MAX     4
#define CHAIN_INTERP  3
#define INTERP_PROVEN 64
struct site_chain {
    const struct code_site *site[CHAIN_MAX];
    int n, ni;
    uintptr_t method[CHAIN_INTERP], bcp[CHAIN_INTERP];
};

/* By a chain of code sites: the trace found for it, and for a chain with interpreted
 * frames, interp_epoch when it was. */
struct chain_slot {
    struct site_chain chain;
    struct trace *trace;
    int depth;
    uint32_t epoch;
};

/* At load: whether traces are looked up by return address (HPROF_CODE_SITES=0: never). */
bool alloc_code_sites_init(struct alloc_tracker *t);
void JNICALL alloc_code_sites_loaded(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                                     jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL alloc_code_sites_unloaded(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);
/* Whether an interpreted frame's Method* and bytecode pointer, as read from its frame,
 * are the walk's frame f: checked against the VM's structures (system calls) until
 * INTERP_PROVEN frames were, then taken as known; never again once one was wrong. */
bool alloc_code_sites_interp_is(struct alloc_tracker *t, uintptr_t method, uintptr_t bcp, const jvmtiFrameInfo *f);
/* The code site of return address pc, or of the native method wrapper pc lies in (made
 * for it on first need), as the thread's copy; NULL if none. */
const struct code_site_ref *alloc_code_sites_at(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc);
/* After a walk of depth frames past our frames found trace tr: caches it at cs (or for
 * its chain) if the walk's frames are the ones inlined there. frames[0] is the Tracker's
 * native, then come the site's `top` frames (code_site_top), then tr's. */
void alloc_code_sites_learn(struct alloc_tracker *t, struct alloc_thread *at, struct code_site *cs,
                            const struct site_chain *chain, const jvmtiFrameInfo *frames, int depth, int top,
                            struct trace *tr);

/* Whether the walk's frames f are the first n frames inlined at site s. */
static inline bool code_site_frames_are(const struct code_site *s, const jvmtiFrameInfo *f, int n)
{
    for (int i = 0; i < n; i++)
        if (f[i].method != s->frames[i].method || f[i].location != s->frames[i].bci) return false;
    return true;
}

/* The chain's slot: its sites' addresses folded, then mixed once (on every allocation
 * that takes a chain). */
static inline unsigned chain_slot(const struct alloc_thread *at, const struct site_chain *c)
{
    uint64_t h = 0;
    for (int i = 0; i < c->n; i++) h = (h << 17 | h >> 47) ^ (uint64_t)(uintptr_t)c->site[i];
    for (int i = 0; i < c->ni; i++) h = (h << 17 | h >> 47) ^ c->method[i] ^ c->bcp[i] << 7;
    return (unsigned)(hash_mix64(h) >> 40) & (at->nslots - 1);
}

/* The code site at return address pc, as the thread's copy (good until its next lookup). */
static inline struct code_site_ref *thread_code_site(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc)
{
    return code_sites_find_cached(&t->code.sites, at->refs, at->nslots - 1, pc);
}

/*
 * What outdates a chain with interpreted frames, whose Method* may stand for another
 * method once the memory of an unloaded class is reused: the count of classes unloaded
 * (jvmstat's, raised as the GC unloads them, before their memory is freed), or, without
 * jvmstat, of classes prepared (a class is prepared before its methods run), which moves
 * far more often.
 */
static inline uint32_t interp_epoch(const struct alloc_tracker *t)
{
    if (t->code.unloaded) return (uint32_t)*t->code.unloaded;
    return atomic_load_explicit(t->code.prepared, memory_order_acquire);
}

#endif
