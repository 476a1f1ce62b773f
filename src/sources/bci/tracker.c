/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/bci/tracker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/source.h"
#include "classfile/classfile.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/bci/bci_spec.h"
#include "sources/bci/hidden_classes.h"
#include "sources/cpu/call_counts.h"
#include "sources/cpu/method_names.h"
#include "sources/cpu/method_times.h"
#include "sources/cpu/tracker_events.h"
#include "sources/resolve.h"
#include "tables/bci_classes.h"
#include "util/clock.h"
#include "util/fd_io.h"
#include "util/log.h"
#include "util/zip.h"

extern const unsigned char hprof_tracker_class[];
extern const size_t hprof_tracker_class_len;

struct tracker {
    char dir[4096];       /* where Tracker.class was put for the boot class path */
    char path[4096 + 16]; /* what went on it: dir, or the JAR in it (attached) */
    jclass cls;           /* the Tracker, once VM init found it */
    /* Its static methods the agent calls (cpu=times, cpu=old), once its natives are bound;
     * `ended` is read by ThreadEnd events, which may come while VM init binds them. */
    _Atomic(jmethodID) ended;
    jmethodID hand_over_all;
    /* Tracker.timeBySample (cpu=times, timing=sampled), called under time_lock: one at a time. */
    jmethodID time_by_sample;
    pthread_mutex_t time_lock;
    /* The Tracker's own lock (Tracker.lock/unlock), recursive: a native lock and not a
     * Java monitor, because a virtual thread that meets a held monitor unmounts (JDK 24+),
     * and its carrier then runs instrumented code (Continuation.run's fence) as that
     * virtual thread before the unmount is done; a hook there that waited for the same
     * monitor waited for good (the monitor's next owner is the thread that cannot be
     * mounted again). A thread waiting in native code stays on its carrier. */
    pthread_mutex_t lock;
    _Atomic unsigned too_big, unrewritable, failed; /* methods left as they were, classes that failed */
};

static bool wants_times(const struct host *h) { return h->opt->cpu == CPU_TIMES || h->opt->cpu == CPU_OLD; }

/* The options that instrument every class (monitor=y alone rewrites four of java.base
 * itself, sources/monitor/juc_waits.c, and needs only the Tracker on the boot class path). */
static bool instruments(const struct options *o)
{
    return o->cpu == CPU_TIMES || o->cpu == CPU_OLD || ((o->heap & HEAP_SITES) && o->alloc_sample == 0);
}

static bool wanted(const struct options *o) { return instruments(o) || o->monitor; }

static void remove_tracker_class(struct tracker *t);

static void time_by_sample(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, uint32_t nmethods, bool on);
static void name_if_collectable(struct host *h, JNIEnv *jni, struct bci_class *c, jclass cls);

