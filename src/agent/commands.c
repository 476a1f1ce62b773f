/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The commands of the net= socket (sources/net/socket_protocol.h), carried out on the
 * listener's thread: sections through the report layer, switches through the sources'
 * enable hooks (sources/source.h).
 */
#include "agent/agent.h"

#include <stdio.h>
#include <stdlib.h>

#include "report/report_timeline.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/cpu/jvmti_sampler.h"
#include "sources/cpu/signal_sampler.h"
#include "sources/net/socket_protocol.h"
#include "util/log.h"

/* Each is said once, for the run: the peer may repeat a command many times. */
static void say_once(_Atomic bool *said, const char *fmt, const char *what)
{
    if (!atomic_exchange(said, true)) log_warning(fmt, what);
}

/* CPU sampling on or off for one thread (by its object ID) or all (0); false when
 * the thread is not a live one. */
static bool cpu_sampling(struct host *h, JNIEnv *jni, uint32_t thread_id, bool on, char *why, size_t whylen)
{
    if (thread_id != 0) {
        if (!threads_set_sampled_by_id(&h->t.threads, thread_id, on)) {
            snprintf(why, whylen, "CONTROL names thread object 0x%x, which is not a live thread", thread_id);
            return false;
        }
        /* The engine that runs goes on again (one is never started for one thread). */
        if (on && !cpu_signal_sampler_enable(h, true)) cpu_sampler_enable(h, true);
        return true;
    }
    /* The signal engine's switch hands over to the JVMTI sampler where it does not run. */
    cpu_signal_sampler_source.enable(h, jni, h->opt, on);
    return true;
}

static void exit_vm(struct agent *a, JNIEnv *jni)
{
    if (a->opt.verbose) log_plain("HPROF: received exit event, exiting ...");
    report_end_command(&a->report, false); /* what was asked before goes out first */
    /* Through System.exit, so that shutdown hooks run and VM death writes the final dump. */
    jclass sys = (*jni)->FindClass(jni, "java/lang/System");
    jmethodID m = sys ? (*jni)->GetStaticMethodID(jni, sys, "exit", "(I)V") : NULL;
    if (m) (*jni)->CallStaticVoidMethod(jni, sys, m, (jint)0);
    (*jni)->ExceptionClear(jni);
    log_error("System.exit failed; exiting without the final dump");
    exit(0);
}

/* CONTROL depth: when the CPU traces keep fewer frames than asked, said once a run. */
static void depth_changed(struct agent *a)
{
    char depth[160];
    if (session_depth_text(&a->session, depth, sizeof depth) && !atomic_exchange(&a->said_depth_cut, true))
        log_warning("net=: CONTROL depth=%d: %s", host_depth(&a->host), depth);
}

static bool control(struct host *h, JNIEnv *jni, const struct command *c, char *why, size_t whylen)
{
    switch (c->control) {
    case CTL_ALLOC_ON: alloc_tracker_source.enable(h, jni, h->opt, true); break;
    case CTL_ALLOC_OFF: alloc_tracker_source.enable(h, jni, h->opt, false); break;
    case CTL_CPU_ON: return cpu_sampling(h, jni, c->thread_id, true, why, whylen);
    case CTL_CPU_OFF: return cpu_sampling(h, jni, c->thread_id, false, why, whylen);
    case CTL_CPU_CLEAR: traces_clear_cpu_samples(&h->t.traces); break;
    case CTL_DEPTH:
        atomic_store(&h->depth, (int)c->depth);
        depth_changed((struct agent *)h);
        break;
    }
    return true;
}

/* Does the command write a section? Those wait for a dump under way (and a dump
 * asked for meanwhile by SIGQUIT is dropped, as during any other dump). */
static bool writes_section(uint8_t tag)
{
    return tag == CMD_DUMP_HEAP || tag == CMD_ALLOC_SITES || tag == CMD_HEAP_SUMMARY || tag == CMD_DUMP_TRACES ||
        tag == CMD_CPU_SAMPLES || tag == CMD_ALLOCS;
}

bool agent_command(struct host *h, JNIEnv *jni, const struct command *c, char *why, size_t whylen)
{
    struct agent *a = (struct agent *)h;
    struct report *r = &a->report;
    bool section = writes_section(c->tag);
    const char *missing = "the net= command %s needs heap=sites; nothing is written for it";
    bool good = true;
    report_begin_command(r, section);
    switch (c->tag) {
    case CMD_FORCE_GC: (*h->jvmti)->ForceGarbageCollection(h->jvmti); break;
    case CMD_DUMP_HEAP: report_heap_dump(r, jni); break;
    case CMD_ALLOC_SITES:
        if (c->flags & 0x4) (*h->jvmti)->ForceGarbageCollection(h->jvmti);
        if (!report_sites(r, jni, c->cutoff)) say_once(&a->said_missing, missing, "ALLOC SITES");
        break;
    case CMD_HEAP_SUMMARY:
        if (!report_heap_summary(r, jni)) say_once(&a->said_missing, missing, "HEAP SUMMARY");
        break;
    case CMD_EXIT: exit_vm(a, jni); break;
    case CMD_DUMP_TRACES: report_traces(r); break;
    case CMD_CPU_SAMPLES: report_cpu_samples(r, c->cutoff); break;
    case CMD_CONTROL: good = control(h, jni, c, why, whylen); break;
    case CMD_ALLOCS:
        if (!report_allocs(r, jni))
            say_once(&a->said_missing_allocs,
                     "the net= command %s needs heap=sites and timeline=; nothing is written for it", "ALLOCS");
        break;
    }
    report_end_command(r, section);
    return good;
}
