/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who is who in a heap dump: an object's ID rides in its tag, given the first time the
 * walk (or JNI) reaches it; classes are tagged with their index in the dump's classes,
 * thread objects with their thread_info's object ID, so that START THREAD and the dump
 * agree. Two marks per object ID say whether it was named in this dump and whether its
 * record is written (see heap_unvisited.c for what the difference is for).
 *
 * With heap=sites on, each object the allocation tracker counted carries its site's
 * trace. Before the walk the tracker tags the objects it counted with their site ids in
 * the dump's environment (alloc_tracker_tag_sites); a site id met when an object is
 * named is noted against its new ID (site_of). An object made before the walk whose
 * constructor runs after it is not counted yet, so it shows no site.
 */
#include "sources/heapdump/heap_names.h"

#include <stdlib.h>
#include <string.h>

#include "sources/alloc/alloc_tracker.h"
#include "sources/host.h"
#include "sources/resolve.h"
#include "util/buf.h"
#include "tables/sites.h"
#include "tables/traces.h"

jlong walk_class_tag(uint32_t k) { return (jlong)((uint64_t)(k + 1) << CLASS_TAG_SHIFT); }

struct hd_class *walk_class_of_tag(struct walk *w, jlong tag)
{
    if (!tag_is_class(tag) || (tag & ((1LL << CLASS_TAG_SHIFT) - 1))) return NULL;
    uint64_t k = ((uint64_t)tag >> CLASS_TAG_SHIFT) - 1;
    if (k >= w->ncls || !w->cls[k].info) return NULL;
    return &w->cls[k];
}

struct hd_class *walk_class_of_ref(struct walk *w, jclass c)
{
    struct class_info *ci = classes_of(&w->h->t.classes, w->h->jvmti, w->jni, c, &w->h->t.ids);
    uint32_t i = ci->serial - SERIAL_CLASS_BASE - 1;
    if (ci->serial <= SERIAL_CLASS_BASE || i >= w->ncls || w->cls[i].info != ci) return NULL;
    return &w->cls[i];
}

/* ---- sites ---- */

/* A tag the allocation tracker set: the site of an object the dump has not named. */
static bool is_site_tag(const struct walk *w, jlong tag) { return w->sites && tag > 0 && tag < SITE_TAG_END; }

/* Notes the site of an object just given its ID. */
static void note_site(struct walk *w, uint32_t id, jlong site)
{
    if (id < w->id_first) return;
    size_t i = id - w->id_first;
    if (!grow_array_zeroed((void **)&w->site_of, &w->site_cap, i + 1, sizeof *w->site_of)) {
        w->oom = true;
        return;
    }
    w->site_of[i] = (uint32_t)site;
}

