/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump by the JVMTI walk: the heap at the moment of the dump, after a GC.
 *
 * 1. Every loaded class is named and laid out (heap_classes.c); thread objects are
 *    tagged with their thread_info's object ID (heap_names.c).
 * 2. One JVMTI FollowReferences walk from the roots. Roots become ROOT sub-records
 *    (heap_roots.c). Every object the walk reaches is first reported as a referee, where
 *    it gets its ID (heap_names.c). Then the walk visits it, and its record is built and
 *    written as it goes (heap_objects.c). Objects the walk named and never visited are
 *    read through JNI after it (heap_unvisited.c).
 * 3. The classes (CLASS DUMP, with the static values and loader, signers and protection
 *    domain the walk reported), then the end of the dump.
 *
 * The walk's callbacks run inside the VM (no JNI, no JVMTI but raw memory), with the
 * output lock held by the dumping thread.
 */

#include "sources/heapdump/heap_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_tracker.h"
#include "sources/heapdump/heap_names.h"
#include "sources/heapdump/heap_classes.h"
#include "sources/heapdump/heap_roots.h"
#include "sources/heapdump/heap_objects.h"
#include "sources/heapdump/heap_unvisited.h"
#include "sources/heapdump/heap_times.h"
#include "sources/host.h"
#include "util/clock.h"
#include "util/log.h"

/* ---- the walk's callbacks ---- */

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data)
{
    struct walk *w = user_data;
    jlong tag = walk_name_referee(w, tag_ptr, length, class_tag);
    uint32_t id = walk_id_of_tag(w, tag);
    if (length < 0 && !tag_is_class(tag)) {
        struct hd_class *c = walk_class_of_tag(w, class_tag);
        if (c && !c->obj_size) c->obj_size = (uint32_t)size;
    }
    if (!referrer_tag_ptr) { /* a root */
        if (w->cur_kind != CUR_NONE) walk_finish(w);
        walk_root(w, kind, info, tag, id);
    } else {
        walk_begin(w, *referrer_tag_ptr, referrer_class_tag);
        walk_reference(w, kind, info, id);
    }
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL on_primitive_field(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                       jlong object_class_tag, jlong *object_tag_ptr, jvalue value,
                                       jvmtiPrimitiveType value_type, void *user_data)
{
    struct walk *w = user_data;
    walk_begin(w, *object_tag_ptr, object_class_tag);
    walk_primitive(w, kind, info->field.index, value_type, value);
    return 0;
}

static jint JNICALL on_array_values(jlong class_tag, jlong size, jlong *tag_ptr, jint count,
                                    jvmtiPrimitiveType element_type, const void *elements, void *user_data)
{
    struct walk *w = user_data;
    walk_begin(w, *tag_ptr, class_tag);
    walk_prim_array(w, size, count, element_type, elements);
    return 0;
}

/* Text header counts: every object in the heap after the GC. */
static jint JNICALL on_count(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    w->nobjects++;
    w->nbytes += (uint64_t)size;
    return 0;
}

/* ---- one dump ---- */

/*
 * The environment whose tags name the objects: one of the dump's own, let go of at its
 * end, so that the JVM's tag table (what naming every object costs) is freed at once and
 * later GCs do not carry it. Object IDs are new at every dump; classes and threads keep
 * theirs. 0 on success.
 */
static int take_env(struct walk *w)
{
    struct host *h = w->h;
    w->id_first = atomic_load(&h->t.ids.next_object);
    w->sites = alloc_tracker_sites(h);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*h->vm)->GetEnv(h->vm, (void **)&w->tj, JVMTI_VERSION_1_2) != JNI_OK) return -1;
    if ((*w->tj)->AddCapabilities(w->tj, &caps) == JVMTI_ERROR_NONE) return 0;
    (*w->tj)->DisposeEnvironment(w->tj);
    return -1;
}

static void free_walk(struct walk *w)
{
    walk_free_classes(w);
    free(w->threads);
    dump_threads_free(w->h, w->jni, &w->dthreads);
    free(w->vals);
    free(w->elems);
    free(w->pbuf);
    free(w->marks);
    free(w->pending);
    free(w->pending_size);
    free(w->monitors);
    free(w->site_of);
    free(w);
}

/* Everything the walk needs before it starts (a GC first). -1: no dump can be written. */
static int prepare(struct walk *w)
{
    struct host *h = w->h;
    /* Not at VM death with ZGC or Shenandoah: their threads have stopped by then and a
     * forced GC would never return. The reference walk reports only reachable objects
     * anyway. */
    if (host_can_force_gc(h)) (*h->jvmti)->ForceGarbageCollection(h->jvmti);
    heap_phase("gc", w->t0);
    if (w->sites) alloc_tracker_tag_sites(h, w->tj);
    if (walk_load_classes(w) != 0 || w->oom) return -1;
    heap_phase("classes", w->t0);
    dump_threads_take(h, w->jni, &w->dthreads);
    walk_tag_threads(w);
    dump_threads_drop_refs(w->jni, &w->dthreads); /* or they would be JNI local roots */
    walk_find_monitors(w);
    if (h->opt->format != 'b') {
        walk_measure_arrays(w);
        jvmtiHeapCallbacks count;
        memset(&count, 0, sizeof count);
        count.heap_iteration_callback = on_count;
        (*w->tj)->IterateThroughHeap(w->tj, 0, NULL, &count, w);
    }
    return 0;
}

/* The dump itself, into the sink; the JVMTI error of the walk. */
static jvmtiError write_dump(struct walk *w, struct heap_sink *sink)
{
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = on_reference;
    cb.primitive_field_callback = on_primitive_field;
    cb.array_primitive_value_callback = on_array_values;

    sink->open(sink);
    w->wr->prepare(w->s, w->cls, w->ncls);
    w->wr->begin(w->s, w->nobjects, w->nbytes);
    walk_monitor_roots(w);
    jvmtiError err = (*w->tj)->FollowReferences(w->tj, 0, NULL, NULL, &cb, w);
    if (w->cur_kind != CUR_NONE) walk_finish(w);
    heap_phase("walk", w->t0);
    walk_write_unvisited(w);
    heap_phase("unvisited", w->t0);
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->cls[k].info) w->wr->class_dump(w->s, &w->cls[k]);
    w->wr->end(w->s);
    sink->close(sink);
    heap_phase("end", w->t0);
    return err;
}

void heap_walk_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink)
{
    struct walk *w = calloc(1, sizeof *w);
    if (!w) {
        log_error("out of memory for the heap dump");
        return;
    }
    w->h = h;
    w->jni = jni;
    if (take_env(w) != 0) {
        log_error("cannot get a JVMTI environment for the heap dump; no heap dump written");
        free(w);
        return;
    }
    w->wr = sink->wr;
    w->s = sink->s;
    (*jni)->PushLocalFrame(jni, 64);
    w->t0 = clock_s();
    bool ready = prepare(w) == 0;
    if (!ready) {
        log_error("cannot read the loaded classes; no heap dump written");
    } else {
        jvmtiError err = write_dump(w, sink);
        if (err != JVMTI_ERROR_NONE)
            log_error("the heap walk failed (JVMTI error %d); the heap dump is incomplete", (int)err);
        if (w->oom) log_error("out of memory during the heap dump; some values are missing");
    }
    (*w->tj)->DisposeEnvironment(w->tj);
    if (ready) heap_phase("restored", w->t0);
    free_walk(w);
    (*jni)->PopLocalFrame(jni, NULL);
}