static void JNICALL on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined, jobject loader,
                                       const char *name, jobject protection_domain, jint len, const unsigned char *data,
                                       jint *new_len, unsigned char **new_data)
{
    struct host *h = host_get();
    if (!name || !h || !host_tracker(h) || atomic_load(&h->phase) == PHASE_DEAD) return;
    if (strcmp(name, TRACKER_CLASS) == 0) {
        if (!loader) remove_tracker_class(host_tracker(h)); /* read now; nothing looks for it again */
        return;
    }
    /*
     * Before the module system is up (the primordial phase) the boot loader cannot
     * find the Tracker on the appended class path, so code calling it would fail:
     * those classes are left as they are now and retransformed at VM init.
     */
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*jvmti)->GetPhase(jvmti, &phase);
    if (phase == JVMTI_PHASE_PRIMORDIAL || phase == JVMTI_PHASE_ONLOAD) return;
    struct bci_class *c = bci_classes_number(host_bci_classes(h), jni, name, loader, data, (size_t)len);
    if (!c) return;
    cf_inject_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.tracker_class = TRACKER_CLASS;
    if (wants_times(h)) {
        spec.entry_name = "CallSite";
        spec.entry_desc = "(II)V";
        spec.return_name = "ReturnSite";
        spec.return_desc = "(II)V";
        /* A trivial method is counted, not timed (its time is its caller's own), but
         * with timing=all, which times every call. */
        if (!(h->opt->cpu == CPU_TIMES && h->opt->timing == TIMING_ALL)) spec.leaf_name = "LeafSite";
        spec.exception_exit = 1;
    }
    if (alloc_tracker_counted(h)) {
        bci_spec_sites(h, &spec);
        /* the bytes of the classes Lookup defines: hidden ones reach no class-file hook */
        if (strcmp(name, "java/lang/invoke/MethodHandles$Lookup$ClassDefiner") == 0)
            spec.definer_name = "definingClass";
    } else if (alloc_tracker_exact(h)) {
        bool direct = alloc_tracker_bound(h);
        spec.objinit_name = direct ? "newObject" : "ObjectInit";
        spec.objinit_desc = CF_OBJINIT_WITH_CLASS; /* the class passed: no JNI call to ask for it */
        spec.newarray_name = direct ? "newArray" : "NewArray";
        spec.newarray_desc = "(Ljava/lang/Object;)V";
        /* Compiled code copies objects without telling (C2 makes Object.clone inline), so
         * the calls of clone are hooked too; only with the natives bound, which classes
         * instrumented at start-up (before VM init) do without. */
        if (direct) {
            spec.clone_name = "newClone";
            spec.vclone_name = "newVirtualClone";
        }
    }
    spec.cnum = c->cnum;
    spec.filter = bci_spec_filter;
    cf_result res;
    int rc = cf_instrument(data, (size_t)len, &spec, &res);
    struct tracker *t = host_tracker(h);
    if (rc == CF_OK || rc == CF_UNCHANGED) {
        char **names = calloc(res.method_count ? res.method_count : 1, sizeof *names);
        char **descs = calloc(res.method_count ? res.method_count : 1, sizeof *descs);
        if (names && descs) {
            for (unsigned i = 0; i < res.method_count; i++) {
                names[i] = res.methods[i].name;
                descs[i] = res.methods[i].desc;
            }
            bci_classes_set_methods(host_bci_classes(h), c, res.method_count, names, descs);
            if (being_redefined) {
                bci_classes_bind(c, jvmti, being_redefined);
                name_if_collectable(h, jni, c, being_redefined);
            }
        }
        free(names);
        free(descs);
        atomic_fetch_add(&t->too_big, res.too_big);
        atomic_fetch_add(&t->unrewritable, res.unrewritable);
    } else {
        atomic_fetch_add(&t->failed, 1); /* left unchanged, as it came */
    }
    if (rc == CF_OK)
        for (unsigned i = 0; i < res.site_count; i++) alloc_tracker_add_site(h, c->cnum, &res.sites[i]);
    if (rc == CF_OK) {
        unsigned char *out = NULL;
        if ((*jvmti)->Allocate(jvmti, (jlong)res.len, &out) == JVMTI_ERROR_NONE) {
            memcpy(out, res.data, res.len);
            *new_data = out;
            *new_len = (jint)res.len;
        }
    }
    cf_result_free(&res);
}

/* Whether the class's loader is one of the JDK's own (boot, platform, application),
 * which are never collected. */
static bool jdk_loader(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    static const char prefix[] = "Ljdk/internal/loader/ClassLoaders$";
    jobject loader = NULL;
    if ((*jvmti)->GetClassLoader(jvmti, cls, &loader) != JVMTI_ERROR_NONE || !loader) return true;
    jclass type = (*jni)->GetObjectClass(jni, loader);
    char *sig = NULL;
    bool jdk = type && (*jvmti)->GetClassSignature(jvmti, type, &sig, NULL) == JVMTI_ERROR_NONE && sig &&
        strncmp(sig, prefix, sizeof prefix - 1) == 0;
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (type) (*jni)->DeleteLocalRef(jni, type);
    (*jni)->DeleteLocalRef(jni, loader);
    return jdk;
}

/* cpu=times: a class of another loader may be gone before its calls are counted; its
 * methods are named while it is surely loaded. */
static void name_if_collectable(struct host *h, JNIEnv *jni, struct bci_class *c, jclass cls)
{
    if (c && c->loader && wants_times(h) && !jdk_loader(h->jvmti, jni, cls)) method_names_class(h, jni, c);
}