/* The index in w->threads of the thread object with this ID; nthreads if none. */
static uint32_t thread_index(struct walk *w, uint32_t id)
{
    uint32_t lo = 0, hi = w->nthreads;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (w->threads[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->nthreads && w->threads[lo].id == id ? lo : w->nthreads;
}

/* The site id of the object with this ID; 0 if it has none. Thread objects keep IDs
 * from before the dump: their sites were noted when they were tagged. */
static uint32_t site_of_id(struct walk *w, uint32_t id)
{
    if (!w->sites) return 0;
    if (id < w->id_first) {
        uint32_t i = thread_index(w, id);
        return i < w->nthreads ? w->threads[i].site : 0;
    }
    size_t i = id - w->id_first;
    return i < w->site_cap ? w->site_of[i] : 0;
}

/* Its site's trace, once that trace is written (a site made after the traces were
 * written, just before the walk, has none). */
uint32_t walk_trace_of(struct walk *w, uint32_t id)
{
    uint32_t s = site_of_id(w, id);
    struct site *site = s ? sites_by_id(w->sites, s) : NULL;
    return site && site->trace && site->trace->written ? site->trace->serial : SERIAL_TRACE_BASE;
}

/* ---- marks ---- */

bool walk_mark(struct walk *w, uint32_t id, unsigned bit)
{
    if (id <= ID_OBJECT_BASE) return false;
    size_t i = id - ID_OBJECT_BASE;
    if (!grow_array_zeroed((void **)&w->marks, &w->marks_cap, i / 4 + 1, 1)) {
        w->oom = true;
        return false;
    }
    uint8_t m = (uint8_t)(bit << (2 * (i % 4)));
    if (w->marks[i / 4] & m) return false;
    if (bit == MARK_NAMED && !(w->marks[i / 4] & (uint8_t)(MARK_WRITTEN << (2 * (i % 4))))) w->named_unwritten++;
    w->marks[i / 4] |= m;
    return true;
}

unsigned walk_marks_of(struct walk *w, uint32_t id)
{
    if (id <= ID_OBJECT_BASE) return 0;
    size_t i = id - ID_OBJECT_BASE;
    if (i / 4 >= w->marks_cap) return 0;
    return (w->marks[i / 4] >> (2 * (i % 4))) & 3u;
}

/* Objects named and not yet written, per class (NULL: of a class the dump does not know):
 * after the walk, only the classes with some left are searched for them. */
void walk_count_pending(struct walk *w, struct hd_class *c, int delta)
{
    if (c)
        w->ext[c - w->cls].pending += delta;
    else
        w->pending_unknown += delta;
}

/* ---- naming objects ---- */

/* The ID of an object reached through JNI, naming it if it has none. */
uint32_t walk_id_of_object(struct walk *w, jobject o)
{
    if (!o) return 0;
    jvmtiEnv *jvmti = w->tj;
    jlong tag = 0, site = 0;
    (*jvmti)->GetTag(jvmti, o, &tag);
    if (is_site_tag(w, tag)) {
        site = tag;
        tag = 0;
    }
    if (tag_is_class(tag)) {
        struct hd_class *c = walk_class_of_tag(w, tag);
        return c ? c->info->object_id : 0;
    }
    uint32_t id;
    if (tag_is_object(tag)) {
        id = tag_object_id(tag);
    } else {
        id = ids_new_object(&w->h->t.ids);
        if (site) note_site(w, id, site);
        (*jvmti)->SetTag(jvmti, o, tag_for_object_id(id));
    }
    if (walk_mark(w, id, MARK_NAMED)) {
        jclass k = (*w->jni)->GetObjectClass(w->jni, o);
        walk_count_pending(w, k ? walk_class_of_ref(w, k) : NULL, 1);
        if (k) (*w->jni)->DeleteLocalRef(w->jni, k);
    }
    return id;
}

/* Gives an object the walk reached for the first time its ID (arrays: with their
 * length, which JVMTI tells only then); returns its tag. */
jlong walk_name_referee(struct walk *w, jlong *tag_ptr, jint length, jlong class_tag)
{
    jlong tag = *tag_ptr;
    if (is_site_tag(w, tag)) {
        uint32_t id = ids_new_object(&w->h->t.ids);
        note_site(w, id, tag);
        tag = tag_for_object_id(id);
    }
    if (tag_is_class(tag)) return tag;
    if (!tag) tag = tag_for_object_id(ids_new_object(&w->h->t.ids));
    if (length >= 0) tag = (tag & TAG_ID_MASK) | ((jlong)(uint64_t)(uint32_t)length << TAG_LEN_SHIFT);
    *tag_ptr = tag;
    if (walk_mark(w, tag_object_id(tag), MARK_NAMED)) walk_count_pending(w, walk_class_of_tag(w, class_tag), 1);
    return tag;
}

uint32_t walk_id_of_tag(struct walk *w, jlong tag)
{
    if (tag_is_class(tag)) {
        struct hd_class *c = walk_class_of_tag(w, tag);
        return c ? c->info->object_id : 0;
    }
    return tag_is_object(tag) ? tag_object_id(tag) : 0;
}

/* ---- threads ---- */

static int by_id(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Tags the objects of the dump's threads (dump_threads.h) with their thread_info's
 * object ID, and keeps their serials, traces (and sites) by ID. */
void walk_tag_threads(struct walk *w)
{
    const struct dump_threads *d = &w->dthreads;
    w->threads = calloc(d->n ? d->n : 1, sizeof *w->threads);
    for (uint32_t i = 0; w->threads && i < d->n; i++) {
        const struct dump_thread *t = &d->t[i];
        jlong site = 0;
        if (w->sites) (*w->tj)->GetTag(w->tj, t->ref, &site);
        (*w->tj)->SetTag(w->tj, t->ref, tag_for_object_id(t->ti->object_id));
        w->threads[w->nthreads].id = t->ti->object_id;
        w->threads[w->nthreads].serial = t->ti->serial;
        w->threads[w->nthreads].trace = t->trace ? t->trace->serial : SERIAL_TRACE_BASE;
        w->threads[w->nthreads].site = is_site_tag(w, site) ? (uint32_t)site : 0;
        w->nthreads++;
    }
    if (w->threads) qsort(w->threads, w->nthreads, sizeof *w->threads, by_id);
}

uint32_t walk_thread_serial(struct walk *w, jlong thread_tag, uint32_t *trace)
{
    uint32_t i = tag_is_object(thread_tag) ? thread_index(w, tag_object_id(thread_tag)) : w->nthreads;
    if (trace) *trace = i < w->nthreads ? w->threads[i].trace : SERIAL_TRACE_BASE;
    return i < w->nthreads ? w->threads[i].serial : 0;
}
