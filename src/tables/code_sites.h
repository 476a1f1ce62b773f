/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Call sites in compiled code, by return address: what the JIT inlined at each of them,
 * and the allocation trace found there last.
 *
 * exact heap=sites walks the stack on every allocation, and the walk is most of its cost.
 * When the JIT has inlined Object.<init> and enough of its callers into one compiled
 * method, the return address of the call into the agent names the whole trace: the
 * JVM's CompiledMethodLoad records say which methods and bytecode indices each such
 * address stands for. When it inlined fewer, the return address one frame further up,
 * into the compiled method that called this one, names the rest; so the table also
 * keeps every other call of compiled code, with its innermost frame and how many frames
 * were inlined there.
 *
 * Entries are written once and never move or go away; an unloaded method's entries are
 * marked dead, and their slots taken by later ones. Readers (allocating threads) take
 * no lock; writers (the JVM's compiled-method events) take the table's lock.
 */
#ifndef HPROF_CODE_SITES_H
#define HPROF_CODE_SITES_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CODE_SITE_FRAMES 8  /* inlined frames kept at most per site, innermost first */
#define CODE_SITE_CODE   16 /* machine code bytes kept from the return address on */

struct trace;

struct code_frame {
    jmethodID method;
    int32_t bci;
};

struct code_site {
    _Atomic uintptr_t cached;          /* struct trace * | depth in the high bits (see .c) */
    uintptr_t pc;                      /* the return address */
    uintptr_t code_addr;               /* its compiled method's start */
    struct code_site *next_same_code;  /* the next site of that method (table's lock) */
    uint32_t frame_size;               /* bytes of that method's frame, its caller's return
                                        address included; 0: not known */
    uint8_t nframes;                   /* inlined frames at pc (all of them, up to 255) */
    uint8_t kept;                      /* how many of them frames[] holds */
    _Atomic bool dead;                 /* its compiled method was unloaded */
    uint64_t fh1, fh2;                 /* its frames hashed (code_sites_fold_site) */
    uint64_t code[CODE_SITE_CODE / 8]; /* the code at pc when compiled, its stable bytes only */
    uint16_t stable;                   /* bit i: code byte i must still be the same (not a
                                          call's target, patched when resolved) */
    struct code_frame frames[];
};

struct code_sites {
    /* Each slot: an entry's address, with 16 bits of its pc's hash above bit 48 (a
     * 64-bit Linux address has none there), so that a lookup passes other pcs' entries
     * without reading them. */
    _Atomic uintptr_t *slots;
    uint32_t mask; /* slots - 1, a power of two minus one */
    uint32_t used; /* under lock */
    struct code_method {
        uintptr_t code_addr;
        struct code_site *first;
    } * methods;
    uint32_t methods_mask, methods_used;
    char *chunk; /* entries are carved from chunks, freed at the end */
    size_t chunk_left;
    uint32_t chunks;
    _Atomic uint32_t unloads; /* compiled methods unloaded so far (code_site_ref) */
    pthread_mutex_t lock;
};

/*
 * A reader's own copy of a site, in a cache of its own (code_sites_find_cached): what an
 * allocation's lookup needs, kept where the reading thread finds it without the shared
 * table's two cache misses (its slot, then the entry). A copy stays good while no
 * compiled method was unloaded since it was made and the code at pc is still what was
 * compiled there. 64 bytes.
 */
struct code_site_ref {
    uintptr_t pc;
    struct code_site *site;
    struct trace *trace;               /* the reader's: the site's trace at depth, once it had one */
    jmethodID first;                   /* the innermost inlined frame's method (NULL: none kept) */
    uint64_t code[CODE_SITE_CODE / 8]; /* as the site's */
    uint32_t unloads;                  /* the table's unloads when copied */
    uint32_t frame_size;
    uint16_t stable; /* as the site's */
    uint16_t depth;  /* of trace */
    uint8_t nframes, kept;
};

/* false when out of memory (the table then stays empty and finds nothing). */
bool code_sites_init(struct code_sites *t, uint32_t slots);
void code_sites_destroy(struct code_sites *t);

/* A call site of the compiled method at code_addr: its return address, the code there
 * (CODE_SITE_CODE bytes), the method's frame size (0 if not known), and its nframes
 * inlined frames (methods and bcis hold them all: all are hashed), of which the first
 * `keep` are kept. Full table: not added. */
void code_sites_add(struct code_sites *t, uintptr_t code_addr, uintptr_t pc, const uint8_t *code, uint32_t frame_size,
                    int nframes, int keep, const jmethodID *methods, const jint *bcis);
/* The compiled method at code_addr was unloaded: its sites are dead. */
void code_sites_unload(struct code_sites *t, uintptr_t code_addr);

/* The live site at pc whose code is still what was compiled there, or NULL. */
struct code_site *code_sites_find(struct code_sites *t, uintptr_t pc);
/* The same through a reader's cache of mask + 1 copies (a power of two): the copy of the
 * live site at pc, or NULL. The copy may be overwritten by the reader's next lookup. */
struct code_site_ref *code_sites_find_cached(struct code_sites *t, struct code_site_ref *cache, uint32_t mask,
                                             uintptr_t pc);
/* The trace cached at a site for this depth, or NULL. */
struct trace *code_site_trace(struct code_site *s, int depth);
/* Caches a trace at a site for this depth. */
void code_site_set_trace(struct code_site *s, struct trace *tr, int depth);

/*
 * Chains of frames hashed frame by frame, two 64-bit polynomial hashes (h1, h2), so that
 * the same frames hash the same however the JIT split them among compiled methods (a
 * method compiled again, at another tier, with more or less inlined): each site keeps
 * its own frames' share, and a chain folds in whole sites.
 */
/* One frame, or a mark between frames, given as a word already mixed. */
void code_sites_fold_word(uint64_t *h1, uint64_t *h2, uint64_t word);
/* A frame as a word: its method and bytecode index (-1: a native method's). A site's
 * frames are hashed as these, and so must any frame that is to hash the same. */
uint64_t code_sites_frame_word(jmethodID method, jint bci);
/* The frames inlined at site s, innermost first. */
void code_sites_fold_site(uint64_t *h1, uint64_t *h2, const struct code_site *s);

/*
 * The frame size of the x86-64 compiled method whose code starts at code (n bytes
 * readable), from its prologue: HotSpot's compilers bang the stack, push rbp and
 * subtract the rest of the frame from rsp. 0 when that prologue is not found.
 */
uint32_t code_sites_frame_size(const uint8_t *code, size_t n);

/* Whether the 5 bytes before a return address are a near call (the calls between
 * compiled Java methods are). */
bool code_sites_is_call(const uint8_t *pc, const uint8_t *code_start);

#endif
