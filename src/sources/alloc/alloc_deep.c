/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites at depths one code site cannot name (view= takes 64 frames): the trace of
 * an allocation found by the frames of its stack as they lie in memory, not by a walk.
 *
 * From the allocating code site on, each frame is read the cheap way: a compiled frame
 * by its code site (its size says where its caller's return address is), an interpreted
 * one by its frame pointer (its Method* and bytecode pointer, and, when its caller is
 * compiled, the caller's stack pointer the interpreter kept). The frames read, until
 * they hold the trace's depth (or the stack ends), are the chain: each compiled frame's
 * code site, each interpreted frame's Method* and bytecode pointer, and where the stack
 * ended. The same chain is the same trace: a return address in compiled code names its
 * inlined frames, a Method* and bytecode pointer the interpreted one. A chain is keyed
 * by the frames its sites stand for (methods and bytecode indices, hashed frame by frame:
 * code_sites_fold_site), not by the sites themselves, so that a method compiled again (at
 * another tier, inlining more or less) makes no new chain. An interpreted frame is
 * hashed as read, by its Method* and bytecode pointer (no lookup: a chain of Rhino's
 * holds 60 of them); the walk that confirms a chain also names its interpreted frames
 * (the thread keeps each method's jmethodID and where its bytecode starts) and keeps the
 * chain under a second hash, its frames hashed as the frames (method, bytecode index)
 * they are: the hash they have once compiled. A chain not found as read is looked up
 * so before it is walked, and kept as read if found.
 *
 * Where the VM or native code called Java, the Java frames go on below the call stub's
 * frame (entry_frame.h) and so does the chain; a native method's compiled wrapper is
 * named like any compiled frame (alloc_code_sites_at). The thread's first call into
 * Java ends the stack, and the chain. Anything else (a runtime stub, a virtual thread's
 * continuation, code we know nothing of) leaves the allocation to a walk.
 *
 * One table shared by all threads maps a chain, by two 64-bit hashes of it mixed
 * differently and the frames it holds, to the trace a stack walk found when it
 * was first met, once that walk confirmed each frame of the chain (the sites' innermost
 * frames, each interpreted frame's method and bytecode) and that the stack ended where
 * the chain did. A chain is not kept whole: 500,000 chains of 40 frames would take
 * 160 MB, where two different chains (of addresses no one chooses) that agree on all
 * of that are a chance of about 1 in 2^128 for each pair. Each entry takes 48 bytes,
 * and the table learns DEEP_CHAINS_MAX at most: past that, new chains are walked.
 */
#include "sources/alloc/alloc_deep.h"

#include <stdlib.h>

#include "sources/alloc/alloc_code_sites.h"

struct deep_key {
    uint64_t h2;
    int have, need;
};

/* With interpreted frames, a chain's trace holds only as long as interp_epoch has not
 * moved since it was learnt (a Method* may then name another method): learnt again
 * then, in place. Both fields change together, under the entry's stripe lock. */
struct deep_value {
    struct trace *trace;
    uint32_t epoch;
};

struct deep_entry {
    struct cmap_node node; /* hash: the chain's first hash */
    struct deep_key key;
    struct deep_value value;
};
_Static_assert(sizeof(struct deep_entry) == 48, "DEEP_CHAINS_MAX and the docs count 48 bytes an entry");

static bool entry_eq(const struct cmap_node *n, const void *key)
{
    const struct deep_entry *e = (const struct deep_entry *)n;
    const struct deep_key *k = key;
    return e->key.h2 == k->h2 && e->key.have == k->have && e->key.need == k->need;
}

#define DEEP_CHUNK 4096 /* entries a chunk */

/* A new entry, NULL past DEEP_CHAINS_MAX: chunks, as each is small and none is freed
 * before the agent ends. */
static struct deep_entry *entry_new(struct alloc_tracker *t)
{
    struct deep_entry *e = NULL;
    pthread_mutex_lock(&t->deep.lock);
    if (t->deep.count < DEEP_CHAINS_MAX) {
        if (!t->deep.left && (t->deep.chunk = malloc(DEEP_CHUNK * sizeof *e))) t->deep.left = DEEP_CHUNK;
        if (t->deep.left) {
            e = (struct deep_entry *)t->deep.chunk + (DEEP_CHUNK - t->deep.left--);
            t->deep.count++;
        }
    }
    pthread_mutex_unlock(&t->deep.lock);
    return e;
}

/* The key of chain d's frames under second hash h2 (its own, or with its frames named). */
static struct deep_key key_of(const struct deep_chain *d, uint64_t h2)
{
    return (struct deep_key){h2, d->have, d->need};
}

static struct cmap_node *entry_make(const void *key, void *ctx) { return ctx; }
static void entry_read(struct cmap_node *n, void *out) { *(struct deep_value *)out = ((struct deep_entry *)n)->value; }
static void entry_write(struct cmap_node *n, void *in) { ((struct deep_entry *)n)->value = *(struct deep_value *)in; }

static void add_word(struct deep_chain *d, uint64_t w) { code_sites_fold_word(&d->h1, &d->h2, w); }

/* A chain's hashes start from these, and end with the depth folded in and both mixed. */
#define CHAIN_SEED1 0x243F6A8885A308D3ULL
#define CHAIN_SEED2 0x13198A2E03707344ULL
static void hash_end(uint64_t *h1, uint64_t *h2, int need)
{
    code_sites_fold_word(h1, h2, (uint64_t)need);
    *h1 = hash_mix64(*h1);
    *h2 = hash_mix64(*h2 ^ 0x5851F42D4C957F2DULL);
}

/* Tokens' kinds, hashed with them. */
enum { TOKEN_SITE = 1, TOKEN_INTERP = 2, TOKEN_ENTRY = 3, TOKEN_END = 4 };

static bool add_site(struct deep_chain *d, const struct code_site *s, int nframes)
{
    if (d->n == DEEP_MAX) return false;
    d->tok[d->n++] = (struct deep_token){(uintptr_t)s, 0, TOKEN_SITE};
    code_sites_fold_site(&d->h1, &d->h2, s);
    d->have += nframes;
    return true;
}

/* An interpreted frame as read: its Method* and bytecode pointer. */
static uint64_t raw_word(uintptr_t method, uintptr_t bcp)
{
    return hash_mix64(method ^ hash_mix64(bcp + TOKEN_INTERP));
}

static bool add_interp(struct deep_chain *d, uintptr_t method, uintptr_t bcp)
{
    if (d->n == DEEP_MAX) return false;
    d->tok[d->n++] = (struct deep_token){method, bcp, TOKEN_INTERP};
    add_word(d, raw_word(method, bcp));
    d->have += 1;
    d->interp = true;
    return true;
}

/* Where the chain goes on: a compiled frame (site, at sp), an interpreted one (at fp,
 * above lo). A site's frames and frame size are copied from the thread's copy of it
 * (which the next lookup may overwrite): the shared entry is read only for its frames'
 * hash, whose cache line need not hold them (reading them there cost Ant 5% of CPU). */
struct frame_at {
    const struct code_site *site;
    uint32_t nframes, frame_size;
    uintptr_t sp, fp;
    uintptr_t lo; /* an interpreted frame lies above it */
    bool native;  /* an interpreted frame that may be a native method's */
};

/*
 * The Java frame below the call stub that return address pc returns to, the stub's
 * frame pointer fp: into *next; false when it cannot be read. The thread's first call
 * into Java ends the chain there (d->ended).
 */
static bool below_entry(struct alloc_tracker *t, struct alloc_thread *at, struct deep_chain *d, uintptr_t fp,
                        uintptr_t lo, struct frame_at *next)
{
    uintptr_t sp, pc, caller_fp;
    if (!entry_frame_caller(&t->deep.entry, fp, lo, at->stack_end, &sp, &pc, &caller_fp)) return false;
    int mark = sp ? TOKEN_ENTRY : TOKEN_END;
    add_word(d, (uint64_t)mark);
    if (d->nmarks < DEEP_MARKS) {
        d->mark_at[d->nmarks] = (uint8_t)d->n;
        d->mark_kind[d->nmarks] = (uint8_t)mark;
    }
    d->nmarks++;
    if (!sp) {
        d->ended = true;
        return true;
    }
    d->entries++;
    if (interp_returns_to(&t->code.interp, pc)) { /* in the interpreter: a method it runs, maybe native */
        *next = (struct frame_at){NULL, 0, 0, 0, caller_fp, sp, true};
        return caller_fp > sp;
    }
    const struct code_site_ref *s = alloc_code_sites_at(t, at, pc);
    if (s) *next = (struct frame_at){s->site, s->nframes, s->frame_size, sp, 0, 0, false};
    return s != NULL;
}

/*
 * The frame after the one just read, whose return address pc and saved frame pointer
 * caller_fp lie at or above lo; sp: the caller's stack pointer if compiled (0: not
 * known). False when it cannot be read or is not Java code we know.
 */
static bool caller_of(struct alloc_tracker *t, struct alloc_thread *at, struct deep_chain *d, uintptr_t pc,
                      uintptr_t caller_fp, uintptr_t sp, uintptr_t lo, struct frame_at *next)
{
    if (interp_returns_to(&t->code.interp, pc)) {
        *next = (struct frame_at){NULL, 0, 0, 0, caller_fp, lo, false};
        return true;
    }
    if (entry_returns_to(&t->deep.entry, pc)) return below_entry(t, at, d, caller_fp, lo, next);
    const struct code_site_ref *s = thread_code_site(t, at, pc);
    if (!s || s->kept < 1 || !sp || sp <= lo || sp >= at->stack_end) return false;
    *next = (struct frame_at){s->site, s->nframes, s->frame_size, sp, 0, 0, false};
    return true;
}

bool alloc_deep_chain(struct alloc_tracker *t, struct alloc_thread *at, const struct code_site_ref *cs, uintptr_t sp,
                      int need, struct deep_chain *d)
{
    /* Not the tokens: clearing them would cost more than reading the frames. */
    d->n = d->have = d->entries = d->nmarks = 0;
    d->need = need;
    d->interp = d->ended = false;
    d->h1 = CHAIN_SEED1;
    d->h2 = CHAIN_SEED2;
    if (!at->stack_end || need > DEEP_MAX || !sp || !t->code.interp.ok) return false;
    struct frame_at f = {cs->site, cs->nframes, cs->frame_size, sp, 0, 0, false};
    while (d->have < need && !d->ended) {
        uintptr_t pc, caller_fp, caller_sp, lo;
        if (f.site) {
            uintptr_t slot = f.sp + f.frame_size - sizeof(uintptr_t);
            if (!add_site(d, f.site, (int)f.nframes) || !f.frame_size || slot < f.sp + sizeof(uintptr_t) ||
                slot + sizeof(uintptr_t) > at->stack_end)
                return false;
            if (d->have >= need) break;
            pc = *(const uintptr_t *)slot;
            caller_fp = *(const uintptr_t *)(slot - sizeof(uintptr_t)); /* pushed by its prologue */
            caller_sp = slot + sizeof(uintptr_t);
            lo = slot;
        } else {
            uintptr_t method, bcp;
            if (!interp_frame_read_any(f.fp, f.lo, at->stack_end, &method, &bcp, &pc, &caller_fp) ||
                (!bcp && !f.native) || !add_interp(d, method, bcp))
                return false;
            if (d->have >= need) break;
            /* A compiled caller's stack pointer, which the interpreter kept for it. */
            caller_sp = ((const uintptr_t *)f.fp)[-1];
            lo = f.fp;
        }
        if (!caller_of(t, at, d, pc, caller_fp, caller_sp, lo, &f)) return false;
    }
    hash_end(&d->h1, &d->h2, need);
    return true;
}

static struct deep_slot *slot_of(const struct alloc_thread *at, uint64_t h1)
{
    return &at->deep_slots[(unsigned)(h1 >> 40) & (at->nslots - 1)];
}

static bool slot_holds(const struct deep_slot *s, const struct deep_chain *d)
{
    return s->trace && s->h1 == d->h1 && s->h2 == d->h2 && s->have == d->have && s->need == d->need;
}

/* Chain d, hashed h1, h2, stands for v: in the thread's cache. */
static void slot_put(struct alloc_thread *at, const struct deep_chain *d, uint64_t h1, uint64_t h2, struct deep_value v)
{
    *slot_of(at, h1) = (struct deep_slot){h1, h2, d->have, d->need, v.trace, v.epoch};
}

/* The shared table's trace for d's frames under hashes h1, h2, into *v; false if none,
 * or learnt before a class was unloaded where a frame is hashed by its Method* (raw). */
static bool table_find(struct alloc_tracker *t, const struct deep_chain *d, uint64_t h1, uint64_t h2, bool raw,
                       uint32_t epoch, struct deep_value *v)
{
    struct deep_key k = key_of(d, h2);
    return cmap_visit(&t->deep.chains, h1, &k, entry_eq, entry_read, v) && (!raw || v->epoch == epoch);
}

/* Where the thread keeps the name of the interpreted method at Method* method (by its
 * address's bits: Method*s are 8-aligned, some 100 bytes apart). */
static struct interp_name *name_of(const struct alloc_thread *at, uintptr_t method)
{
    return &at->names[((method >> 3) ^ (method >> 12)) & (DEEP_NAMES - 1)];
}

/* A chain hashed again with its interpreted frames named where the thread knows them
 * (then as the frames, method and bytecode index, they are: the hash the same frames
 * have once compiled); *raw: a frame was not. False when the chain's marks were not
 * all kept. */
struct named_hash {
    uint64_t h1, h2;
    uint32_t epoch;
    bool raw;
};

static bool named_hash(const struct alloc_tracker *t, const struct alloc_thread *at, const struct deep_chain *d,
                       struct named_hash *h)
{
    if (d->nmarks > DEEP_MARKS) return false;
    *h = (struct named_hash){CHAIN_SEED1, CHAIN_SEED2, interp_epoch(t), false};
    int m = 0;
    for (int i = 0; i <= d->n; i++) {
        for (; m < d->nmarks && d->mark_at[m] == i; m++) code_sites_fold_word(&h->h1, &h->h2, d->mark_kind[m]);
        if (i == d->n) break;
        const struct deep_token *k = &d->tok[i];
        if (k->kind == TOKEN_SITE) {
            code_sites_fold_site(&h->h1, &h->h2, (const struct code_site *)k->a);
            continue;
        }
        const struct interp_name *nm = name_of(at, k->a);
        uint64_t w;
        if (nm->method == k->a && nm->epoch == h->epoch && k->bcp >= nm->code && k->bcp - nm->code <= 0xffff) {
            w = code_sites_frame_word(nm->id, (jint)(k->bcp - nm->code));
        } else {
            w = raw_word(k->a, k->bcp);
            h->raw = true;
        }
        code_sites_fold_word(&h->h1, &h->h2, w);
    }
    hash_end(&h->h1, &h->h2, d->need);
    return true;
}

/* Chain d, hashed h1, h2, stands for trace tr (while interp_epoch is epoch when raw):
 * in the thread's cache and the shared table. walked: learnt from a walk (counted). */
static void keep(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d, uint64_t h1, uint64_t h2,
                 struct trace *tr, bool raw, uint32_t epoch, bool walked)
{
    struct deep_value v = {tr, raw ? epoch : 0};
    slot_put(at, d, h1, h2, v);
    struct deep_key k = key_of(d, h2);
    if (cmap_visit(&t->deep.chains, h1, &k, entry_eq, entry_write, &v)) {
        if (t->stats.on && walked) atomic_fetch_add_explicit(&t->stats.deep_relearnt, 1, memory_order_relaxed);
        return;
    }
    struct deep_entry *e = entry_new(t);
    if (!e) return;
    if (t->stats.on && walked) {
        atomic_fetch_add_explicit(&t->stats.deep_learnt, 1, memory_order_relaxed);
        if (raw) atomic_fetch_add_explicit(&t->stats.deep_learnt_interp, 1, memory_order_relaxed);
    }
    *e = (struct deep_entry){.key = k, .value = v};
    cmap_intern(&t->deep.chains, h1, &k, entry_eq, entry_make, e, NULL); /* another thread's, rarely: e is lost */
}

/* The trace of the chain under its hash with its frames named (found: kept under its
 * own too, so that the next allocation finds it at once). */
static struct trace *named_trace(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d)
{
    struct named_hash h;
    if (!named_hash(t, at, d, &h) || (h.h1 == d->h1 && h.h2 == d->h2)) return NULL;
    struct deep_value v;
    if (!table_find(t, d, h.h1, h.h2, h.raw, h.epoch, &v)) return NULL;
    if (t->stats.on) atomic_fetch_add_explicit(&t->stats.deep_named, 1, memory_order_relaxed);
    keep(t, at, d, d->h1, d->h2, v.trace, true, h.epoch, false);
    return v.trace;
}

struct trace *alloc_deep_trace(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                               bool *cached)
{
    uint32_t epoch = d->interp ? interp_epoch(t) : 0;
    struct deep_slot *s = slot_of(at, d->h1);
    *cached = slot_holds(s, d) && (!d->interp || s->epoch == epoch);
    if (*cached) return s->trace;
    struct deep_value v;
    if (!table_find(t, d, d->h1, d->h2, d->interp, epoch, &v)) return d->interp ? named_trace(t, at, d) : NULL;
    slot_put(at, d, d->h1, d->h2, v);
    return v.trace;
}

/* Whether the walk's frames (frames[1] on: the site's top frames, then the trace's)
 * are the chain's: each site's kept frames where they fall, each interpreted frame's
 * method and bytecode; and the walk ended where the chain did. */
static bool walk_confirms(struct alloc_tracker *t, const struct deep_chain *d, const jvmtiFrameInfo *frames, int n)
{
    int done = 0; /* frames the tokens before this one hold */
    for (int i = 0; i < d->n && done < d->need; i++) {
        const struct deep_token *k = &d->tok[i];
        if (k->kind == TOKEN_SITE) {
            const struct code_site *s = (const struct code_site *)k->a;
            int left = d->need - done, check = s->kept < left ? s->kept : left;
            if (1 + done + check > n || !code_site_frames_are(s, frames + 1 + done, check)) return false;
            done += s->nframes;
        } else {
            if (1 + done >= n || !alloc_code_sites_interp_is(t, k->a, k->bcp, &frames[1 + done])) return false;
            done += 1;
        }
    }
    return d->ended ? done == n - 1 : done >= d->need;
}

/* The names of the chain's interpreted frames, from the walk that confirmed them. */
static void learn_names(struct alloc_thread *at, const struct deep_chain *d, const jvmtiFrameInfo *frames,
                        uint32_t epoch)
{
    int done = 0;
    for (int i = 0; i < d->n && done < d->need; i++) {
        const struct deep_token *k = &d->tok[i];
        if (k->kind == TOKEN_SITE) {
            done += ((const struct code_site *)k->a)->nframes;
            continue;
        }
        const jvmtiFrameInfo *f = &frames[1 + done++];
        if (f->location >= 0 && k->bcp > (uintptr_t)f->location)
            *name_of(at, k->a) = (struct interp_name){k->a, k->bcp - (uintptr_t)f->location, f->method, epoch};
    }
}

void alloc_deep_learn(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                      const jvmtiFrameInfo *frames, int n, int want, struct trace *tr)
{
    if (!d || !tr) return;
    /* Read before the check: a class unloaded meanwhile leaves this one out of date. */
    uint32_t epoch = interp_epoch(t);
    if ((!d->ended && n < want) || !walk_confirms(t, d, frames, n)) {
        if (t->stats.on) atomic_fetch_add_explicit(&t->stats.deep_unconfirmed, 1, memory_order_relaxed);
        return;
    }
    keep(t, at, d, d->h1, d->h2, tr, d->interp, epoch, true);
    if (!d->interp) return;
    /* Its interpreted frames named, kept also under the hash the same frames have once
     * compiled, which a chain not found as read is looked up by. */
    learn_names(at, d, frames, epoch);
    struct named_hash h;
    if (named_hash(t, at, d, &h) && (h.h1 != d->h1 || h.h2 != d->h2))
        keep(t, at, d, h.h1, h.h2, tr, h.raw, epoch, true);
}