static void class_prepare(struct host *h, JNIEnv *jni, jthread thread, jclass cls)
{
    if (host_bci_classes(h) && instruments(h->opt))
        name_if_collectable(h, jni, bci_classes_prepared(host_bci_classes(h), h->jvmti, jni, cls), cls);
}

/* The directory goes as soon as the boot loader has read the Tracker (or at VMInit,
 * VM death); when the process exits before (the agent's start-up failed), here. A JVM
 * that fails to initialise ends with _exit: then it stays (see docs/files.md). */
static void remove_at_exit(void)
{
    struct host *h = host_get();
    if (h && host_tracker(h)) remove_tracker_class(host_tracker(h));
}

/* Writes data to path, a new file of ours. */
static int write_new_file(const char *path, const unsigned char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    int rc = fd_write_all(fd, data, len);
    return close(fd) == 0 ? rc : -1;
}

/*
 * Writes the embedded Tracker.class where the boot class path can find it: a directory
 * at start-up; a JAR when attached to a running JVM (in the live phase JVMTI takes only
 * a JAR file). t->path is what goes on the boot class path.
 */
static int place_tracker_class(struct tracker *t, bool live)
{
    /* TMPDIR as the user set it, however long: the file must go where they look for it. */
    const char *tmp = getenv("TMPDIR");
    size_t room = sizeof t->dir - sizeof "/hprof/Tracker.class";
    if ((size_t)snprintf(t->dir, room, "%s/hprof-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= room || !mkdtemp(t->dir)) {
        t->dir[0] = 0;
        return -1;
    }
    atexit(remove_at_exit);
    char path[sizeof t->dir + sizeof "/hprof/Tracker.class"];
    if (live) {
        uint8_t *jar = NULL;
        size_t len = 0;
        snprintf(t->path, sizeof t->path, "%s/hprof.jar", t->dir);
        if (zip_stored(TRACKER_CLASS ".class", hprof_tracker_class, hprof_tracker_class_len, &jar, &len) != 0)
            return -1;
        int rc = write_new_file(t->path, jar, len);
        free(jar);
        return rc;
    }
    snprintf(t->path, sizeof t->path, "%s", t->dir);
    snprintf(path, sizeof path, "%s/hprof", t->dir);
    if (mkdir(path, 0700) != 0) return -1;
    snprintf(path, sizeof path, "%s/hprof/Tracker.class", t->dir);
    return write_new_file(path, hprof_tracker_class, hprof_tracker_class_len);
}

static void remove_tracker_class(struct tracker *t)
{
    if (!t->dir[0]) return;
    char path[sizeof t->dir + sizeof "/hprof/Tracker.class"];
    snprintf(path, sizeof path, "%s/hprof/Tracker.class", t->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/hprof.jar", t->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/hprof", t->dir);
    rmdir(path);
    rmdir(t->dir);
    t->dir[0] = 0;
}

/* The Tracker class on the boot class path (all monitor=y alone needs of this source). */
static int place_only(struct tracker *t, bool live)
{
    if (place_tracker_class(t, live) == 0 &&
        (*host_get()->jvmti)->AddToBootstrapClassLoaderSearch(host_get()->jvmti, t->path) == JVMTI_ERROR_NONE)
        return 0;
    log_error("cannot put the Tracker class on the boot class path (%s): %s", t->path, strerror(errno));
    remove_tracker_class(t);
    return -1;
}

static int init(struct host *h, jvmtiEventCallbacks *cb)
{
    jvmtiEnv *jvmti = h->jvmti;
    struct tracker *t = calloc(1, sizeof *t);
    struct bci_class_table *classes = calloc(1, sizeof *classes);
    struct method_times *times = method_times_new(time_by_sample);
    host_set_state(h, SOURCE_BCI_CLASSES, classes);
    host_set_state(h, SOURCE_METHOD_TIMES, times);
    if (call_counts_wanted(h->opt)) {
        struct call_counts *counts = call_counts_new();
        if (!counts) return -1;
        host_set_state(h, SOURCE_CALL_COUNTS, counts);
    }
    if (!t || !classes || !times) return -1;
    if (wants_times(h) && h->opt->cpu != CPU_OLD && h->opt->depth > METHOD_TIMES_MAX_DEPTH)
        log_warning("cpu=times: depth=%d is more than the %d frames a call stack keeps; stacks are cut at %d",
                    h->opt->depth, METHOD_TIMES_MAX_DEPTH, METHOD_TIMES_MAX_DEPTH);
    bci_classes_init(classes);
    host_set_state(h, SOURCE_TRACKER, t);
    pthread_mutex_init(&t->time_lock, NULL);
    pthread_mutexattr_t recursive;
    pthread_mutexattr_init(&recursive);
    pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &recursive);
    pthread_mutexattr_destroy(&recursive);
    jvmtiPhase phase = JVMTI_PHASE_ONLOAD;
    (*jvmti)->GetPhase(jvmti, &phase);
    bool live = phase == JVMTI_PHASE_LIVE;
    if (!instruments(h->opt)) return place_only(t, live);
    jvmtiCapabilities caps, have = host_potential_capabilities(jvmti);
    memset(&caps, 0, sizeof caps);
    caps.can_generate_all_class_hook_events = 1;
    /* Early hooks exist only at start-up; attached, every class is loaded already. */
    caps.can_generate_early_class_hook_events = have.can_generate_early_class_hook_events;
    caps.can_retransform_classes = 1;
    caps.can_get_current_thread_cpu_time = have.can_get_current_thread_cpu_time;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        if (live)
            log_error("this JVM cannot retransform its loaded classes, which %s needs when attached",
                      wants_times(h) ? "cpu=times/old" : "exact heap=sites (use alloc_sample=<bytes>)");
        else
            log_error("the JVM refused the class-hook capabilities that cpu=times needs");
        return -1;
    }
    if (place_only(t, live) != 0) return -1;
    cb->ClassFileLoadHook = on_class_file_load;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    return 0;
}

