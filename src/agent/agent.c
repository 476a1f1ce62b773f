/*
 * The agent's entry points and its life cycle:
 *   Agent_OnLoad   options, capabilities, tables, output, callbacks
 *   VMInit         threads already running, the CPU sampler
 *   DataDumpRequest (SIGQUIT) a dump of what was gathered so far
 *   VMDeath        the final dump (doe=y), then the output is closed
 */
#include "agent/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/dump.h"
#include "sources/cpu_sampler.h"
#include "sources/monitor_events.h"
#include "sources/socket_commands.h"
#include "sources/alloc_tracker.h"
#include "sources/async_trace.h"
#include "sources/thread_events.h"
#include "sources/tracker.h"
#include "util/collector.h"
#include "util/log.h"

/* The one agent context; everything else hangs off it. */
static struct agent *the_agent;

struct agent *agent_get(void) { return the_agent; }

jthread agent_start_thread(struct agent *a, JNIEnv *jni, const char *name,
                           jvmtiStartFunction run, void *arg)
{
    if (a->nagent_threads >= (int)(sizeof a->agent_threads / sizeof a->agent_threads[0])) return NULL;
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    if (!cls) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jmethodID init = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
    jstring jname = init ? (*jni)->NewStringUTF(jni, name) : NULL;
    jobject thread = jname ? (*jni)->NewObject(jni, cls, init, jname) : NULL;
    if (!thread) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jobject global = (*jni)->NewGlobalRef(jni, thread);
    /* Known as ours before it starts, so its ThreadStart event is ignored. */
    a->agent_threads[a->nagent_threads++] = global;
    if ((*a->jvmti)->RunAgentThread(a->jvmti, thread, run, arg, JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE)
        return NULL;
    return global;
}

bool agent_is_own_thread(struct agent *a, JNIEnv *jni, jthread thread)
{
    for (int i = 0; i < a->nagent_threads; i++)
        if ((*jni)->IsSameObject(jni, a->agent_threads[i], thread)) return true;
    return false;
}

bool agent_can_force_gc(struct agent *a) { return atomic_load(&a->phase) == PHASE_LIVE || a->gc_at_exit; }

/* ---- JVMTI events ---- */

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    struct agent *a = agent_get();
    atomic_store(&a->phase, PHASE_LIVE);
    /* Asked now: the collector's threads that tell are gone by VM death. */
    if (a->opt.heap) a->gc_at_exit = collector_gc_at_exit();
    thread_events_vm_init(a, jni, thread);
    if (a->tracker) tracker_vm_init(a, jni);
    if (a->alloc && !alloc_tracker_exact(a)) alloc_tracker_vm_init_sampled(a, jni);
    if (a->opt.cpu == CPU_SAMPLES) cpu_sampler_start(a, jni);
    if (a->monitors) monitor_events_enable(a);
    if (a->opt.net_host && a->opt.format == 'b') socket_commands_start(a, jni);
}

static void JNICALL on_data_dump_request(jvmtiEnv *jvmti)
{
    struct agent *a = agent_get();
    if (atomic_load(&a->phase) != PHASE_LIVE) return;
    JNIEnv *jni = NULL;
    (*a->vm)->GetEnv(a->vm, (void **)&jni, JNI_VERSION_1_8);
    dump_all(a, jni, DUMP_ON_SIGNAL);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    struct agent *a = agent_get();
    int expected = PHASE_LIVE;
    if (!atomic_compare_exchange_strong(&a->phase, &expected, PHASE_DEAD)) return;
    socket_commands_stop(a);
    cpu_sampler_stop(a);
    if (a->tracker) tracker_vm_death(a, jni);
    if (a->opt.doe) dump_all(a, jni, DUMP_AT_EXIT);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_END, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_DATA_DUMP_REQUEST, NULL);
    output_close(&a->out);
}

/* ---- start-up ---- */

/* The option string: the JVM's, then $_JAVA_HPROF_OPTIONS, as the original read them. */
static char *gather_options(const char *given)
{
    const char *env = getenv("_JAVA_HPROF_OPTIONS");
    size_t n = (given ? strlen(given) : 0) + (env ? strlen(env) : 0) + 2;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n, "%s%s%s", given ? given : "", (given && *given && env && *env) ? "," : "", env ? env : "");
    return s;
}

/* Says once, at start-up, which asked-for parts this build cannot do yet or here. */
static void note_limits(const struct options *o)
{
    if (o->msa) log_warning("msa=y (Solaris micro state accounting) has no meaning on this platform; ignored");
    if (o->gc_okay_given) log_warning("gc_okay is an obsolete option; ignored");
}

static int add_capabilities(struct agent *a)
{
    jvmtiCapabilities want, have;
    memset(&want, 0, sizeof want);
    memset(&have, 0, sizeof have);
    (*a->jvmti)->GetPotentialCapabilities(a->jvmti, &have);
    want.can_get_line_numbers = have.can_get_line_numbers;
    want.can_get_source_file_name = have.can_get_source_file_name;
    want.can_tag_objects = 1;
    want.can_get_thread_cpu_time = have.can_get_thread_cpu_time;
    /* heap=dump: monitors owned by each thread are roots of the dump */
    if (a->opt.heap & HEAP_DUMP) want.can_get_owned_monitor_info = have.can_get_owned_monitor_info;
    if (a->opt.monitor) monitor_events_capabilities(&want, &have);
    return (*a->jvmti)->AddCapabilities(a->jvmti, &want) == JVMTI_ERROR_NONE ? 0 : -1;
}

