/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Virtual threads (JDK 21+) with thread=y.
 *
 *   VirtualThreadStart / End (JVMTI 21)   the entry, THREAD START and THREAD END
 *   VirtualThreadMount / Unmount          HotSpot's extension events, sent on the carrier
 *                                         (only with cpu=samples' signal engine): the
 *                                         sampler's record of the carrier names the
 *                                         virtual thread while it is mounted
 *
 * Allocation and contention already name the thread they run on through its thread-local
 * storage, which a virtual thread has of its own: once entered, it is named there too.
 *
 * Off without thread=y: the capability makes every mount and unmount call into the VM.
 * The JVMTI sampler (sampler=jvmti) sees platform threads only, and still names carriers.
 */
#include "sources/jvm/virtual_threads.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "sources/cpu/signal_sampler.h"
#include "sources/host.h"
#include "sources/resolve.h"
#include "sources/jvm/thread_events.h"
#include "util/log.h"

#define MOUNT_EVENT   "com.sun.hotspot.events.VirtualThreadMount"
#define UNMOUNT_EVENT "com.sun.hotspot.events.VirtualThreadUnmount"

/* can_support_virtual_threads is the bit after can_generate_sampled_object_alloc_events
 * (JDK 21's jvmti.h); found by setting that neighbour, so no bit-field layout is assumed. */
static int capability_bit(void)
{
    jvmtiCapabilities probe;
    memset(&probe, 0, sizeof probe);
    probe.can_generate_sampled_object_alloc_events = 1;
    const unsigned char *b = (const unsigned char *)&probe;
    for (int i = 0; i < (int)(sizeof probe * 8); i++)
        if (b[i / 8] & (1u << (i % 8))) return i + 1;
    return -1;
}

static bool has_bit(const jvmtiCapabilities *c, int bit)
{
    return bit >= 0 && bit < (int)(sizeof *c * 8) && (((const unsigned char *)c)[bit / 8] & (1u << (bit % 8)));
}

static void JNICALL on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
    struct host *h = host_get();
    if (!host_live(h)) return;
    /* Its own thread-local storage keeps the entry from being reclaimed while it runs,
     * so the carrier may name it past the hold. */
    struct thread_info *ti = thread_events_enter(h, jni, vthread);
    cpu_signal_sampler_mounted(h, ti); /* it starts on its carrier */
    if (ti) threads_release(&h->t.threads, ti);
}

static void JNICALL on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
    struct host *h = host_get();
    cpu_signal_sampler_mounted(h, NULL);
    if (host_live(h)) thread_events_leave(h, jni, vthread);
}

/* The extension events' callbacks are variadic: (jvmtiEnv *, JNIEnv *, jthread). */
static void JNICALL on_mount(jvmtiEnv *jvmti, ...)
{
    va_list ap;
    va_start(ap, jvmti);
    JNIEnv *jni = va_arg(ap, JNIEnv *);
    jthread vthread = va_arg(ap, jthread);
    va_end(ap);
    struct host *h = host_get();
    if (!host_live(h)) return;
    /* Unknown: a virtual thread started before the agent was there to see it. */
    struct thread_info *ti = threads_lookup(jvmti, vthread);
    if (ti) {
        cpu_signal_sampler_mounted(h, ti);
    } else if ((ti = thread_events_enter(h, jni, vthread)) != NULL) {
        cpu_signal_sampler_mounted(h, ti);
        threads_release(&h->t.threads, ti);
    }
}

static void JNICALL on_unmount(jvmtiEnv *jvmti, ...) { cpu_signal_sampler_mounted(host_get(), NULL); }

static bool wanted(const struct options *o) { return o->thread; }

/* Nothing on a JVM without virtual threads (JDK 17): the capability is not offered. */
static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    jvmtiEnv *jvmti = h->jvmti;
    jvmtiCapabilities have, want;
    int bit = capability_bit();
    if ((*jvmti)->GetPotentialCapabilities(jvmti, &have) != JVMTI_ERROR_NONE || !has_bit(&have, bit)) return 0;
    memset(&want, 0, sizeof want);
    ((unsigned char *)&want)[bit / 8] |= (unsigned char)(1u << (bit % 8));
    if ((*jvmti)->AddCapabilities(jvmti, &want) != JVMTI_ERROR_NONE) {
        log_warning("thread=y: virtual threads cannot be followed (no can_support_virtual_threads); "
                    "their samples name their carrier threads");
        return 0;
    }
    h->virtual_threads = true;
    union event_table *t = (union event_table *)cb; /* the agent's, with room for both */
    t->slot[EVENT_VIRTUAL_THREAD_START - EVENT_NUMBER_FIRST] = (jvmtiEventReserved)on_start;
    t->slot[EVENT_VIRTUAL_THREAD_END - EVENT_NUMBER_FIRST] = (jvmtiEventReserved)on_end;
    return 0;
}

/* Sets the callback of each extension event named; false if one is missing. */
static bool mount_events(jvmtiEnv *jvmti, bool on)
{
    jint n = 0;
    jvmtiExtensionEventInfo *ev = NULL;
    if ((*jvmti)->GetExtensionEvents(jvmti, &n, &ev) != JVMTI_ERROR_NONE) return false;
    int found = 0;
    for (jint i = 0; i < n; i++) {
        jvmtiExtensionEvent fn = NULL;
        if (strcmp(ev[i].id, MOUNT_EVENT) == 0)
            fn = (jvmtiExtensionEvent)on_mount;
        else if (strcmp(ev[i].id, UNMOUNT_EVENT) == 0)
            fn = (jvmtiExtensionEvent)on_unmount;
        if (!fn) continue;
        /* HotSpot wants both: the callback, and the event on by its index as event type. */
        jint at = ev[i].extension_event_index;
        if ((*jvmti)->SetExtensionEventCallback(jvmti, at, on ? fn : NULL) == JVMTI_ERROR_NONE &&
            (*jvmti)->SetEventNotificationMode(jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, (jvmtiEvent)at, NULL) ==
                JVMTI_ERROR_NONE)
            found++;
    }
    for (jint i = 0; i < n; i++) {
        for (jint k = 0; k < ev[i].param_count; k++) (*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].params[k].name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].params);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].id);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].short_description);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ev);
    return found == 2;
}

static void start(struct host *h, JNIEnv *jni)
{
    if (!h->virtual_threads) return;
    jvmtiEnv *jvmti = h->jvmti;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)EVENT_VIRTUAL_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, (jvmtiEvent)EVENT_VIRTUAL_THREAD_END, NULL);
    /* Mounts matter only to the signal sampler: sites and monitors name the thread through
     * its own thread-local storage. Off, a mount and an unmount are cheaper by half. */
    if (host_state(h, SOURCE_SIGNAL_SAMPLER) && !mount_events(jvmti, true))
        log_warning("thread=y: this JVM does not say when a virtual thread mounts; CPU samples of "
                    "virtual threads name their carrier threads");
}

static void stop(struct host *h, JNIEnv *jni)
{
    if (!h->virtual_threads) return;
    jvmtiEnv *jvmti = h->jvmti;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, (jvmtiEvent)EVENT_VIRTUAL_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, (jvmtiEvent)EVENT_VIRTUAL_THREAD_END, NULL);
    if (host_state(h, SOURCE_SIGNAL_SAMPLER)) mount_events(jvmti, false);
}

const struct source virtual_threads_source = {
    .name = "virtual threads",
    .wanted = wanted,
    .init = init,
    .start = start,
    .stop = stop,
};
