/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether a JNI weak global reference's object was collected, read without a JNI call.
 *
 * In HotSpot a jweak is the address of a slot in the JVM's weak OopStorage with 1 in
 * its two low bits (JDK 17 tags weak references with bit 0, JDK 21 and later with the
 * value 1 in bits 0-1; slots are 8-byte aligned). The slot holds the object's address,
 * which the collector moves, and NULL once the object is dead. G1, Parallel and Serial
 * clear slots only in their pauses, so a slot that is not NULL holds a live object,
 * exactly as IsSameObject(ref, NULL) would say (for them it is a plain load of the
 * slot). ZGC and Shenandoah clear them concurrently, and a slot not yet cleared may
 * hold a dead object: for them only NULL is an answer, and the JVM is asked about the
 * rest. A read while a GC moves the object sees its old or its new
 * address, never NULL for a live one; the slot stays the reference's until it is
 * deleted.
 */
#ifndef HPROF_WEAK_SLOT_H
#define HPROF_WEAK_SLOT_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#define WEAK_SLOT_TAG_MASK ((uintptr_t)3)
#define WEAK_SLOT_TAG      ((uintptr_t)1)

/* Whether w looks like HotSpot's weak reference (checked once, on one made to test). */
static inline bool weak_slot_shaped(jweak w) { return w && ((uintptr_t)w & WEAK_SLOT_TAG_MASK) == WEAK_SLOT_TAG; }

/* The address held in the slot a HotSpot reference (weak or local) points to. */
static inline uintptr_t ref_slot_address(const void *ref)
{
    void *const *slot = (void *const *)((uintptr_t)ref & ~WEAK_SLOT_TAG_MASK);
    return (uintptr_t)__atomic_load_n(slot, __ATOMIC_RELAXED);
}

/* The object's address in w's slot (a weak_slot_shaped w). */
static inline uintptr_t weak_slot_address(jweak w) { return ref_slot_address(w); }

/* Whether w's slot is NULL: its object was collected. Only for a weak_slot_shaped w. */
static inline bool weak_slot_cleared(jweak w) { return weak_slot_address(w) == 0; }

/*
 * The address of the object a JNI local reference names, read as the JVM would: a local
 * reference (and an argument of a native method) is the address of a slot that holds
 * the object's uncompressed address, updated by a GC that moves the object. Whether
 * this holds on the running JVM is checked once (site_objects_read_slots): the same
 * object read through a weak reference's slot.
 */
static inline uintptr_t local_ref_address(jobject o) { return ref_slot_address(o); }

#endif
