/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites at depths one code site cannot name: the trace of an allocation found by
 * the chain of frames of its stack as they lie in memory (sources/alloc/alloc_deep.c).
 */
#ifndef HPROF_ALLOC_DEEP_H
#define HPROF_ALLOC_DEEP_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/alloc/alloc_state.h"

/* A chain of frames as read from the stack (see alloc_deep.c): a compiled frame's code
 * site (a), or an interpreted frame's Method* (a) and bytecode pointer. */
#define DEEP_MAX        128
#define DEEP_CHAINS_MAX (1u << 21) /* chains learnt at most (96 MiB); later ones walked */
#define DEEP_MARKS      8          /* calls into Java, and the end, a chain keeps where */
#define DEEP_NAMES      512        /* interpreted methods a thread knows the names of */
struct deep_token {
    uintptr_t a, bcp;
    int kind;
};
struct deep_chain {
    struct deep_token tok[DEEP_MAX];
    int n;       /* tokens */
    int have;    /* frames they hold */
    int need;    /* frames the trace takes, with the site's own on top */
    int entries; /* calls into Java from the VM or native code it goes across */
    bool interp, ended;
    uint64_t h1, h2;
    /* Where the marks of calls into Java and of the stack's end fell (before token
     * mark_at[i]), to hash the chain again with its frames named; nmarks may pass
     * DEEP_MARKS (the chain is then not hashed again). */
    int nmarks;
    uint8_t mark_at[DEEP_MARKS], mark_kind[DEEP_MARKS];
};

/* What a walk said an interpreted method is: its jmethodID, and where its bytecode
 * starts (a frame's bytecode pointer less its bytecode index), while interp_epoch is
 * epoch (a Method* may stand for another method once a class is unloaded). */
struct interp_name {
    uintptr_t method, code;
    jmethodID id;
    uint32_t epoch;
};

/* A chain's trace, in a thread's cache (alloc_deep.c's table's key and value). */
struct deep_slot {
    uint64_t h1, h2;
    int have, need;
    struct trace *trace;
    uint32_t epoch;
};

/* The chain from compiled site cs, called at stack pointer sp, until it holds need
 * frames or the stack ends; false when a frame cannot be read. */
bool alloc_deep_chain(struct alloc_tracker *t, struct alloc_thread *at, const struct code_site_ref *cs, uintptr_t sp,
                      int need, struct deep_chain *d);
/* The trace a walk found for the same chain before (in the thread's cache, else the
 * shared table: *cached says which); NULL if none did. */
struct trace *alloc_deep_trace(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                               bool *cached);
/* After a walk of want frames (n found; frames[0] ours) found tr: kept for chain d if
 * the walk confirms it. */
void alloc_deep_learn(struct alloc_tracker *t, struct alloc_thread *at, const struct deep_chain *d,
                      const jvmtiFrameInfo *frames, int n, int want, struct trace *tr);

#endif
