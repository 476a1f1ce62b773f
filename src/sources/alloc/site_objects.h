/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The objects counted at allocation sites, held weakly, so that a dump can tell how many
 * of each site's objects are still alive.
 *
 * Each counted object is held by a JNI weak global reference with its site id and size.
 * Not by a JVMTI tag: SetTag costs 0.36 us (JDK 17) to 0.93 us (JDK 25) per object in
 * the JVM's tag table, under one lock, plus that table's upkeep at every GC (rehash,
 * dead entries), where a weak reference and its later sweep cost about 0.06 us
 * (measured on 10 M int[2], see BENCHMARKS.md).
 *
 * Every allocating thread appends to a log of its own, under a lock of its own that
 * only a dump ever contends for. A log is swept of the references whose objects were
 * collected once it has doubled since its last sweep and a GC has run since, so memory
 * follows the live objects, not the number of allocations. The log of a thread that
 * ended goes to the next thread that needs one (its sweeps then cover it), and every
 * dump sweeps them all.
 *
 * live=sampled: an object counted but not held still takes an entry, for a while (see
 * site_objects_note): its address in place of a reference, so that site_objects_recent
 * can still tell it from a new one, until a GC pause (which may move it). Sweeps drop
 * such entries once a pause has run since (they come after one) and count them nowhere.
 */
#ifndef HPROF_SITE_OBJECTS_H
#define HPROF_SITE_OBJECTS_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct site_ref {
    jweak ref;      /* or a note: an address (see site_objects_note) */
    uint32_t site;  /* the site id (sites.h), with SITE_REF_SAMPLED */
    uint32_t size8; /* the object's size in 8-byte units */
};

/* The entry stands for more objects than itself (live=sampled: the alloc layer says how
 * many); site ids stay far below it. */
#define SITE_REF_SAMPLED 0x80000000u

struct site_log {
    _Atomic int busy; /* its lock (site_objects.c) */
    struct site_ref *refs;
    /* How many objects each entry stands for (alloc_sample=: the weight its sample was
     * counted with when allocated), beside refs; NULL while every entry stands for one
     * (exact counts, which then pay nothing for it). */
    uint32_t *weights;
    size_t n, cap;
    size_t sweep_at;            /* sweep when n reaches it and a GC ran since */
    size_t looked;              /* entries below it were looked at by site_objects_recent */
    size_t mark;                /* entries held at the last GC's end (timeline=) */
    uint64_t gcs_seen;          /* the GC count at the last sweep */
    struct site_log *next;      /* every log, in the order they were made */
    struct site_log *next_free; /* logs of threads that ended */
};

/* How a sweep tells a collected object (sources/hotspot/weak_slot.h). */
enum site_slots {
    SLOTS_ASK,     /* IsSameObject(ref, NULL) for every reference */
    SLOTS_CLEARED, /* a NULL slot is collected; the JVM is asked about the others */
    SLOTS_READ,    /* the slot alone: the collector clears slots only in its pauses */
};

struct site_objects {
    pthread_mutex_t lock; /* the list of logs and the free list */
    struct site_log *all;
    struct site_log *free;
    _Atomic uint64_t gcs; /* GCs finished so far */
    _Atomic int slots;    /* enum site_slots */
    /* GC pauses: odd while one runs (objects move), and one more at each end. An address
     * noted is the object's as long as this count has not changed (pauses_only
     * collectors). */
    _Atomic uint64_t moves;
    _Atomic bool notes_ok; /* site_objects_note may be used (and entries may be notes) */
};

void site_objects_init(struct site_objects *t);
/* How sweeps read the references from now on: SLOTS_READ when `pauses_only` (the
 * collector is G1, Parallel or Serial), else SLOTS_CLEARED; SLOTS_ASK when a reference
 * made to `probe` does not have HotSpot's shape. With SLOTS_READ, and a local reference
 * to `probe` read as the weak one is, objects may be noted rather than held. */
void site_objects_read_slots(struct site_objects *t, JNIEnv *jni, jobject probe, bool pauses_only);
/* "slot", "null slot" or "JNI" (HPROF_STACK_STATS): how sweeps tell collected objects. */
const char *site_objects_slots_name(struct site_objects *t);
/* A log for a thread: one a thread that ended left, or a new one; NULL if out of memory. */
struct site_log *site_objects_log(struct site_objects *t);
/* The thread of this log ended (no JNI needed: the log waits for the next thread). */
void site_objects_release(struct site_objects *t, struct site_log *l);
/* Called when a GC pause begins, and when a GC has finished (any thread, no JNI). */
void site_objects_gc_started(struct site_objects *t);
void site_objects_gc_finished(struct site_objects *t);

/* Holds obj for the site (SITE_REF_SAMPLED in site: it stands for more objects than
 * itself). Returns false if the JVM or memory refused. */
bool site_objects_add(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                      uint64_t size);
/* The same for an object that stands for `weight` objects of its size (a sample): the
 * sweeps give live() that weight back, so that its live estimate is the one its
 * allocation was counted with. */
bool site_objects_add_weighted(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                               uint64_t size, uint32_t weight);
/* Whether objects can be noted, not held (site_objects_read_slots). */
bool site_objects_can_note(struct site_objects *t);
/*
 * Notes obj, counted at site but not held: its live count is left to the objects held.
 * The entry remembers the object's address (obj is a local reference, read as HotSpot
 * lays it out), for site_objects_recent, until the next GC pause. Returns false when it
 * cannot (the caller then holds obj).
 */
bool site_objects_note(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                       uint64_t size);

/* Whether obj is the object this log took last. */
bool site_objects_is_last(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj);
/*
 * Whether obj is held or noted in this log already, among the entries `same_site(site,
 * ctx)` accepts: the entries added since the last call, and `overlap` before them (at
 * most `max_scan` in all). Each entry is looked at about once, however many calls there
 * are. A note taken before a GC pause (which may have moved its object) matches nothing.
 */
bool site_objects_recent(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj,
                         bool (*same_site)(uint32_t site, void *ctx), void *ctx, size_t overlap, size_t max_scan);

/* How many objects the logs hold (collected ones not yet swept included; not the
 * notes). A scan of every log: for HPROF_STACK_STATS. */
size_t site_objects_held(struct site_objects *t);

/* Drops the references of collected objects from every log, then calls live() for
 * each object still held (no other sweep runs meanwhile); site keeps SITE_REF_SAMPLED,
 * weight is the one it was added with (1 by site_objects_add). */
typedef void (*site_objects_fn)(uint32_t site, uint64_t size, uint32_t weight, void *ctx);
void site_objects_sweep(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx);
/* The same; when `marked`, live() is called only for the objects that were held when the
 * last GC ended (timeline=: the live counts of that GC, not of the allocations since). */
void site_objects_sweep_at_gc(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx, bool marked);

/* Tags each object still held with its site id (without SITE_REF_SAMPLED) in env (an
 * environment with can_tag_objects), for a reference walk to read; with `weights`, its
 * weight in the tag's bits 32 and up (site_objects_tag_site/_weight read them back). */
void site_objects_tag(struct site_objects *t, jvmtiEnv *env, bool weights);
uint32_t site_objects_tag_site(jlong tag);
uint32_t site_objects_tag_weight(jlong tag);

#endif