static jlong current_cpu(struct host *h)
{
    jlong cpu = -1;
    if ((*h->jvmti)->GetCurrentThreadCpuTime(h->jvmti, &cpu) != JVMTI_ERROR_NONE) cpu = -1;
    return cpu;
}

/* The Tracker's buffers: [0] fill index, [1] the owner's thread id, [2] the Tracker's
 * count of cheap events (not ours to touch), then the pairs. */
#define HEAD 3

/* The events of buffer[HEAD..length) as a batch (NULL when none, or out of memory). */
static struct batch *batch_of(struct host *h, JNIEnv *jni, jlongArray buffer, jint length)
{
    jint slots = length > HEAD ? length - HEAD : 0;
    if (slots <= 0 || slots > (*jni)->GetArrayLength(jni, buffer) - HEAD) return NULL;
    struct batch *b = method_times_batch_new(host_method_times(h), slots);
    if (b) (*jni)->GetLongArrayRegion(jni, buffer, HEAD, slots, (jlong *)method_times_batch_slots(b));
    return b;
}

/* thread: NULL for the current one (its own entry, no lock), else perhaps another's. */
static uint32_t serial_of(struct host *h, jthread thread)
{
    if (!h->opt->thread) return 0;
    if (thread) return threads_serial(&h->t.threads, h->jvmti, thread);
    struct thread_info *ti = threads_lookup(h->jvmti, NULL);
    return ti ? ti->serial : 0;
}

/* Tracker.drain, on the thread itself: hands the buffer's pairs over (none when the
 * Tracker has just made it) and starts the buffer again with a mark (tracker_events.h), so
 * that the hand-over is charged to no method. */
static void JNICALL native_drain(JNIEnv *jni, jclass cls, jlong tid, jlongArray buffer, jint length)
{
    struct host *h = host_get();
    if (!buffer) return;
    struct batch *b = batch_of(h, jni, buffer, length);
    if (b) method_times_submit(h, jni, b, tid, current_cpu(h), serial_of(h, NULL), false);
    jlong cpu = current_cpu(h);
    jlong head[2] = {HEAD + 2, tid}, mark[2] = {TRACKER_MARK_BIT | (cpu > 0 ? cpu : 0), (jlong)clock_ns()};
    (*jni)->SetLongArrayRegion(jni, buffer, 0, 2, head);
    (*jni)->SetLongArrayRegion(jni, buffer, HEAD, 2, mark);
}

/* Tracker.handOver, from any thread: the pairs of thread t's buffer (t NULL: the current
 * thread), with its CPU time now (-1 if unknown); `last` when t records nothing more. The
 * buffer is left empty, without a mark: its thread, if it goes on, starts a window there. */
