/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites,callers=sampled: the allocation sites the instrumenter numbered (one per
 * allocating bytecode; a multianewarray one per dimension it makes), by number, with
 * the traces their sampled callers were found at and how many allocations each sample
 * stood for; and the groups the live estimates are taken by.
 *
 * Plain concurrent data. Numbers are dense and global; an entry is published whole
 * (release) once its class was instrumented (an allocateInstance site: once the
 * Tracker first met its class), and never freed. A site's traces are found by a sample in a striped map
 * by (site, trace), and listed for dumps in a lock-free list (the thread that made one
 * pushes it with a compare-and-swap); their weights are atomics.
 */
#ifndef HPROF_ALLOC_SITES_H
#define HPROF_ALLOC_SITES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct trace;
struct class_info;
struct frame;

/* The kinds, as classfile.h's CF_SITE_*. */
enum { ASITE_NEW = 1, ASITE_ARRAY = 2, ASITE_MULTI = 3, ASITE_CALL = 4 };
#define ASITE_NO_BCI UINT32_MAX /* a site with no allocating bytecode of its own */

struct site_trace {
    struct cmap_node node; /* in alloc_sites.traces, by (site, trace) */
    struct site_trace *next;
    const struct alloc_site *site;
    struct trace *trace;
    _Atomic uint64_t objs, bytes; /* the allocations its samples stood for */
};

struct alloc_site {
    uint32_t number, cnum, mnum, bci, new_bci;
    uint8_t kind;
    bool made;                        /* a site of what the VM makes (alloc_sites_made) */
    char *signature;                  /* the class made: "Lp/C;", "[I", "[[Ljava/lang/String;" */
    _Atomic(struct class_info *) cls; /* once resolved (a sample, or a dump) */
    _Atomic(struct site_trace *) traces;
    _Atomic uint32_t ntraces;
    _Atomic uint32_t samples;         /* callers sampled so far, all threads */
    uint64_t given_objs, given_bytes; /* what dumps have handed out to its traces' rows */
};

/* The entry in alloc_sites.instances of a site of what the VM makes. */
struct instance_site {
    struct cmap_node node;
    const struct class_info *cls;
    const struct alloc_site *call; /* the call it was made by, or NULL */
    struct alloc_site *site;
};

/* A bytecode site's live estimate: its held allocation samples (by the frame the samples'
 * traces start with and the class). */
struct live_group {
    struct cmap_node node;
    uint32_t id; /* 1 ... */
    const struct frame *top;
    const struct class_info *cls;
    _Atomic uint64_t samples, sample_bytes; /* taken so far */
    uint64_t live, live_bytes;              /* of them, live at the last count */
};

#define ALLOC_SITES_PAGE_BITS 12
#define ALLOC_SITES_PAGES     65536 /* 268 million sites */

struct alloc_sites {
    _Atomic uint32_t next;                                          /* the next number to give */
    _Atomic(struct alloc_site *) *_Atomic pages[ALLOC_SITES_PAGES]; /* made on first need */
    struct cmap traces;    /* every site's traces, by (site, trace): a sample finds its own at once */
    struct cmap instances; /* the sites of what the VM makes, by class */
    struct cmap groups;
    struct registry groups_all; /* by id - 1 */
};

void alloc_sites_init(struct alloc_sites *t);
/* n consecutive numbers, the first returned; -1 when they run out. */
long alloc_sites_number(struct alloc_sites *t, uint32_t n);
/* Publishes site `number` (copied; signature copied); false without memory. */
bool alloc_sites_add(struct alloc_sites *t, const struct alloc_site *s);
/* The site of a number, or NULL (not given, or its class failed). */
struct alloc_site *alloc_sites_at(struct alloc_sites *t, uint32_t number);
/* How many numbers were given. */
uint32_t alloc_sites_count(struct alloc_sites *t);
/* The site at which the Tracker counts the objects of class cls (signature: its
 * signature) that the VM makes (Unsafe.allocateInstance, Array.newArray, clones, ...) for
 * the call `call` (an ASITE_CALL site: the instrumenter numbered the call; NULL: none), as
 * a `new`'s or, for an array class, a newarray's (ASITE_NEW or ASITE_ARRAY, at the call's
 * place in the code; without a call new_bci is ASITE_NO_BCI and its samples' traces keep
 * their location): numbered and published on first sight; NULL without memory or
 * numbers. */
struct alloc_site *alloc_sites_made(struct alloc_sites *t, struct class_info *cls, const char *signature,
                                    const struct alloc_site *call);
/* Adds a sample's weight to the site's trace tr (made on first sight): returns how many
 * traces the site has now; 0 without memory. */
uint32_t alloc_sites_sample(struct alloc_sites *t, struct alloc_site *s, struct trace *tr, uint64_t objs,
                            uint64_t bytes);
/*
 * Splits n among k parts in proportion to weights w (largest remainder: the parts sum to
 * n exactly; ties to the lower index), into out. All weights 0: equal weights.
 */
void alloc_sites_split(uint64_t n, const uint64_t *w, uint32_t k, uint64_t *out);

/* The live group of a frame and class, made on first sight (NULL without memory). */
struct live_group *alloc_sites_group(struct alloc_sites *t, const struct frame *top, const struct class_info *cls);
/* The same, not made: NULL when none. */
struct live_group *alloc_sites_group_find(struct alloc_sites *t, const struct frame *top, const struct class_info *cls);
struct live_group *alloc_sites_group_by_id(struct alloc_sites *t, uint32_t id);
uint32_t alloc_sites_group_count(struct alloc_sites *t);

#endif
