/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor=y on java.util.concurrent: the state of the waits under way, shared by
 * juc_waits.c (the hooks, which keep it) and juc_waits_dump.c (MONITOR DUMP, which reads
 * it).
 */
#ifndef HPROF_JUC_WAITS_STATE_H
#define HPROF_JUC_WAITS_STATE_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct async_trace;
struct class_info;
struct monitor_entry;
struct monitor_table;
struct trace;

/* The classes rewritten; the index is the hooks' class number (0: the parks). */
enum { C_PARK, C_AQS, C_AQLS, C_STAMPED, NTARGETS };

/* Frames of java.util.concurrent on top of a park's stack looked at for the fold, at most. */
#define FOLD_MAX 32
/* The frames above the program's in most folds: the Tracker's, LockSupport.park, an
 * acquire or await and the lock's methods (ReentrantLock.lock is the 6th). */
#define FOLD_FIRST 6
#define STRIPES    64
#define SPARES     4 /* ended waits a stripe keeps */
/* Slots of the caches of what a method is to the fold and whether a class is a lock
 * (powers of two), and how far a lookup probes. */
#define KIND_SLOTS  4096
#define LOCK_SLOTS  1024
#define CACHE_PROBE 8

/* What a frame's method is to the fold (see park_trace). */
enum method_kind { K_OTHER = 1, K_TRACKER, K_JUC, K_LOCKS, K_ACQUIRE };
#define ID_BITS (((uintptr_t)1 << 56) - 1)

/* A class blockers were seen of: its entry and is_lock's answer, found by the class itself
 * (IsSameObject), which takes none of the JVM's locks that a tag lookup takes. */
#define BLOCKER_CLASSES 16
struct blocker_class {
    jweak cls; /* set before the slot is counted; cleared by the JVM once it is unloaded */
    struct class_info *info;
    bool lock;
};

/* A class's answer to is_lock, for the generation of its entry it was found for. */
struct lock_slot {
    _Atomic(struct class_info *) cls;
    _Atomic uint32_t gen_lock; /* generation << 1 | is a lock */
};

/* Where a thread's last wait was, kept with its spare (see keep_spare): the first walk
 * of that wait (when its fold needed no second one), how it folded and the trace it gave,
 * so that a thread that waits at the same place again (the same frames) takes its row
 * without the fold's look-ups or the tables'. */
#define WALK_FRAMES 16 /* depth + FOLD_FIRST frames kept, at most */
struct last_site {
    jvmtiFrameInfo walked[WALK_FRAMES];
    int n;           /* frames walked; 0: none kept */
    bool in_acquire; /* how they folded */
    uint32_t serial; /* the trace's thread (thread=y), else 0 */
    struct trace *trace;
    struct class_info *cls;
    bool contention;
    struct monitor_entry *entry;
};

/* The wait of one thread under way. */
struct juc_wait {
    jlong tid;
    uint32_t serial; /* the thread's, for MONITOR DUMP (0: it has no entry) */
    bool in_acquire; /* parked inside an acquire: the acquire's end counts it */
    bool parked;     /* parked now (not between two parks of one acquire) */
    bool resolved;   /* where it waits found (at its first park's exit): in_acquire, entry */
    uint32_t gen;    /* juc_waits.gen when it began */
    bool contention; /* on a lock: "waiting to enter" in MONITOR DUMP */
    uint64_t start;  /* the first park */
    struct monitor_entry *entry;
    jweak blocker;          /* NULL: none */
    struct class_info *cls; /* the blocker's */
    struct last_site last;
};

struct stripe {
    pthread_mutex_t lock;
    struct juc_wait **v;
    _Atomic size_t n; /* written under the lock; read without it by stripe_empty */
    size_t cap;
    /* Waits that ended, kept for their threads' next (see keep_spare). */
    struct juc_wait *spare[SPARES];
    _Atomic int nspare; /* written under the lock */
};

struct juc_waits {
    jvmtiEnv *jvmti; /* our own: its class-file hook and capabilities */
    struct monitor_table *contended, *waits;
    _Atomic bool on;
    jclass tracker;
    jfieldID flag;              /* Tracker.waits */
    jfieldID tid, park_blocker; /* Thread.tid, Thread.parkBlocker */
    jfieldID owner, state;      /* AbstractOwnableSynchronizer's owner, AQS.state */
    jclass aqs, aqls, stamped, lock, latch, aos, reentrant;
    _Atomic unsigned hooked[NTARGETS]; /* methods rewritten, by class */
    struct stripe stripes[STRIPES];
    /* One more each time a session's stop forgets the waits: a wait out of its stripe
     * meanwhile (its thread walking) is not put back after. */
    _Atomic uint32_t gen;
    struct async_trace *walker; /* the fast walk of the parking thread; NULL: GetStackTrace */
    /* jmethodID | kind << 56 (a user-space address leaves the top byte free); a method ID
     * never names another method later, and the classes whose kinds are not K_OTHER are
     * java.base's, never unloaded. */
    _Atomic uintptr_t kinds[KIND_SLOTS];
    struct lock_slot locks[LOCK_SLOTS];
    struct blocker_class bclasses[BLOCKER_CLASSES];
    _Atomic int nbclasses;
    pthread_mutex_t bclasses_lock; /* over adding one */
};

#endif
