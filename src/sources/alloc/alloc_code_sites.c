/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: traces named by return addresses in compiled code (tables/code_sites.h).
 * The JVM's CompiledMethodLoad records fill the table; a walk that confirms what a site
 * says was inlined caches its trace there (or, for a site that inlined too few frames,
 * in the thread's cache of pairs with its caller's site); the lookups themselves are
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
 * depth frames) are the ones the JIT inlined at site cs: then the return address the site
 * was found by stands for the trace. A site keeps all its frames when it is
 * Object.<init>'s, only its innermost for any other call: the frames inlined at a return
 * address never change, so that one checks the walk found the site it was looked up by,
 * and the count of inlined frames says the rest of the trace is there too. (The depth is
 * checked again: it may have changed since code_site_of, by a socket command.)
 */
static bool walk_matches(const struct code_site *cs, const jvmtiFrameInfo *frames, int depth, int top)
{
    int need = depth + top, check = need < cs->kept ? need : cs->kept;
    return need <= CODE_SITE_FRAMES && cs->nframes >= need && same_frames(frames + 1, cs->frames, check);
}

/* The same for a site that inlined fewer frames (all of them kept) and the call site
 * of its caller: the site's frames, then the caller's innermost, and enough frames
 * inlined at the two for the depth. */
static bool walk_matches_pair(const struct code_site *cs, const struct code_site *caller, const jvmtiFrameInfo *frames,
                              int depth, int top)
{
    int n = cs->nframes;
    return depth + top <= CODE_SITE_FRAMES && cs->kept == n && n + caller->nframes >= depth + top &&
        caller->kept >= 1 && same_frames(frames + 1, cs->frames, n) && same_frames(frames + 1 + n, caller->frames, 1);
}

void alloc_code_sites_learn(struct alloc_thread *at, struct code_site *cs, const struct code_site *caller,
                            const jvmtiFrameInfo *frames, int depth, int top, struct trace *tr)
{
    if (!caller && walk_matches(cs, frames, depth, top)) code_site_set_trace(cs, tr, depth);
    if (caller && walk_matches_pair(cs, caller, frames, depth, top))
        at->pairs[pair_slot(at, cs, caller)] = (struct pair_slot){cs, caller, tr, depth};
}
