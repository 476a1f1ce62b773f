/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Objects the walk named and never visited. HotSpot's walk reports references to some
 * objects it then never visits (objects of the class-data-sharing archive, int.class and
 * the other primitive mirrors). They are found by their marks, read through JNI and
 * written after the walk; what they refer to may need the same, so this goes round until
 * nothing is left.
 *
 * JNI needs references to them, which JVMTI gives for tags (GetObjectsWithTags) at a cost
 * of (tagged objects x tags asked for). So they are fetched with one tag for all: a pass
 * over the instances of the classes that have some (walk_count_pending) notes their IDs
 * in heap order and gives them the one tag; the objects fetched for it are numbered 1, 2,
 * 3 ... in a JVMTI environment of their own, where a second pass sees only them, in heap
 * order, which matches the numbers to the IDs; then their IDs are put back. (Should a
 * full GC move them in between, the order check fails and they are left out, with an
 * error.)
 */
#include "sources/heapdump/heap_unvisited.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/heap_names.h"
#include "sources/heapdump/heap_classes.h"
#include "sources/heapdump/heap_roots.h"
#include "sources/heapdump/heap_objects.h"
#include "sources/heapdump/heap_times.h"
#include "sources/host.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/log.h"

#define TAG_FETCH ((jlong)((1ull << 62) | 1u)) /* ID 0: never an object's */

static jint JNICALL on_find_unvisited(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    jlong tag = *tag_ptr;
    if (!tag_is_object(tag) || walk_marks_of(w, tag_object_id(tag)) != MARK_NAMED) return 0;
    if (!grow_array((void **)&w->pending, &w->pending_cap, w->npending + 1, sizeof *w->pending) ||
        !grow_array((void **)&w->pending_size, &w->pending_size_cap, w->npending + 1, sizeof *w->pending_size)) {
        w->oom = true;
        return 0;
    }
    w->pending_size[w->npending] = size;
    w->pending[w->npending++] = tag;
    *tag_ptr = TAG_FETCH;
    return 0;
}

/* Second pass, in an environment where only the fetched objects carry tags (their
 * numbers): object number i is, in heap order, the k-th one the first pass found. */
static jint JNICALL on_number_unvisited(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    size_t k = w->fetch_seen++;
    uint64_t i = ((uint64_t)*tag_ptr >> 1) - 1;
    if (k >= w->npending || i >= w->npending || w->pending_size[k] != size) {
        w->fetch_bad = true;
        return 0;
    }
    w->fetch_order[i] = (uint32_t)k;
    return 0;
}

/* The classes that still have objects named and not written, as local references; NULL
 * (and *n = 0) when objects of unknown classes are among them: then the whole heap is read. */
static jclass *pending_classes(struct walk *w, jint *n)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    JNIEnv *jni = w->jni;
    *n = 0;
    if (w->pending_unknown > 0) return NULL;
    jint all_n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &all_n, &all) != JVMTI_ERROR_NONE) return NULL;
    (*jni)->EnsureLocalCapacity(jni, all_n + 256);
    jclass *keep = malloc(((size_t)all_n + 1) * sizeof *keep);
    for (jint i = 0; i < all_n; i++) {
        struct hd_class *c = keep ? walk_class_of_ref(w, all[i]) : NULL;
        if (c && w->ext[c - w->cls].pending > 0)
            keep[(*n)++] = all[i];
        else
            (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    return keep;
}

static void free_classes(JNIEnv *jni, jclass *classes, jint n)
{
    for (jint i = 0; i < n; i++) (*jni)->DeleteLocalRef(jni, classes[i]);
    free(classes);
}

/* One pass over the heap, or over the instances of each of the classes (same order each time). */
static void heap_pass(jvmtiEnv *env, jint heap_filter, jclass *classes, jint n, jvmtiHeapCallbacks *cb, struct walk *w)
{
    if (!classes) {
        (*env)->IterateThroughHeap(env, heap_filter, NULL, cb, w);
        return;
    }
    for (jint i = 0; i < n; i++) (*env)->IterateThroughHeap(env, heap_filter, classes[i], cb, w);
}

/* Numbers the fetched objects in an environment of their own and passes over them in
 * heap order: w->fetch_order[i] is then objs[i]'s index in w->pending. */
static void number_fetched(struct walk *w, jobject *objs, jint got, jclass *classes, jint nclasses)
{
    jvmtiEnv *nj = NULL;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*w->h->vm)->GetEnv(w->h->vm, (void **)&nj, JVMTI_VERSION_1_2) != JNI_OK) nj = NULL;
    if (!nj || (*nj)->AddCapabilities(nj, &caps) != JVMTI_ERROR_NONE) w->fetch_bad = true;
    for (jint i = 0; i < got && !w->fetch_bad; i++) (*nj)->SetTag(nj, objs[i], tag_for_object_id((uint32_t)i + 1));
    if (!w->fetch_bad) {
        jvmtiHeapCallbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.heap_iteration_callback = on_number_unvisited;
        heap_pass(nj, JVMTI_HEAP_FILTER_UNTAGGED, classes, nclasses, &cb, w);
        if (w->fetch_seen != w->npending) w->fetch_bad = true;
    }
    if (nj) (*nj)->DisposeEnvironment(nj);
}

