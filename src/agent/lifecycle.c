/* SPDX-License-Identifier: Apache-2.0 */
#include "agent/lifecycle.h"

#include <stdio.h>
#include <string.h>

#include "sources/host.h"
#include "sources/source.h"

/* Every source, in the order they start; they stop in the reverse order. */
static const struct source *const SOURCES[] = {
    &thread_events_source,   &virtual_threads_source, /* after thread_events, whose entries it makes */
    &monitor_events_source,  &tracker_source,
    &alloc_tracker_source,   &gc_events_source, /* after alloc_tracker: it chains that one's GC callback */
    &cpu_sampler_source,     &cpu_signal_sampler_source,
    &socket_commands_source, &class_sweeper_source,
};
#define NSOURCES (sizeof SOURCES / sizeof SOURCES[0])

static bool source_on(const struct lifecycle *l, size_t i) { return (l->on >> i) & 1u; }

int lifecycle_init(struct lifecycle *l, struct host *h)
{
    memset(&l->events, 0, sizeof l->events);
    for (size_t i = 0; i < NSOURCES; i++) {
        if (!SOURCES[i]->wanted(h->opt)) continue;
        if (SOURCES[i]->init && SOURCES[i]->init(h, &l->events.cb) != 0) return -1;
        l->on |= 1u << i;
    }
    return 0;
}

/* Each source starts in a local frame of its own: what local references one leaves (the
 * VM's work for a retransformation under -Xverify:all leaves some) are let go before the
 * next, which otherwise finds them counted against the capacity it asked for. */
void lifecycle_start(struct lifecycle *l, struct host *h, JNIEnv *jni)
{
    for (size_t i = 0; i < NSOURCES; i++) {
        if (!SOURCES[i]->start || !source_on(l, i)) continue;
        bool framed = (*jni)->PushLocalFrame(jni, 64) == 0;
        if (!framed) (*jni)->ExceptionClear(jni); /* out of memory: start in the caller's */
        SOURCES[i]->start(h, jni);
        if (framed) (*jni)->PopLocalFrame(jni, NULL);
    }
}

void lifecycle_enable(struct lifecycle *l, struct host *h, JNIEnv *jni, const struct options *o, bool on)
{
    for (size_t k = 0; k < NSOURCES; k++) {
        size_t i = on ? k : NSOURCES - 1 - k;
        if (SOURCES[i]->enable && source_on(l, i) && SOURCES[i]->wanted(o)) SOURCES[i]->enable(h, jni, o, on);
    }
}

void lifecycle_stop(struct host *h, JNIEnv *jni)
{
    for (size_t i = NSOURCES; i-- > 0;)
        if (SOURCES[i]->stop) SOURCES[i]->stop(h, jni);
}

/* A thread's start goes to the sources in order: the thread table enters it first. */
void lifecycle_thread_start(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (SOURCES[i]->thread_start && source_on(l, i)) SOURCES[i]->thread_start(h, jni, thread);
}

/* A thread's end goes to the sources in reverse order: the thread table forgets it last. */
void lifecycle_thread_end(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread)
{
    for (size_t i = NSOURCES; i-- > 0;)
        if (SOURCES[i]->thread_end && source_on(l, i)) SOURCES[i]->thread_end(h, jni, thread);
}

void lifecycle_class_prepare(struct lifecycle *l, struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (SOURCES[i]->class_prepare && source_on(l, i)) SOURCES[i]->class_prepare(h, jni, thread, cls);
}

int lifecycle_add(struct lifecycle *l, struct host *h, JNIEnv *jni, const struct options *o, char *why, size_t whylen)
{
    unsigned added = 0;
    for (size_t i = 0; i < NSOURCES; i++) {
        if (source_on(l, i) || !SOURCES[i]->wanted(o)) continue;
        if (SOURCES[i]->init && SOURCES[i]->init(h, &l->events.cb) != 0) {
            snprintf(why, whylen, "%s cannot be set up in this JVM now", SOURCES[i]->name);
            return -1;
        }
        added |= 1u << i;
    }
    if (!added) return 0;
    if ((*h->jvmti)->SetEventCallbacks(h->jvmti, &l->events.cb, (jint)sizeof l->events) != JVMTI_ERROR_NONE) {
        snprintf(why, whylen, "the JVM refused the new JVMTI event callbacks");
        return -1;
    }
    /* Started in a running JVM, as when attached: the threads there are adopted. Set
     * after the inits above, so an init here does not see it (the signal sampler's asks
     * for no can_suspend then). */
    h->late_start = true;
    l->on |= added;
    for (size_t i = 0; i < NSOURCES; i++)
        if ((added >> i) & 1u && SOURCES[i]->start) SOURCES[i]->start(h, jni);
    return 0;
}
