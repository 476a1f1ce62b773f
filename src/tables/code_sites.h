/*
 * Call sites in compiled code, by return address: what the JIT inlined at each of them,
 * and the allocation trace found there last.
 *
 * exact heap=sites walks the stack on every allocation, and the walk is most of its cost.
 * When the JIT has inlined Object.<init> and enough of its callers into one compiled
 * method, the return address of the call into the agent names the whole trace: the
 * JVM's CompiledMethodLoad records say which methods and bytecode indices each such
 * address stands for. The table keeps those addresses (entries are written once and
 * never move; an unloaded method's entries are marked dead), and the trace of each
 * once a walk has found it, for the depth it was found at.
 *
 * Readers (allocating threads) take no lock. Writers (the JVM's compiled-method events)
 * take the table's lock.
 */
#ifndef HPROF_CODE_SITES_H
#define HPROF_CODE_SITES_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CODE_SITE_FRAMES 8          /* inlined frames kept per site, innermost first */
#define CODE_SITE_CODE 16           /* machine code bytes kept from the return address on */

struct trace;

struct code_site {
    _Atomic uintptr_t pc;            /* the return address; 0: a free slot; set last */
    _Atomic bool dead;               /* its compiled method was unloaded */
    _Atomic uintptr_t cached;        /* struct trace * | depth in the low bits (see .c) */
    uintptr_t code_addr;             /* its compiled method's start */
    uint32_t next_same_code;         /* index + 1 of the next site of that method, 0: none */
    uint8_t nframes;                 /* inlined frames at pc (all of them, up to 255) */
    uint8_t code[CODE_SITE_CODE];    /* the code at pc when it was compiled */
    jmethodID methods[CODE_SITE_FRAMES];
    int32_t bcis[CODE_SITE_FRAMES];
};

struct code_sites {
    struct code_site *slots;
    uint32_t mask;                   /* slots - 1, a power of two minus one */
    uint32_t used;                   /* under lock */
    struct { uintptr_t code_addr; uint32_t first; } *methods;   /* code_addr -> its chain */
    uint32_t methods_mask, methods_used;
    pthread_mutex_t lock;
};

/* false when out of memory (the table then stays empty and finds nothing). */
bool code_sites_init(struct code_sites *t, uint32_t slots);
void code_sites_destroy(struct code_sites *t);

/* A call site of the compiled method at code_addr: its return address, the code there
 * (CODE_SITE_CODE bytes), and its inlined frames. Full table: not added. */
void code_sites_add(struct code_sites *t, uintptr_t code_addr, uintptr_t pc, const uint8_t *code,
                    int nframes, const jmethodID *methods, const jint *bcis);
/* The compiled method at code_addr was unloaded: its sites are dead. */
void code_sites_unload(struct code_sites *t, uintptr_t code_addr);

/* The live site at pc whose code is still what was compiled there, or NULL. */
struct code_site *code_sites_find(struct code_sites *t, uintptr_t pc);
/* The trace cached at a site for this depth, or NULL. */
struct trace *code_site_trace(struct code_site *s, int depth);
/* Caches a trace at a site for this depth. */
void code_site_set_trace(struct code_site *s, struct trace *tr, int depth);

#endif
