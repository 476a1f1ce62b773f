/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: traces named by return addresses in compiled code (tables/code_sites.h).
 * The JVM's CompiledMethodLoad records fill the table; a walk that confirms what a site
 * says was inlined caches its trace there (or, for a site that inlined too few frames,
 * in the thread's cache of chains with its callers' sites); the lookups themselves are
 * inline in alloc_code_sites.h and alloc_exact.c, on the allocation path.
 */
#include "sources/alloc/alloc_code_sites.h"

#include <stdlib.h>
#include <string.h>

#include "sources/hotspot/async_trace.h"
#include "util/env.h"

#include <jvmticmlr.h>

/* The return address is read through the frame pointers of x86-64 (HotSpot's native
 * method wrappers keep one); elsewhere every allocation is walked. */
bool alloc_code_sites_init(struct alloc_tracker *t)
{
#if defined(__x86_64__)
    t->code.prepared = async_trace_prepared(t->walker);
    cmap_init(&t->deep.chains);
    pthread_mutex_init(&t->deep.lock, NULL);
    pthread_mutex_init(&t->code.wrappers_lock, NULL);
    return t->walker && env_switch("HPROF_CODE_SITES", true) && code_sites_init(&t->code.sites, 1u << 18);
#else
    return false;
#endif
}

/* A native method's compiled wrapper: kept for alloc_code_sites_at, which makes its code
 * site from the return address a chain finds in it (the JVM names none). */
static void wrapper_loaded(struct alloc_tracker *t, jmethodID method, uintptr_t code, size_t size, uint32_t frame_size)
{
    if (!frame_size || !size) return;
    pthread_mutex_lock(&t->code.wrappers_lock);
    if (t->code.nwrappers == t->code.capwrappers) {
        uint32_t cap = t->code.capwrappers ? t->code.capwrappers * 2 : 64;
        struct native_wrapper *w = realloc(t->code.wrappers, cap * sizeof *w);
        if (w) {
            t->code.wrappers = w;
            t->code.capwrappers = cap;
        }
    }
    if (t->code.nwrappers < t->code.capwrappers)
        t->code.wrappers[t->code.nwrappers++] = (struct native_wrapper){code, code + size, frame_size, method};
    pthread_mutex_unlock(&t->code.wrappers_lock);
}

/*
 * The calls of compiled code: each call of Tracker.newObject from an inlined
 * Object.<init>, with the frames inlined there (innermost first, Object.<init> itself at
 * 0), and every other call, with its innermost frame only: a call of Tracker.newArray
 * after an array's bytecode, or of a method that may make objects (see caller_site). The
 * calls of one compiled method to another, and to a native method, are near calls.
 */
void JNICALL alloc_code_sites_loaded(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                                     jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info)
{
    struct host *h = host_get();
    struct alloc_tracker *t = h ? alloc_of(h) : NULL;
    jmethodID init = t && t->code.ok ? atomic_load(&t->object_init) : NULL;
    if (!init) return;
    uint32_t frame_size = code_sites_frame_size(code_addr, code_size > 0 ? (size_t)code_size : 0);
    jboolean native = JNI_FALSE;
    if ((*jvmti)->IsMethodNative(jvmti, method, &native) == JVMTI_ERROR_NONE && native) {
        wrapper_loaded(t, method, (uintptr_t)code_addr, code_size > 0 ? (size_t)code_size : 0, frame_size);
        return;
    }
    for (const jvmtiCompiledMethodLoadRecordHeader *rec = compile_info; rec; rec = rec->next) {
        if (rec->kind != JVMTI_CMLR_INLINE_INFO) continue;
        const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)rec;
        for (jint i = 0; i < r->numpcs; i++) {
            const PCStackInfo *p = &r->pcinfo[i];
            if (p->numstackframes < 1 || !p->methods || !p->bcis) continue;
            if (p->numstackframes >= 2 && p->methods[0] == init)
                code_sites_add(&t->code.sites, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size,
                               p->numstackframes, CODE_SITE_FRAMES, p->methods, p->bcis);
            else if (code_sites_is_call(p->pc, code_addr))
                code_sites_add(&t->code.sites, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size,
                               p->numstackframes, 1, p->methods, p->bcis);
        }
    }
}

void JNICALL alloc_code_sites_unloaded(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    struct host *h = host_get();
    struct alloc_tracker *t = h ? alloc_of(h) : NULL;
    if (!t || !t->code.ok) return;
    code_sites_unload(&t->code.sites, (uintptr_t)code_addr);
    pthread_mutex_lock(&t->code.wrappers_lock);
    for (uint32_t i = 0; i < t->code.nwrappers; i++)
        if (t->code.wrappers[i].code_lo == (uintptr_t)code_addr)
            t->code.wrappers[i] = t->code.wrappers[--t->code.nwrappers];
    pthread_mutex_unlock(&t->code.wrappers_lock);
}

