/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: traces named by return addresses in compiled code (tables/code_sites.h).
 * The JVM's CompiledMethodLoad records fill the table; a walk that confirms what a site
 * says was inlined caches its trace there (or, for a site that inlined too few frames,
 * in the thread's cache of chains with its callers' sites); the lookups themselves are
 * inline in alloc_internal.h, on the allocation path.
 */
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_internal.h"
#include "util/env.h"

#include <jvmticmlr.h>

/* The return address is read through the frame pointers of x86-64 (HotSpot's native
 * method wrappers keep one); elsewhere every allocation is walked. */
bool alloc_code_sites_init(struct alloc_tracker *t)
{
#if defined(__x86_64__)
    t->prepared = async_trace_prepared(t->walker);
    return t->walker && env_switch("HPROF_CODE_SITES", true) && code_sites_init(&t->code, 1u << 18);
#else
    return false;
#endif
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
    struct alloc_tracker *t = h ? h->alloc : NULL;
    jmethodID init = t && t->code_ok ? atomic_load(&t->object_init) : NULL;
    if (!init) return;
    uint32_t frame_size = code_sites_frame_size(code_addr, code_size > 0 ? (size_t)code_size : 0);
    for (const jvmtiCompiledMethodLoadRecordHeader *rec = compile_info; rec; rec = rec->next) {
        if (rec->kind != JVMTI_CMLR_INLINE_INFO) continue;
        const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)rec;
        for (jint i = 0; i < r->numpcs; i++) {
            const PCStackInfo *p = &r->pcinfo[i];
            if (p->numstackframes < 1 || !p->methods || !p->bcis) continue;
            if (p->numstackframes >= 2 && p->methods[0] == init)
                code_sites_add(&t->code, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size, p->numstackframes,
                               CODE_SITE_FRAMES, p->methods, p->bcis);
            else if (code_sites_is_call(p->pc, code_addr))
                code_sites_add(&t->code, (uintptr_t)code_addr, (uintptr_t)p->pc, p->pc, frame_size, p->numstackframes,
                               1, p->methods, p->bcis);
        }
    }
}

void JNICALL alloc_code_sites_unloaded(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    struct host *h = host_get();
    if (h && h->alloc && h->alloc->code_ok) code_sites_unload(&h->alloc->code, (uintptr_t)code_addr);
}

/* Whether the walk's frames f are the n inlined frames c. */
static bool same_frames(const jvmtiFrameInfo *f, const struct code_frame *c, int n)
{
    for (int i = 0; i < n; i++)
        if (f[i].method != c[i].method || f[i].location != c[i].bci) return false;
    return true;
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
        if (!same_frames(frames + 1 + done, sites[i]->frames, check)) return false;
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
        if (!same_frames(frames + 1 + done, c->site[i]->frames, c->site[i]->kept)) return false;
        done += c->site[i]->nframes;
    }
    if (need > CODE_SITE_FRAMES || done + c->ni != need) return false;
    if (atomic_load(&t->interp_checked) >= INTERP_PROVEN && !atomic_load(&t->interp_wrong)) return true;
    for (int i = 0; i < c->ni; i++) {
        const jvmtiFrameInfo *f = &frames[1 + done + i];
        if (!interp_frame_is(&t->interp, c->method[i], c->bcp[i], f->method, f->location)) {
            atomic_store(&t->interp_wrong, true);
            return false;
        }
    }
    atomic_fetch_add(&t->interp_checked, 1);
    return true;
}

void alloc_code_sites_learn(struct alloc_tracker *t, struct alloc_thread *at, struct code_site *cs,
                            const struct site_chain *chain, const jvmtiFrameInfo *frames, int depth, int top,
                            struct trace *tr)
{
    const struct code_site *one[1] = {cs};
    if (chain->n == 0 && walk_matches(one, 1, frames, depth + top)) code_site_set_trace(cs, tr, depth);
    if (chain->n == 0) return;
    /* Read before the check: a class prepared meanwhile leaves this one out of date. */
    uint32_t prepared = chain->ni ? atomic_load_explicit(t->prepared, memory_order_acquire) : 0;
    if (chain->ni ? walk_matches_interp(t, chain, frames, depth + top)
                  : walk_matches(chain->site, chain->n, frames, depth + top))
        at->chains[chain_slot(at, chain)] = (struct chain_slot){*chain, tr, depth, prepared};
}
