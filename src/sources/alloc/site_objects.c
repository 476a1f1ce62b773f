/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/alloc/site_objects.h"

#include "sources/hotspot/weak_slot.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_MIN 4096 /* entries a log holds before its first sweep */

/*
 * A note (site_objects_note) in place of a reference: the object's address with NOTE_TAG
 * in its low bits (a weak reference has 1 there, an address is 8-byte aligned), and in
 * its top 16 bits the low bits of the pause count (moves) when it was read (user-space
 * addresses are below 2^47). The address is the object's while that count stays the
 * same; after a pause the note can tell nothing, and the next sweep drops it.
 */
#define NOTE_TAG        ((uintptr_t)2)
#define NOTE_EPOCH_BITS 16
#define NOTE_EPOCH_MASK ((uintptr_t)0xffff)
#define NOTE_ADDR_MASK  ((((uintptr_t)1) << (64 - NOTE_EPOCH_BITS)) - 1)

static uintptr_t note_epoch(jweak note) { return (uintptr_t)note >> (64 - NOTE_EPOCH_BITS); }

/* Whether entries may be notes: only where notes are taken, since elsewhere a reference
 * unlike HotSpot's may have any low bits. Read once per pass over a log. */
static bool notes_on(const struct site_objects *t) { return atomic_load_explicit(&t->notes_ok, memory_order_relaxed); }

static bool is_note(bool notes, jweak r) { return notes && ((uintptr_t)r & 3) == NOTE_TAG; }

/*
 * A log's lock. Its own thread takes it at every allocation and almost never finds it
 * taken (only a dump's or a GC's sweep of all logs does), so it is one compare-and-swap
 * and one store, where a mutex costs two atomic operations and two calls. A thread that
 * finds it taken waits as a mutex's waiter would, for the other's sweep of this log:
 * spinning a little, then sleeping 50 us at a time.
 */
