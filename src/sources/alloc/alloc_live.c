/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=sites: the live objects and bytes of each site, counted at a dump from the
 * objects held weakly (site_objects.h): the ones a forced GC left, or, when none can be
 * forced, the ones a reference walk from the roots reaches.
 */
#include "sources/alloc/alloc_live.h"

#include <string.h>

#include "sources/alloc/alloc_state.h"
#include "util/log.h"

/* A pause may move objects: the addresses of notes taken before it no longer tell. */
void JNICALL alloc_live_gc_started(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    if (h && alloc_of(h)) site_objects_gc_started(&alloc_of(h)->live.objects);
}

/* Only a GC clears weak references: the logs are worth a sweep after one. */
void JNICALL alloc_live_gc_finished(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    if (h && alloc_of(h)) site_objects_gc_finished(&alloc_of(h)->live.objects);
}

static void reset_live(struct site_table *st)
{
    uint32_t n = sites_count(st);
    for (uint32_t i = 1; i <= n; i++) {
        struct site *s = sites_by_id(st, i);
        s->live_objs = s->live_bytes = 0;
    }
}

/*
 * A live object; a live sample of live=sampled, standing for LIVE_SAMPLE_EVERY; or an
 * alloc_sample= sample, standing for the objects its allocation was counted as (its
 * weight): live is then never more than allocated, object by object.
 */
static void add_live(uint32_t site, uint64_t size, uint32_t weight, void *ctx)
{
    uint64_t n = site & SITE_REF_SAMPLED ? LIVE_SAMPLE_EVERY : weight;
    struct site *s = sites_by_id(ctx, site & ~SITE_REF_SAMPLED);
    if (s) {
        s->live_objs += n;
        s->live_bytes += size * n;
    }
}

/* A reachable object the walk meets, perhaps several times: counted the first time,
 * when its tag (its site) turns negative. */
static jint JNICALL reach_object(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data)
{
    /* Tags are site ids: a reference walk runs where no object is a sample (live=sampled
     * needs a GC that can be forced). */
    if (*tag_ptr > 0) {
        add_live(site_objects_tag_site(*tag_ptr), (uint64_t)size, site_objects_tag_weight(*tag_ptr), user_data);
        *tag_ptr = -*tag_ptr;
    }
    return JVMTI_VISIT_OBJECTS;
}

/*
 * At VM death with ZGC or Shenandoah no GC can be forced (util/collector.h). The counted
 * objects still held are then tagged with their sites in an environment of their own and
 * counted as a reference walk from the roots reaches them: what a GC would keep. (The
 * environment is not let go of: the VM is ending.)
 */
static void count_reachable(struct host *h, struct alloc_tracker *t)
{
    jvmtiEnv *env = NULL;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*h->vm)->GetEnv(h->vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK) return;
    if ((*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE) {
        log_error("no JVMTI environment for the live counts of heap=sites; they are left at 0");
        return;
    }
    site_objects_tag(&t->live.objects, env, true);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = reach_object;
    (*env)->FollowReferences(env, JVMTI_HEAP_FILTER_UNTAGGED, NULL, NULL, &cb, &t->sites);
}

void alloc_live_count(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t) return;
    reset_live(&t->sites);
    if (t->stats.on)
        log_plain("HPROF: heap=sites objects held: %zu (before this dump's sweep), swept by %s",
                  site_objects_held(&t->live.objects), site_objects_slots_name(&t->live.objects));
    if (host_can_force_gc(h)) {
        /* A GC clears the references of every object no longer reachable. */
        (*h->jvmti)->ForceGarbageCollection(h->jvmti);
        site_objects_sweep(&t->live.objects, jni, add_live, &t->sites);
    } else {
        count_reachable(h, t);
    }
}

void alloc_live_tag_sites(struct host *h, jvmtiEnv *env)
{
    if (alloc_of(h)) site_objects_tag(&alloc_of(h)->live.objects, env, false);
}

/* timeline=: the live counts as the last GC left them (no GC forced): the objects held
 * when it ended whose references it did not clear; what was allocated since is not
 * counted (it belongs to the next interval). */
void alloc_live_sweep(struct host *h, JNIEnv *jni)
{
    struct alloc_tracker *t = alloc_of(h);
    if (!t) return;
    reset_live(&t->sites);
    site_objects_sweep_at_gc(&t->live.objects, jni, add_live, &t->sites, true);
}