static int open_output(struct agent *a)
{
    char err[512];
    if (a->opt.net_host) {
        if (output_open_socket(&a->out, a->opt.net_host, a->opt.net_port, err, sizeof err) != 0) {
            log_error("%s", err);
            return -1;
        }
        return 0;
    }
    char *chosen = NULL;
    if (output_open_file(&a->out, a->opt.file, a->opt.format == 'a', a->opt.force, &chosen, err, sizeof err) != 0) {
        log_error("%s", err);
        return -1;
    }
    if (chosen) {
        fprintf(stderr, "HPROF: %s exists and force=n; writing the profile to %s\n", a->opt.file, chosen);
        free(chosen);
    }
    return 0;
}

static void init_tables(struct agent *a)
{
    ids_init(&a->ids);
    strings_init(&a->strings);
    classes_init(&a->classes);
    methods_init(&a->methods, &a->classes, &a->ids);
    frames_init(&a->frames);
    traces_init(&a->traces, &a->methods, &a->frames);
    threads_init(&a->threads);
    pthread_mutex_init(&a->dump_lock, NULL);
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls)
{
    struct agent *a = agent_get();
    if (a->tracker) tracker_on_class_prepare(jvmti, jni, thread, cls);
    async_trace_class_prepared(alloc_tracker_walker(a), jvmti, cls);
}

static int set_callbacks(struct agent *a)
{
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ThreadStart = thread_events_on_start;
    cb.ThreadEnd = thread_events_on_end;
    cb.DataDumpRequest = on_data_dump_request;
    if (a->monitors) monitor_events_callbacks(&cb);
    cb.ClassFileLoadHook = tracker_on_class_file_load;
    cb.ClassPrepare = on_class_prepare;
    cb.ClassLoad = async_trace_on_class_load;
    cb.VMObjectAlloc = alloc_tracker_on_vm_object_alloc;
    cb.SampledObjectAlloc = alloc_tracker_on_sampled_alloc;
    cb.GarbageCollectionFinish = alloc_tracker_on_gc_finish;
    cb.CompiledMethodLoad = alloc_tracker_on_compiled_load;
    cb.CompiledMethodUnload = alloc_tracker_on_compiled_unload;
    jvmtiEnv *jvmti = a->jvmti;
    if ((*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof cb) != JVMTI_ERROR_NONE) return -1;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_DATA_DUMP_REQUEST, NULL);
    if (a->tracker) tracker_enable_events(a);
    async_trace_enable_events(alloc_tracker_walker(a), jvmti);
    if (a->alloc && !alloc_tracker_exact(a))
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (a->alloc) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    if (the_agent) {
        log_error("Cannot load this JVM TI agent twice, check your java command line for duplicate hprof options.");
        exit(1);
    }
    struct agent *a = calloc(1, sizeof *a);
    char *text = gather_options(options);
    if (!a || !text) {
        log_error("out of memory");
        exit(1);
    }
    char err[1024];
    switch (options_parse(text, &a->opt, err, sizeof err)) {
    case OPTIONS_HELP:
        fputs(options_help_text(), stdout);
        fflush(stdout);
        exit(0);
    case OPTIONS_ERROR:
        log_error("%s", err);
        exit(1);
    case OPTIONS_OK:
        break;
    }
    free(text);
    a->vm = vm;
    if ((*vm)->GetEnv(vm, (void **)&a->jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        log_error("cannot get a JVMTI environment (JVMTI 1.2 or later is needed)");
        exit(1);
    }
    if (add_capabilities(a) != 0) {
        log_error("the JVM refused the JVMTI capabilities hprof needs");
        exit(1);
    }
    note_limits(&a->opt);
    init_tables(a);
    if (a->opt.monitor && monitor_events_onload(a) != 0) exit(1);
    if (tracker_wanted(a) && tracker_onload(a) != 0) exit(1);
    if (alloc_tracker_wanted(a) && alloc_tracker_onload(a) != 0) {
        log_error("cannot set up allocation counting for heap=sites (the JVM refused its JVMTI capabilities)");
        exit(1);
    }
    if (open_output(a) != 0) exit(1);
    a->writer = a->opt.format == 'b' ? &binary_writer : &text_writer;
    a->wctx.out = &a->out;
    a->wctx.strings = &a->strings;
    a->wctx.opt = &a->opt;
    atomic_init(&a->phase, PHASE_ONLOAD);
    the_agent = a;

    output_lock(&a->out);
    a->writer->file_header(&a->wctx);
    output_unlock(&a->out);

    if (set_callbacks(a) != 0) {
        log_error("cannot set the JVMTI event callbacks");
        exit(1);
    }
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    /* The output was closed at VM death; the tables stay until the process ends,
     * since agent threads of the JVM may still hold pointers into them. */
}