static void log_lock(struct site_log *l)
{
    for (unsigned tries = 0;; tries++) {
        int free_ = 0;
        if (atomic_compare_exchange_weak_explicit(&l->busy, &free_, 1, memory_order_acquire, memory_order_relaxed))
            return;
        if (tries < 100) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
}

static void log_unlock(struct site_log *l) { atomic_store_explicit(&l->busy, 0, memory_order_release); }

static uint32_t size8_of(uint64_t size)
{
    uint64_t size8 = (size + 7) >> 3;
    return size8 > UINT32_MAX ? UINT32_MAX : (uint32_t)size8;
}

void site_objects_init(struct site_objects *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    atomic_init(&t->gcs, 0);
    atomic_init(&t->slots, SLOTS_ASK);
}

void site_objects_read_slots(struct site_objects *t, JNIEnv *jni, jobject probe, bool pauses_only)
{
    jweak w = probe ? (*jni)->NewWeakGlobalRef(jni, probe) : NULL;
    bool shaped = weak_slot_shaped(w) && !weak_slot_cleared(w);
    /* Both read in native code: a GC between the two reads would tell them apart,
     * and notes would only be refused. */
    bool same = shaped && local_ref_address(probe) == weak_slot_address(w);
    if (w) (*jni)->DeleteWeakGlobalRef(jni, w);
    atomic_store(&t->slots, !shaped ? SLOTS_ASK : pauses_only ? SLOTS_READ : SLOTS_CLEARED);
    atomic_store(&t->notes_ok, same && pauses_only);
}

bool site_objects_can_note(struct site_objects *t) { return atomic_load(&t->notes_ok); }

/* Reads obj's address into *addr; returns the pause count it goes with, odd when a
 * pause ran across the read (or runs): such an epoch matches no later read. */
static uint64_t address_now(struct site_objects *t, jobject obj, uintptr_t *addr)
{
    uint64_t before = atomic_load(&t->moves);
    *addr = local_ref_address(obj);
    return atomic_load(&t->moves) == before ? before : before | 1;
}

const char *site_objects_slots_name(struct site_objects *t)
{
    int slots = atomic_load(&t->slots);
    return slots == SLOTS_READ ? "slot" : slots == SLOTS_CLEARED ? "null slot" : "JNI";
}

/* Whether the object of ref was collected. The slot read saves a JNI call (a switch
 * into the VM and back) per reference and sweep: most of what a sweep costs. */
static bool collected(int slots, JNIEnv *jni, jweak ref)
{
    if (slots != SLOTS_ASK && weak_slot_cleared(ref)) return true;
    if (slots == SLOTS_READ) return false;
    return (*jni)->IsSameObject(jni, ref, NULL);
}

struct site_log *site_objects_log(struct site_objects *t)
{
    pthread_mutex_lock(&t->lock);
    struct site_log *l = t->free;
    if (l) {
        t->free = l->next_free;
        l->next_free = NULL;
    } else if ((l = calloc(1, sizeof *l))) {
        l->sweep_at = SWEEP_MIN;
        l->next = t->all;
        __atomic_store_n(&t->all, l, __ATOMIC_RELEASE); /* read by the GC's mark */
    }
    pthread_mutex_unlock(&t->lock);
    return l;
}

void site_objects_release(struct site_objects *t, struct site_log *l)
{
    if (!l) return;
    pthread_mutex_lock(&t->lock);
    l->next_free = t->free;
    t->free = l;
    pthread_mutex_unlock(&t->lock);
}

/* Odd from a pause's start, even and larger after its end: a finish whose start went
 * unseen still moves the count on. (GC events come one at a time.) */
void site_objects_gc_started(struct site_objects *t) { atomic_fetch_or(&t->moves, 1); }

/* In the GC (a JVMTI callback): no lock may be taken, since a thread in native can hold
 * its log's lock while it waits for this safepoint to end; the counts are read as they
 * are (a log is only prepended to the list; an entry of a thread caught in the middle of
 * its append may fall on either side of the mark). */
void site_objects_gc_finished(struct site_objects *t)
{
    atomic_store(&t->moves, (atomic_load(&t->moves) | 1) + 1);
    /* Counted twice, before and after the marks (odd: marking), so that a sweep can tell
     * a GC came while it compacted the log (sweep_log). */
    atomic_fetch_add(&t->gcs, 1);
    for (struct site_log *l = __atomic_load_n(&t->all, __ATOMIC_ACQUIRE); l; l = l->next)
        __atomic_store_n(&l->mark, __atomic_load_n(&l->n, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);
    atomic_fetch_add(&t->gcs, 1);
}

/* Drops the entries whose objects were collected, keeping the others in order; calls
 * live() for each kept one when given. The log's lock is held. */
static void sweep_log(struct site_objects *t, struct site_log *l, JNIEnv *jni, site_objects_fn live, void *ctx,
                      bool marked)
{
    uint64_t gcs = atomic_load(&t->gcs);
    int slots = atomic_load_explicit(&t->slots, memory_order_relaxed);
    size_t kept = 0, looked = 0, mark = __atomic_load_n(&l->mark, __ATOMIC_SEQ_CST), new_mark = 0;
    uint64_t moves = atomic_load(&t->moves);
    bool notes = notes_on(t);
    for (size_t i = 0; i < l->n; i++) {
        struct site_ref e = l->refs[i];
        if (i == l->looked) looked = kept;
        if (i == mark) new_mark = kept;
        if (is_note(notes, e.ref)) {
            if (!(moves & 1) && note_epoch(e.ref) == (moves & NOTE_EPOCH_MASK)) {
                if (l->weights) l->weights[kept] = l->weights[i];
                l->refs[kept++] = e;
            }
            continue;
        }
        if (collected(slots, jni, e.ref)) {
            (*jni)->DeleteWeakGlobalRef(jni, e.ref);
            continue;
        }
        uint32_t weight = l->weights ? l->weights[i] : 1;
        if (live && (!marked || i < mark)) live(e.site, (uint64_t)e.size8 << 3, weight, ctx);
        if (l->weights) l->weights[kept] = weight;
        l->refs[kept++] = e;
    }
    l->looked = l->looked >= l->n ? kept : looked;
    __atomic_store_n(&l->mark, mark >= l->n ? kept : new_mark, __ATOMIC_SEQ_CST);
    __atomic_store_n(&l->n, kept, __ATOMIC_SEQ_CST);
    /* A GC during the sweep marked the log as it was: every entry (nothing is appended
     * while the sweep holds the lock); one after this check reads the new count. */
    if (atomic_load(&t->gcs) != gcs) __atomic_store_n(&l->mark, kept, __ATOMIC_SEQ_CST);
    l->sweep_at = kept * 2 > SWEEP_MIN ? kept * 2 : SWEEP_MIN;
    /* Give memory back once most of the log's objects are gone. */
    if (l->cap > SWEEP_MIN && kept < l->cap / 4) {
        struct site_ref *refs = realloc(l->refs, l->sweep_at * sizeof *refs);
        if (refs) {
            l->refs = refs;
            l->cap = l->sweep_at;
            /* (a shrink refused leaves the larger block, still big enough) */
            uint32_t *w = l->weights ? realloc(l->weights, l->cap * sizeof *w) : NULL;
            if (w) l->weights = w;
        }
    }
}

/* Room for one more entry, and for its weight when it is not 1 (the weights of the
 * entries before it then 1); false when out of memory. The log's lock is held. */
static bool make_room(struct site_log *l, uint32_t weight)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        /* The weights first: a refused refs leaves them only larger than needed. */
        if (l->weights) {
            uint32_t *w = realloc(l->weights, cap * sizeof *w);
            if (!w) return false;
            l->weights = w;
        }
        struct site_ref *refs = realloc(l->refs, cap * sizeof *refs);
        if (!refs) return false;
        l->refs = refs;
        l->cap = cap;
    }
    if (weight != 1 && !l->weights) {
        if (!(l->weights = malloc(l->cap * sizeof *l->weights))) return false;
        for (size_t i = 0; i < l->n; i++) l->weights[i] = 1;
    }
    return true;
}

