/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's entry points and its life cycle:
 *   Agent_OnLoad      options, capabilities, the sources' init, the output
 *   VMInit            the sources' start
 *   Agent_OnAttach    both at once, in a running JVM (agent/attach.c)
 *   DataDumpRequest   (SIGQUIT) a dump of what was gathered so far
 *   VMDeath           the sources' stop, the final dump (doe=y), the output closed
 */
#include "agent/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_timeline.h"
#include "sources/hotspot/vm_flags.h"
#include "sources/jvm/virtual_threads.h"
#include "util/collector.h"
#include "util/fd_io.h"
#include "util/log.h"

static struct agent *agent_of(struct host *h) { return (struct agent *)h; }

/* ---- the services sources get (struct host_services) ---- */

static jthread start_thread(struct host *h, JNIEnv *jni, const char *name, jvmtiStartFunction run, void *arg)
{
    struct agent *a = agent_of(h);
    if (atomic_load(&a->nown_threads) >= AGENT_MAX_THREADS) return NULL;
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = init ? (*jni)->NewStringUTF(jni, name) : NULL;
    jobject thread = jname ? (*jni)->NewObject(jni, cls, init, jname) : NULL;
    if (!thread) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jobject global = (*jni)->NewGlobalRef(jni, thread);
    /* Known as ours before it starts, so its ThreadStart event is ignored. Threads start
     * at VMInit, from the listener (a command) and from the CPU sampler (its fallback):
     * the lock gives each its own slot. */
    pthread_mutex_lock(&a->own_lock);
    int n = atomic_load(&a->nown_threads);
    if (n < AGENT_MAX_THREADS) {
        a->own_threads[n] = global;
        atomic_store_explicit(&a->nown_threads, n + 1, memory_order_release);
    }
    /* Started under the lock, so that a thread that could not start gives its slot back
     * (the last one) before another starter takes the next. */
    bool started = n < AGENT_MAX_THREADS &&
        (*h->jvmti)->RunAgentThread(h->jvmti, thread, run, arg, JVMTI_THREAD_MAX_PRIORITY) == JVMTI_ERROR_NONE;
    if (n < AGENT_MAX_THREADS && !started) atomic_store_explicit(&a->nown_threads, n, memory_order_release);
    pthread_mutex_unlock(&a->own_lock);
    /* A reader may still compare with a slot given back: its reference stays, for good. */
    if (n >= AGENT_MAX_THREADS) (*jni)->DeleteGlobalRef(jni, global);
    if (!started) return NULL;
    return global;
}