static void JNICALL native_hand_over(JNIEnv *jni, jclass cls, jlong tid, jlongArray buffer, jint length, jthread thread,
                                     jboolean last)
{
    struct host *h = host_get();
    if (!buffer) return;
    struct batch *b = batch_of(h, jni, buffer, length);
    if (!b && last) b = method_times_batch_new(host_method_times(h), 0); /* only to say so */
    jlong cpu = -1;
    jvmtiError err = thread ? (*h->jvmti)->GetThreadCpuTime(h->jvmti, thread, &cpu)
                            : (*h->jvmti)->GetCurrentThreadCpuTime(h->jvmti, &cpu);
    if (err != JVMTI_ERROR_NONE) cpu = -1;
    if (b) method_times_submit(h, jni, b, tid, cpu, serial_of(h, thread), last);
    jlong head = HEAD;
    (*jni)->SetLongArrayRegion(jni, buffer, 0, 1, &head);
}

/* Tracker.counted (timing=gprof), under the Tracker's lock: what thread t (NULL: the
 * current one) counted since it was last read; `last` when it counts no more. */
static void JNICALL native_counted(JNIEnv *jni, jclass cls, jlong tid, jlongArray counts, jthread thread, jboolean last)
{
    struct host *h = host_get();
    if (counts) call_counts_take(h, jni, counts, tid, serial_of(h, thread), last);
}

/* Tracker.lock and unlock: around every change the Tracker makes to its table of
 * threads (call_tracker takes the lock itself). The holder runs only the Tracker's code
 * and its natives, never waiting on anything. */
static void JNICALL native_lock(JNIEnv *jni, jclass cls) { pthread_mutex_lock(&host_tracker(host_get())->lock); }
static void JNICALL native_unlock(JNIEnv *jni, jclass cls) { pthread_mutex_unlock(&host_tracker(host_get())->lock); }

/* Tracker.openCalls (timing=gprof), on the thread, at its first count. */
static jlongArray JNICALL native_open_calls(JNIEnv *jni, jclass cls) { return call_counts_open_calls(host_get(), jni); }

/* Calls a static void method of the Tracker that takes nothing or one object (`ended`,
 * `handOverAll`), under the Tracker's lock. */
static void call_tracker(struct tracker *t, JNIEnv *jni, jmethodID m, jobject arg)
{
    if (!m) return;
    pthread_mutex_lock(&t->lock);
    if (arg)
        (*jni)->CallStaticVoidMethod(jni, t->cls, m, arg);
    else
        (*jni)->CallStaticVoidMethod(jni, t->cls, m);
    pthread_mutex_unlock(&t->lock);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni); /* out of memory, say: nothing of ours */
}

/* On the ending thread: the Tracker hands its buffer over for the last time and frees it. */
static void thread_end(struct host *h, JNIEnv *jni, jthread thread)
{
    struct tracker *t = host_tracker(h);
    if (!t || !t->cls || !wants_times(h)) return;
    call_tracker(t, jni, atomic_load(&t->ended), thread);
}

/*
 * Instruments the classes loaded before the Tracker was reachable by retransforming
 * them, and names the methods of classes loaded before prepare events were seen.
 */
static void catch_up(struct host *h, JNIEnv *jni)
{
    jvmtiEnv *jvmti = h->jvmti;
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE) return;
    (*jni)->EnsureLocalCapacity(jni, n + 32);
    /* Those to redo are held by global references, their local ones let go at once: the
     * class-file hook runs for each under the retransformation, and -Xcheck:jni counts
     * every local reference of this frame against the hook's. */
    jclass *redo = calloc((size_t)(n ? n : 1), sizeof *redo);
    jint nredo = 0;
    for (jint i = 0; i < n; i++) {
        jboolean modifiable = JNI_FALSE;
        jint status = 0;
        (*jvmti)->GetClassStatus(jvmti, classes[i], &status);
        (*jvmti)->IsModifiableClass(jvmti, classes[i], &modifiable);
        if (redo && modifiable && !(status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) &&
            !bci_classes_is_numbered(host_bci_classes(h), jvmti, jni, classes[i])) {
            if ((redo[nredo] = (*jni)->NewGlobalRef(jni, classes[i])) != NULL) nredo++;
        } else {
            bci_classes_prepared(host_bci_classes(h), jvmti, jni, classes[i]);
        }
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    if (nredo > 0 && (*jvmti)->RetransformClasses(jvmti, nredo, redo) != JVMTI_ERROR_NONE) {
        /* One bad class fails the whole call: go one by one. */
        for (jint i = 0; i < nredo; i++) (*jvmti)->RetransformClasses(jvmti, 1, &redo[i]);
    }
    for (jint i = 0; i < nredo; i++) (*jni)->DeleteGlobalRef(jni, redo[i]);
    free(redo);
}