/* Appends an entry (its lock taken, and given back); false when out of memory. */
static bool append(struct site_objects *t, struct site_log *l, JNIEnv *jni, jweak ref, uint32_t site, uint64_t size,
                   uint32_t weight)
{
    log_lock(l);
    if (l->n >= l->sweep_at) {
        /* Only a GC clears references: without one since the last sweep there is
         * nothing to drop, and the log grows until the next. */
        uint64_t gcs = atomic_load_explicit(&t->gcs, memory_order_relaxed);
        if (gcs != l->gcs_seen) {
            l->gcs_seen = gcs;
            sweep_log(t, l, jni, NULL, NULL, false);
        }
    }
    if (!make_room(l, weight)) {
        log_unlock(l);
        return false;
    }
    if (l->weights) l->weights[l->n] = weight;
    l->refs[l->n] = (struct site_ref){ref, site, size8_of(size)};
    __atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE); /* read by the GC's mark */
    log_unlock(l);
    return true;
}

bool site_objects_add_weighted(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                               uint64_t size, uint32_t weight)
{
    jweak ref = (*jni)->NewWeakGlobalRef(jni, obj);
    if (!ref) return false;
    if (append(t, l, jni, ref, site, size, weight ? weight : 1)) return true;
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    return false;
}

bool site_objects_add(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                      uint64_t size)
{
    return site_objects_add_weighted(t, l, jni, obj, site, size, 1);
}

/* jni: for the sweep of the log that the append may run. */
bool site_objects_note(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj, uint32_t site,
                       uint64_t size)
{
    uintptr_t addr;
    uint64_t epoch = address_now(t, obj, &addr);
    if (!addr || (addr & 7) || (addr & ~NOTE_ADDR_MASK)) return false;
    uintptr_t note = addr | NOTE_TAG | (uintptr_t)(epoch & NOTE_EPOCH_MASK) << (64 - NOTE_EPOCH_BITS);
    return append(t, l, jni, (jweak)note, site, size, 1);
}