static bool is_own_thread(struct host *h, JNIEnv *jni, jthread thread)
{
    struct agent *a = agent_of(h);
    int n = atomic_load_explicit(&a->nown_threads, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if ((*jni)->IsSameObject(jni, a->own_threads[i], thread)) return true;
    return false;
}

static void record(struct host *h, const struct live_record *r) { report_record(&agent_of(h)->report, r); }

static void timeline(struct host *h, JNIEnv *jni, const struct gc_record *gc, bool allocs)
{
    report_timeline(&agent_of(h)->report, jni, gc, allocs);
}

static const struct host_services SERVICES = {
    .start_thread = start_thread,
    .is_own_thread = is_own_thread,
    .record = record,
    .command = agent_command,
    .timeline = timeline,
};

/* ---- JVMTI events ---- */

void agent_start(struct agent *a, JNIEnv *jni)
{
    struct host *h = &a->host;
    atomic_store(&h->phase, PHASE_LIVE);
    /* Asked now: the collector's threads that tell are gone by VM death. */
    if (h->opt->heap) h->gc_at_exit = collector_gc_at_exit();
    report_start(&agent_of(h)->report, jni); /* the run header, before any other record */
    lifecycle_start(&agent_of(h)->sources, h, jni);
    session_vm_init(&agent_of(h)->session, jni);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) { agent_start(agent_of(host_get()), jni); }

static void JNICALL on_data_dump_request(jvmtiEnv *jvmti)
{
    struct host *h = host_get();
    if (!host_live(h)) return;
    JNIEnv *jni = NULL;
    (*h->vm)->GetEnv(h->vm, (void **)&jni, JNI_VERSION_1_8);
    report_dump(&agent_of(h)->report, jni, DUMP_ON_SIGNAL);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    struct host *h = host_get();
    if (host_live(h)) lifecycle_thread_start(&agent_of(h)->sources, h, jni, thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    struct host *h = host_get();
    if (host_live(h)) lifecycle_thread_end(&agent_of(h)->sources, h, jni, thread);
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls)
{
    struct host *h = host_get();
    lifecycle_class_prepare(&agent_of(h)->sources, h, jni, thread, cls);
}

/* The sources stopped, the final dump written (doe=y), the output closed: once, at VM
 * death or at an OutOfMemoryError exit. false when the thread was writing a dump itself
 * (an OutOfMemoryError inside it): then nothing is touched. */
static bool finish(struct agent *a, JNIEnv *jni)
{
    struct host *h = &a->host;
    jvmtiEnv *jvmti = h->jvmti;
    int expected = PHASE_LIVE;
    if (!atomic_compare_exchange_strong(&h->phase, &expected, PHASE_DEAD)) return true;
    /* Every stop hook runs: a source may have been started by a command (the sampler). */
    lifecycle_stop(h, jni);
    /* A profile stopped by `hprof stop` was written then; nothing was gathered since. */
    bool due = session_exit_begin(&a->session);
    if (a->opt.doe && due && !report_dump(&a->report, jni, DUMP_AT_EXIT)) return false;
    if (due) session_exit_end(&a->session);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_END, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_DATA_DUMP_REQUEST, NULL);
    report_close(&a->report);
    return true;
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni) { finish(agent_of(host_get()), jni); }

/*
 * -XX:+ExitOnOutOfMemoryError: HotSpot would _exit(3) before it tells agents, and the
 * profile would be lost. The agent turns the flag off at start and does what HotSpot
 * would at the first OutOfMemoryError it reports (heap, GC overhead, array size,
 * metaspace: every ResourceExhausted but a thread's), after the final dump: its line, on
 * its stream, then _exit(3). A later one while the dump is written is thrown as usual,
 * as HotSpot does after its first.
 */
static void JNICALL on_resource_exhausted(jvmtiEnv *jvmti, JNIEnv *jni, jint flags, const void *reserved,
                                          const char *description)
{
    struct agent *a = agent_of(host_get());
    if (!a->exit_on_oom || !(flags & JVMTI_RESOURCE_EXHAUSTED_OOM_ERROR) || (flags & JVMTI_RESOURCE_EXHAUSTED_THREADS))
        return;
    if (atomic_exchange(&a->oom_exiting, true)) return;
    finish(a, jni);
    bool shown = true, to_stderr = false;
    vm_flags_get_bool(jvmti, "DisplayVMOutput", &shown);
    vm_flags_get_bool(jvmti, "DisplayVMOutputToStderr", &to_stderr);
    char line[512];
    int n = snprintf(line, sizeof line, "Terminating due to java.lang.OutOfMemoryError: %s\n",
                     description ? description : "Java heap space");
    if (shown && n > 0) fd_write_all(to_stderr ? STDERR_FILENO : STDOUT_FILENO, line, strnlen(line, sizeof line));
    _exit(3);
}

/* Takes -XX:+ExitOnOutOfMemoryError over (above) when it is on. */
static void take_over_oom_exit(struct agent *a)
{
    jvmtiEnv *jvmti = a->host.jvmti;
    bool on = false;
    if (!vm_flags_get_bool(jvmti, "ExitOnOutOfMemoryError", &on)) {
        log_warning("HotSpot's flags are not found: with -XX:+ExitOnOutOfMemoryError the JVM would exit on an "
                    "OutOfMemoryError without the profile");
        return;
    }
    if (!on ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL) !=
            JVMTI_ERROR_NONE)
        return;
    a->exit_on_oom = true;
    vm_flags_set_bool(jvmti, "ExitOnOutOfMemoryError", false);
}

/* ---- start-up ---- */

/* The option string: the JVM's, then $_JAVA_HPROF_OPTIONS (at start-up only), as the
 * original read them. */
static char *gather_options(const char *given, bool with_env)
{
    const char *env = with_env ? getenv("_JAVA_HPROF_OPTIONS") : NULL;
    size_t n = (given ? strlen(given) : 0) + (env ? strlen(env) : 0) + 2;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n, "%s%s%s", given ? given : "", (given && *given && env && *env) ? "," : "", env ? env : "");
    return s;
}

static enum options_result parse_options(struct options *o, const char *given, bool live)
{
    char *text = gather_options(given, !live);
    if (!text) {
        log_error("out of memory");
        return OPTIONS_ERROR;
    }
    char err[1024];
    enum options_result res = options_parse(text, o, err, sizeof err);
    if (res == OPTIONS_ERROR) log_error("%s", err);
    free(text);
    return res;
}

/* Says once, at start-up, which asked-for parts have no meaning here. */
static void note_limits(const struct options *o)
{
    if (o->msa) log_warning("msa=y (Solaris micro state accounting) has no meaning on this platform; ignored");
    if (o->gc_okay_given) log_warning("gc_okay is an obsolete option; ignored");
    if (o->view && !o->depth_given)
        log_plain("HPROF: view= without depth=: stacks are taken %d frames deep (give depth= to change it)", o->depth);
    char names[128];
    if (options_no_effect(o, names, sizeof names))
        log_warning("%s: the original HPROF's debugging option%s, no effect here; ignored", names,
                    strchr(names, ',') ? "s" : "");
}