/* Tracker.engaged: 0 inert, 1 recording events, 2 counting calls (timing=gprof). */
static jint engaged_value(const struct host *h, bool on) { return !on ? 0 : host_call_counts(h) ? 2 : 1; }

static void start(struct host *h, JNIEnv *jni)
{
    struct tracker *t = host_tracker(h);
    /* The Tracker is bound before the classes loaded so far are instrumented, so that
     * these call its natives straight. */
    jclass cls = (*jni)->FindClass(jni, TRACKER_CLASS);
    if (!cls) (*jni)->ExceptionClear(jni);
    if (!instruments(h->opt)) { /* monitor=y's hooks: the class is loaded, its file can go */
        if (cls) t->cls = (*jni)->NewGlobalRef(jni, cls);
        remove_tracker_class(t);
        return;
    }
    if (cls && alloc_tracker_exact(h)) alloc_tracker_bind(h, jni, cls);
    catch_up(h, jni);
    if (!cls) {
        log_error("the Tracker class could not be loaded; cpu=%s has no data", options_cpu_name(h->opt->cpu));
        return;
    }
    t->cls = (*jni)->NewGlobalRef(jni, cls);
    remove_tracker_class(t); /* loaded now; nothing will look for the file again */
    JNINativeMethod locks[] = {{"lock", "()V", (void *)native_lock}, {"unlock", "()V", (void *)native_unlock}};
    if ((*jni)->RegisterNatives(jni, cls, locks, 2) != 0) (*jni)->ExceptionClear(jni);
    if (alloc_tracker_exact(h)) alloc_tracker_vm_init(h, jni);
    if (alloc_tracker_counted(h)) hidden_classes_bind(h, jni, cls);
    if (!wants_times(h)) return;
    JNINativeMethod natives[] = {{"drain", "(J[JI)V", (void *)native_drain},
                                 {"handOver", "(J[JILjava/lang/Thread;Z)V", (void *)native_hand_over},
                                 {"counted", "(J[JLjava/lang/Thread;Z)V", (void *)native_counted},
                                 {"openCalls", "()[J", (void *)native_open_calls}};
    jfieldID engaged = (*jni)->GetStaticFieldID(jni, cls, "engaged", "I");
    jfieldID counting = engaged ? (*jni)->GetStaticFieldID(jni, cls, "counting", "Z") : NULL;
    jfieldID depth = counting ? (*jni)->GetStaticFieldID(jni, cls, "depth", "I") : NULL;
    jmethodID ended = (*jni)->GetStaticMethodID(jni, cls, "ended", "(Ljava/lang/Thread;)V");
    jmethodID all = ended ? (*jni)->GetStaticMethodID(jni, cls, "handOverAll", "()V") : NULL;
    if (!ended || !all || !depth ||
        (*jni)->RegisterNatives(jni, cls, natives, sizeof natives / sizeof natives[0]) != 0) {
        (*jni)->ExceptionClear(jni);
        log_error("the Tracker class does not match this agent; cpu=%s has no data", options_cpu_name(h->opt->cpu));
        return;
    }
    t->hand_over_all = all;
    if (h->opt->cpu == CPU_TIMES && h->opt->timing == TIMING_SAMPLED) {
        t->time_by_sample = (*jni)->GetStaticMethodID(jni, cls, "timeBySample", "(IIIZ)V");
        if (!t->time_by_sample) (*jni)->ExceptionClear(jni); /* every call stays timed */
    }
    atomic_store(&t->ended, ended);
    if (host_call_counts(h)) {
        int d = host_depth(h);
        call_counts_bind(h, jni, cls);
        (*jni)->SetStaticBooleanField(jni, cls, counting, JNI_TRUE);
        (*jni)->SetStaticIntField(jni, cls, depth, d < 1 ? 1 : d > METHOD_TIMES_MAX_DEPTH ? METHOD_TIMES_MAX_DEPTH : d);
    } else {
        method_times_start(h, jni);
    }
    (*jni)->SetStaticIntField(jni, cls, engaged, engaged_value(h, true));
}