/* A note names obj when both addresses were read with no pause since (epoch, even). */
static bool note_is(jweak note, uintptr_t addr, uint64_t epoch)
{
    return note_epoch(note) == (epoch & NOTE_EPOCH_MASK) && ((uintptr_t)note & NOTE_ADDR_MASK & ~NOTE_TAG) == addr;
}

/* A note is never the object asked about: what is asked is whether the VM's own copy
 * (clone) was the last object counted, and the VM's objects are always held. */
bool site_objects_is_last(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj)
{
    log_lock(l);
    bool last =
        l->n && !is_note(notes_on(t), l->refs[l->n - 1].ref) && (*jni)->IsSameObject(jni, l->refs[l->n - 1].ref, obj);
    log_unlock(l);
    return last;
}

bool site_objects_recent(struct site_objects *t, struct site_log *l, JNIEnv *jni, jobject obj,
                         bool (*same_site)(uint32_t site, void *ctx), void *ctx, size_t overlap, size_t max_scan)
{
    bool found = false, notes = notes_on(t);
    uintptr_t addr;
    /* Notes of objects a pause may have moved since cannot tell: they never match. */
    uint64_t epoch = address_now(t, obj, &addr);
    log_lock(l);
    size_t end = l->looked > overlap ? l->looked - overlap : 0;
    if (l->n - end > max_scan) end = l->n - max_scan;
    for (size_t i = l->n; i > end; i--) {
        const struct site_ref *e = &l->refs[i - 1];
        if (!same_site(e->site & ~SITE_REF_SAMPLED, ctx)) continue;
        if (is_note(notes, e->ref) ? !(epoch & 1) && note_is(e->ref, addr, epoch)
                                   : (*jni)->IsSameObject(jni, e->ref, obj)) {
            found = true;
            break;
        }
    }
    l->looked = l->n;
    log_unlock(l);
    return found;
}

size_t site_objects_held(struct site_objects *t)
{
    size_t n = 0;
    bool notes = notes_on(t);
    pthread_mutex_lock(&t->lock);
    for (struct site_log *l = t->all; l; l = l->next) {
        log_lock(l);
        for (size_t i = 0; i < l->n; i++) n += !is_note(notes, l->refs[i].ref);
        log_unlock(l);
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

void site_objects_sweep(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx)
{
    site_objects_sweep_at_gc(t, jni, live, ctx, false);
}

void site_objects_sweep_at_gc(struct site_objects *t, JNIEnv *jni, site_objects_fn live, void *ctx, bool marked)
{
    pthread_mutex_lock(&t->lock); /* no log is made or handed over meanwhile */
    for (struct site_log *l = t->all; l; l = l->next) {
        log_lock(l);
        sweep_log(t, l, jni, live, ctx, marked);
        log_unlock(l);
    }
    pthread_mutex_unlock(&t->lock);
}

void site_objects_tag(struct site_objects *t, jvmtiEnv *env, bool weights)
{
    bool notes = notes_on(t);
    pthread_mutex_lock(&t->lock);
    for (struct site_log *l = t->all; l; l = l->next) {
        log_lock(l);
        /* A collected object's reference is refused (JVMTI_ERROR_INVALID_OBJECT). */
        for (size_t i = 0; i < l->n; i++) {
            if (is_note(notes, l->refs[i].ref)) continue;
            jlong tag = (jlong)(l->refs[i].site & ~SITE_REF_SAMPLED);
            if (weights && l->weights) tag |= (jlong)l->weights[i] << 32;
            (*env)->SetTag(env, l->refs[i].ref, tag);
        }
        log_unlock(l);
    }
    pthread_mutex_unlock(&t->lock);
}

uint32_t site_objects_tag_site(jlong tag) { return (uint32_t)((uint64_t)tag & 0xffffffffu); }

/* (an entry that stands for one object has no weight in its tag) */
uint32_t site_objects_tag_weight(jlong tag)
{
    uint32_t w = (uint32_t)((uint64_t)tag >> 32);
    return w ? w : 1;
}