/* What every run needs; each source adds its own in its init. */
static int add_capabilities(jvmtiEnv *jvmti, const struct options *o)
{
    jvmtiCapabilities want, have = host_potential_capabilities(jvmti);
    memset(&want, 0, sizeof want);
    want.can_get_line_numbers = have.can_get_line_numbers;
    want.can_get_source_file_name = have.can_get_source_file_name;
    want.can_tag_objects = 1;
    want.can_get_thread_cpu_time = have.can_get_thread_cpu_time;
    /* heap=dump: monitors owned by each thread are roots of the dump */
    if (o->heap & HEAP_DUMP) want.can_get_owned_monitor_info = have.can_get_owned_monitor_info;
    /* -XX:+ExitOnOutOfMemoryError, taken over (on_resource_exhausted) */
    want.can_generate_resource_exhaustion_heap_events = have.can_generate_resource_exhaustion_heap_events;
    return (*jvmti)->AddCapabilities(jvmti, &want) == JVMTI_ERROR_NONE ? 0 : -1;
}

/* The sources' init, then the callbacks they and the agent set, then the agent's events. */
static int init_sources(struct host *h)
{
    struct agent *a = agent_of(h);
    union event_table *events = &a->sources.events; /* room for JDK 21's events (virtual_threads.h) */
    jvmtiEventCallbacks *cb = &events->cb;
    if (lifecycle_init(&a->sources, h) != 0) return -1;
    cb->VMInit = on_vm_init;
    cb->VMDeath = on_vm_death;
    cb->DataDumpRequest = on_data_dump_request;
    cb->ThreadStart = on_thread_start;
    cb->ThreadEnd = on_thread_end;
    cb->ClassPrepare = on_class_prepare;
    cb->ResourceExhausted = on_resource_exhausted;
    jvmtiEnv *jvmti = h->jvmti;
    /* The JVM takes what it knows of a longer table. */
    if ((*jvmti)->SetEventCallbacks(jvmti, cb, (jint)sizeof *events) != JVMTI_ERROR_NONE) {
        log_error("cannot set the JVMTI event callbacks");
        return -1;
    }
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DATA_DUMP_REQUEST, NULL);
    return 0;
}

static void init_host(struct agent *a, JavaVM *vm, jvmtiEnv *jvmti)
{
    struct host *h = &a->host;
    h->vm = vm;
    h->jvmti = jvmti;
    h->opt = &a->opt;
    h->services = &SERVICES;
    h->net_fd = -1;
    pthread_mutex_init(&a->own_lock, NULL);
    atomic_init(&h->phase, PHASE_ONLOAD);
    atomic_init(&h->depth, a->opt.depth);
    atomic_init(&h->interval_ms, a->opt.interval_ms);
    atomic_init(&h->alloc_sample, a->opt.alloc_sample);
    tables_init(&h->t);
}

/* The JVMTI environment with what every run needs, then the sources' init and the
 * output; -1 (said) when one fails. */
static int set_up(struct agent *a, JavaVM *vm, jvmtiEnv *jvmti)
{
    if (add_capabilities(jvmti, &a->opt) != 0) {
        log_error("the JVM refused the JVMTI capabilities hprof needs");
        return -1;
    }
    note_limits(&a->opt);
    init_host(a, vm, jvmti);
    host_install(&a->host);
    if (init_sources(&a->host) != 0) return -1;
    char err[512];
    if (session_init(&a->session, &a->host, &a->report, &a->sources, err, sizeof err) != 0 ||
        report_open(&a->report, &a->host, &a->opt, a->session.path, err, sizeof err) != 0) {
        log_error("%s", err);
        return -1;
    }
    a->host.net_fd = report_socket_fd(&a->report);
    take_over_oom_exit(a); /* last: an agent that failed to start leaves the flag as it was */
    return 0;
}

struct agent *agent_create(JavaVM *vm, const char *options, bool live, enum options_result *parsed)
{
    struct agent *a = calloc(1, sizeof *a);
    if (!a) {
        log_error("out of memory");
        *parsed = OPTIONS_ERROR;
        return NULL;
    }
    *parsed = parse_options(&a->opt, options, live);
    if (*parsed != OPTIONS_OK) {
        free(a);
        return NULL;
    }
    jvmtiEnv *jvmti = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        log_error("cannot get a JVMTI environment (JVMTI 1.2 or later is needed)");
        free(a);
        return NULL;
    }
    a->host.late_start = live;
    if (set_up(a, vm, jvmti) == 0) return a;
    /* Attached, the JVM goes on: nothing of ours may stay behind (its events, its
     * capabilities, its callbacks into a library the JVM unloads now). */
    if (live) {
        host_install(NULL);
        (*jvmti)->DisposeEnvironment(jvmti);
    }
    return NULL;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    if (host_get()) {
        log_error("Cannot load this JVM TI agent twice, check your java command line for duplicate hprof options.");
        exit(1);
    }
    enum options_result parsed;
    struct agent *a = agent_create(vm, options, false, &parsed);
    if (parsed == OPTIONS_HELP) {
        fputs(options_help_text(), stdout);
        fflush(stdout);
        exit(0);
    }
    if (!a) exit(1);
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    /* The output was closed at VM death; the tables stay until the process ends,
     * since agent threads of the JVM may still hold pointers into them. */
}