void tracker_collect(struct host *h, JNIEnv *jni)
{
    struct tracker *t = host_tracker(h);
    if (t && t->cls && host_call_counts(h) && jni) call_tracker(t, jni, t->hand_over_all, NULL);
}

/* cpu=times, timing=sampled (method_costs_switch): Tracker.timeBySample, one call at a time. */
static void time_by_sample(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, uint32_t nmethods, bool on)
{
    struct tracker *t = host_tracker(h);
    if (!t || !t->time_by_sample || !jni || cnum > INT32_MAX || atomic_load(&h->phase) == PHASE_DEAD) return;
    pthread_mutex_lock(&t->time_lock);
    (*jni)->CallStaticVoidMethod(jni, t->cls, t->time_by_sample, (jint)cnum, (jint)mnum, (jint)nmethods,
                                 on ? JNI_TRUE : JNI_FALSE);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni); /* out of memory: timed as before */
    pthread_mutex_unlock(&t->time_lock);
}

/* cpu=times|old: the Tracker's timing on or off; the instrumentation stays, calling
 * into a Tracker that does nothing. */
static void engage(struct host *h, JNIEnv *jni, bool on)
{
    struct tracker *t = host_tracker(h);
    if (!t || !t->cls || !wants_times(h)) return;
    if (!on) call_counts_paused(h);
    jfieldID engaged = (*jni)->GetStaticFieldID(jni, t->cls, "engaged", "I");
    if (engaged)
        (*jni)->SetStaticIntField(jni, t->cls, engaged, engaged_value(h, on));
    else
        (*jni)->ExceptionClear(jni);
}

/* A session's switch: its timing, where the session times methods (exact heap=sites
 * goes through the allocation source's own switch). */
static void enable(struct host *h, JNIEnv *jni, const struct options *o, bool on)
{
    if (o->cpu == CPU_TIMES || o->cpu == CPU_OLD) engage(h, jni, on);
}

static void stop(struct host *h, JNIEnv *jni)
{
    struct tracker *t = host_tracker(h);
    if (!t || !t->cls) {
        if (t) remove_tracker_class(t);
        return;
    }
    if (alloc_tracker_exact(h)) alloc_tracker_enable(h, jni, false);
    unsigned big = atomic_load(&t->too_big), odd = atomic_load(&t->unrewritable), bad = atomic_load(&t->failed);
    if (big)
        fprintf(stderr, "HPROF: %u method%s left as %s: instrumented, %s would pass the 64 KiB code limit\n", big,
                big == 1 ? " was" : "s were", big == 1 ? "it was" : "they were", big == 1 ? "it" : "they");
    if (odd)
        fprintf(stderr,
                "HPROF: %u method%s left as %s: %s could not be rewritten safely (a branch with no room "
                "to widen, or an operand stack past 65535)\n",
                odd, odd == 1 ? " was" : "s were", odd == 1 ? "it was" : "they were", odd == 1 ? "it" : "they");
    if (bad)
        fprintf(stderr, "HPROF: %u class%s could not be parsed and %s left unchanged\n", bad, bad == 1 ? "" : "es",
                bad == 1 ? "was" : "were");
    if (!wants_times(h)) return;
    jfieldID engaged = (*jni)->GetStaticFieldID(jni, t->cls, "engaged", "I");
    if (engaged) (*jni)->SetStaticIntField(jni, t->cls, engaged, 0);
    /* What every live thread still holds, as it is now (they may still be running). */
    call_tracker(t, jni, t->hand_over_all, NULL);
    method_times_log_stats(h);
}

const struct source tracker_source = {
    .name = "tracker",
    .wanted = wanted,
    .init = init,
    .start = start,
    .enable = enable,
    .stop = stop,
    .thread_end = thread_end,
    .class_prepare = class_prepare,
};