const struct code_site_ref *alloc_code_sites_at(struct alloc_tracker *t, struct alloc_thread *at, uintptr_t pc)
{
    const struct code_site_ref *s = thread_code_site(t, at, pc);
    if (s || pc == at->not_wrapper) return s && s->kept >= 1 ? s : NULL;
    struct native_wrapper w = {0};
    pthread_mutex_lock(&t->code.wrappers_lock);
    for (uint32_t i = 0; i < t->code.nwrappers; i++)
        if (pc >= t->code.wrappers[i].code_lo && pc < t->code.wrappers[i].code_hi) w = t->code.wrappers[i];
    pthread_mutex_unlock(&t->code.wrappers_lock);
    if (!w.method || pc + CODE_SITE_CODE > w.code_hi) {
        at->not_wrapper = pc;
        return NULL;
    }
    /* A native method's frame: the method, with no bytecode (a walk's location -1). */
    jint bci = -1;
    code_sites_add(&t->code.sites, w.code_lo, pc, (const uint8_t *)pc, w.frame_size, 1, 1, &w.method, &bci);
    s = thread_code_site(t, at, pc);
    return s && s->kept >= 1 ? s : NULL;
}

/*
 * Whether the walk's frames from frames[1] on (the site's `top` frames, then the trace's
 * depth frames) are the ones the JIT inlined at the site, and at each caller's site after
 * it in the chain: then the return addresses the sites were found by stand for the
 * trace. A site keeps all its frames when it is Object.<init>'s, only its innermost for
 * any other call: the frames inlined at a return address never change, so that one
 * checks the walk met the site it was looked up by, and the count of frames inlined
 * there says where the next site's start. (The depth is checked again: it may have
 * changed since code_site_of, by a socket command.)
 */
static bool walk_matches(const struct code_site *const *sites, int nsites, const jvmtiFrameInfo *frames, int need)
{
    int done = 0; /* frames the sites before this one inlined */
    for (int i = 0; i < nsites && done < need; i++) {
        int left = need - done, check = sites[i]->kept < left ? sites[i]->kept : left;
        if (!code_site_frames_are(sites[i], frames + 1 + done, check)) return false;
        done += sites[i]->nframes;
    }
    return need <= CODE_SITE_FRAMES && done >= need;
}

/* The same for a chain that ends with interpreted frames: its sites' frames, then one
 * walked frame for each interpreted one, which must be the method and bytecode read from
 * that frame. */
static bool walk_matches_interp(struct alloc_tracker *t, const struct site_chain *c, const jvmtiFrameInfo *frames,
                                int need)
{
    int done = 0;
    for (int i = 0; i < c->n; i++) {
        if (!code_site_frames_are(c->site[i], frames + 1 + done, c->site[i]->kept)) return false;
        done += c->site[i]->nframes;
    }
    if (need > CODE_SITE_FRAMES || done + c->ni != need) return false;
    for (int i = 0; i < c->ni; i++)
        if (!alloc_code_sites_interp_is(t, c->method[i], c->bcp[i], &frames[1 + done + i])) return false;
    return true;
}

bool alloc_code_sites_interp_is(struct alloc_tracker *t, uintptr_t method, uintptr_t bcp, const jvmtiFrameInfo *f)
{
    /* Once one was wrong, none is taken again: checking every one would cost each walk
     * a system call per interpreted frame. */
    if (atomic_load(&t->code.interp_wrong)) return false;
    if (atomic_load(&t->code.interp_checked) >= INTERP_PROVEN) return true;
    if (!interp_frame_is(&t->code.interp, method, bcp, f->method, f->location)) {
        atomic_store(&t->code.interp_wrong, true);
        return false;
    }
    atomic_fetch_add(&t->code.interp_checked, 1);
    return true;
}

void alloc_code_sites_learn(struct alloc_tracker *t, struct alloc_thread *at, struct code_site *cs,
                            const struct site_chain *chain, const jvmtiFrameInfo *frames, int depth, int top,
                            struct trace *tr)
{
    const struct code_site *one[1] = {cs};
    if (chain->n == 0 && walk_matches(one, 1, frames, depth + top)) code_site_set_trace(cs, tr, depth);
    if (chain->n == 0) return;
    /* Read before the check: a class unloaded meanwhile leaves this one out of date. */
    uint32_t epoch = chain->ni ? interp_epoch(t) : 0;
    if (chain->ni ? walk_matches_interp(t, chain, frames, depth + top)
                  : walk_matches(chain->site, chain->n, frames, depth + top))
        at->chains[chain_slot(at, chain)] = (struct chain_slot){*chain, tr, depth, epoch};
}