/* Fetches the objects the pass tagged TAG_FETCH, matched to w->pending; *got of them. */
static jobject *fetch(struct walk *w, jclass *classes, jint nclasses, jint *got)
{
    jvmtiEnv *jvmti = w->tj;
    jobject *objs = NULL;
    *got = 0;
    (*w->jni)->EnsureLocalCapacity(w->jni, (jint)w->npending + 256);
    jlong tag = TAG_FETCH;
    if ((*jvmti)->GetObjectsWithTags(jvmti, 1, &tag, got, &objs, NULL) != JVMTI_ERROR_NONE) *got = 0;
    double t_fetched = clock_s();
    w->fetch_order = calloc(w->npending + 1, sizeof *w->fetch_order);
    w->fetch_seen = 0;
    w->fetch_bad = !w->fetch_order || (size_t)*got != w->npending;
    number_fetched(w, objs, *got, classes, nclasses);
    if (heap_times())
        fprintf(stderr, "heap dump: numbered (%.3f s, fetched at %.3f s)\n", clock_s() - w->t0, t_fetched - w->t0);
    return objs;
}

/* One round: the objects named and not written found, fetched and written. false when
 * nothing is left to do. */
static bool write_round(struct walk *w, int round)
{
    JNIEnv *jni = w->jni;
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = on_find_unvisited;
    w->npending = 0;
    jint nclasses = 0;
    jclass *classes = pending_classes(w, &nclasses);
    if (classes && !nclasses) {
        free(classes);
        return false; /* nothing left anywhere */
    }
    heap_pass(w->tj, 0, classes, nclasses, &cb, w);
    if (!w->npending) {
        free_classes(jni, classes, nclasses);
        return false;
    }
    if (heap_times())
        fprintf(stderr, "heap dump: round %d: %zu objects not visited (%.3f s)\n", round, w->npending,
                clock_s() - w->t0);
    jint got = 0;
    jobject *objs = fetch(w, classes, nclasses, &got);
    free_classes(jni, classes, nclasses);
    w->named_unwritten = 0;
    if (!w->fetch_bad) {
        for (jint i = 0; i < got; i++) (*w->tj)->SetTag(w->tj, objs[i], w->pending[w->fetch_order[i]]);
        for (jint i = 0; i < got; i++) walk_write_object_jni(w, objs[i], w->pending[w->fetch_order[i]]);
    }
    for (jint i = 0; i < got; i++) (*jni)->DeleteLocalRef(jni, objs[i]);
    if (objs) (*w->tj)->Deallocate(w->tj, (unsigned char *)objs);
    free(w->fetch_order);
    w->fetch_order = NULL;
    if (w->fetch_bad) {
        log_error("the heap moved while the heap dump was being read; %zu objects are missing from it", w->npending);
        return false;
    }
    return w->named_unwritten != 0; /* they named nothing new: all done */
}

void walk_write_unvisited(struct walk *w)
{
    for (int round = 0; round < 32 && !w->oom && write_round(w, round); round++) {}
}
