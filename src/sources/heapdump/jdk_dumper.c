/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap=dump through the JDK's own dumper (see jdk_dumper.h).
 *
 * 1. The marker: an Object[] holding a long[] with a random nonce, then every loaded
 *    class, every live thread's object, every monitor a thread owns and the agent's own
 *    objects the dump must leave out (the file's name), held by a JNI global reference
 *    while the JVM dumps. In the JVM's dump the nonce finds the marker, and the marker's
 *    elements tell which of the dump's objects are hprof's classes and threads (the JVM
 *    names objects by address, hprof by its own IDs).
 * 2. HotSpotDiagnosticMXBean.dumpHeap's native method (file, live=true): a full GC and
 *    the dump, written by the JVM (in parallel on JDK 21+). With ZGC and Shenandoah,
 *    whose collections cannot run inside the dump, a GC is forced first.
 * 3. The file is mapped, unlinked (so it goes away whatever happens next) and rewritten
 *    into the output by the reader (jdk_dump_reader.h), with the output lock held.
 * Each class's fields are put in the order JVMTI gives (the JVM's declaration order), as
 * the JVMTI walk writes them: JDK 17's dumper lists them the other way round.
 */
#include "sources/heapdump/jdk_dumper.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/heapdump/heap_classes.h"
#include "sources/heapdump/heap_roots.h"
#include "sources/heapdump/heap_times.h"
#include "sources/heapdump/dump_threads.h"
#include "sources/heapdump/jdk_dump_reader.h"
#include "sources/heapdump/jdk_dump_stacks.h"
#include "sources/resolve.h"
#include "util/fd_io.h"
#include "util/clock.h"
#include "util/log.h"
#include "tables/heap_records.h"

/* What the agent knows of one thing in the marker. */
struct marked {
    struct class_info **classes;
    struct jdr_order *orders;
    struct jdr_order *late_orders; /* of classes loaded while the marker was made */
    uint32_t nlate;
    char **names; /* every field name the orders point to */
    size_t nnames, names_cap;
    uint32_t ncls;
    const struct dump_thread **threads;
    uint32_t nthreads;
    uint32_t nmonitors;
    uint32_t nhidden; /* the agent's own objects, last in the marker */
    jobject marker;   /* global reference while the JVM dumps */
    uint64_t nonce[2];
};

static bool wanted(struct host *h)
{
    const char *how = getenv("HPROF_HEAP_DUMPER");
    if (how && strcmp(how, "jvmti") == 0) return false;
    return h->opt->format == 'b' && !alloc_tracker_sites(h) && host_can_force_gc(h);
}

/* A name the orders keep, owned by m. */
static const char *keep_name(struct marked *m, const char *s)
{
    if (m->nnames == m->names_cap) {
        size_t n = m->names_cap ? m->names_cap * 2 : 1024;
        char **p = realloc(m->names, n * sizeof *p);
        if (!p) return NULL;
        m->names = p;
        m->names_cap = n;
    }
    char *c = strdup(s);
    if (c) m->names[m->nnames++] = c;
    return c;
}

/* The order of a class's own fields and statics, as JVMTI lists them. */
static void field_order(struct host *h, JNIEnv *jni, struct marked *m, jclass cls, struct jdr_order *o)
{
    jvmtiEnv *jvmti = h->jvmti;
    jint n = 0;
    jfieldID *ids = NULL;
    memset(o, 0, sizeof *o);
    jvmtiError err = (*jvmti)->GetClassFields(jvmti, cls, &n, &ids);
    if (err == JVMTI_ERROR_CLASS_NOT_PREPARED && heap_link_class(jvmti, jni, cls))
        err = (*jvmti)->GetClassFields(jvmti, cls, &n, &ids);
    if (err != JVMTI_ERROR_NONE || n <= 0) return;
    const char **inst = calloc((size_t)n, sizeof *inst), **stat = calloc((size_t)n, sizeof *stat);
    for (jint i = 0; inst && stat && i < n; i++) {
        char *name = NULL;
        jint mods = 0;
        if ((*jvmti)->GetFieldName(jvmti, cls, ids[i], &name, NULL, NULL) != JVMTI_ERROR_NONE || !name) continue;
        (*jvmti)->GetFieldModifiers(jvmti, cls, ids[i], &mods);
        const char *kept = keep_name(m, name);
        if (kept) {
            if (mods & 0x0008)
                stat[o->nstatics++] = kept;
            else
                inst[o->ninst++] = kept;
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    o->inst = inst;
    o->statics = stat;
}

static void marked_free(struct marked *m)
{
    for (uint32_t i = 0; m->orders && i < m->ncls; i++) {
        free((void *)m->orders[i].inst);
        free((void *)m->orders[i].statics);
    }
    for (uint32_t i = 0; i < m->nlate; i++) {
        free((void *)m->late_orders[i].inst);
        free((void *)m->late_orders[i].statics);
    }
    free(m->late_orders);
    for (size_t i = 0; i < m->nnames; i++) free(m->names[i]);
    free(m->names);
    free(m->orders);
    free(m->classes);
    free(m->threads);
}

static void random_nonce(uint64_t nonce[2])
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, nonce, 2 * sizeof *nonce) != (ssize_t)(2 * sizeof *nonce)) {
        nonce[0] = clock_wall_us() * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
        nonce[1] = clock_ns() * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)(uintptr_t)nonce;
    }
    if (fd >= 0) close(fd);
}

/* Builds the marker (see the top), the dump's threads `dt` in it, `hidden` objects last.
 * false when the JVM would not. */
static bool make_marker(struct host *h, JNIEnv *jni, struct marked *m, const struct dump_threads *dt,
                        const jobject *hidden, uint32_t nhidden)
{
    jvmtiEnv *jvmti = h->jvmti;
    jint n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return false;
    uint32_t nmon = 0;
    jobject *mons = NULL;
    bool ok = (*jni)->PushLocalFrame(jni, 64) == 0;
    ok = ok && (*jni)->EnsureLocalCapacity(jni, n + 64) == 0;
    m->classes = calloc((size_t)n + 1, sizeof *m->classes);
    m->orders = calloc((size_t)n + 1, sizeof *m->orders);
    ok = ok && m->classes && m->orders;
    for (jint i = 0; ok && i < n; i++) {
        m->classes[i] = classes_of(&h->t.classes, jvmti, jni, all[i], &h->t.ids);
        field_order(h, jni, m, all[i], &m->orders[i]);
    }
    m->ncls = ok ? (uint32_t)n : 0;

    m->threads = calloc((size_t)dt->n + 1, sizeof *m->threads);
    for (uint32_t i = 0; ok && m->threads && i < dt->n; i++)
        if (dt->t[i].ref) m->threads[m->nthreads++] = &dt->t[i];
    if (ok) mons = heap_owned_monitors(h, jni, &nmon);
    m->nmonitors = nmon;

    random_nonce(m->nonce);
    m->nhidden = nhidden;
    uint32_t len = 1 + m->ncls + m->nthreads + m->nmonitors + m->nhidden;
    jclass object = ok ? (*jni)->FindClass(jni, "java/lang/Object") : NULL;
    jobjectArray arr = object ? (*jni)->NewObjectArray(jni, (jsize)len, object, NULL) : NULL;
    jlongArray nonce = arr ? (*jni)->NewLongArray(jni, 4) : NULL;
    if (nonce) {
        jlong v[4] = {(jlong)m->nonce[0], (jlong)m->nonce[1], (jlong)m->ncls, (jlong)m->nthreads};
        (*jni)->SetLongArrayRegion(jni, nonce, 0, 4, v);
        uint32_t at = 0;
        (*jni)->SetObjectArrayElement(jni, arr, (jsize)at++, nonce);
        for (uint32_t i = 0; i < m->ncls; i++) (*jni)->SetObjectArrayElement(jni, arr, (jsize)at++, all[i]);
        for (uint32_t i = 0; i < m->nthreads; i++)
            (*jni)->SetObjectArrayElement(jni, arr, (jsize)at++, m->threads[i]->ref);
        for (uint32_t i = 0; i < nmon; i++) (*jni)->SetObjectArrayElement(jni, arr, (jsize)at++, mons[i]);
        for (uint32_t i = 0; i < nhidden; i++) (*jni)->SetObjectArrayElement(jni, arr, (jsize)at++, hidden[i]);
        m->marker = (*jni)->NewGlobalRef(jni, arr);
    }
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        if (m->marker) (*jni)->DeleteGlobalRef(jni, m->marker);
        m->marker = NULL;
    }
    /* Every local reference goes, or the JVM's dump would show them as JNI local roots. */
    for (jint i = 0; i < n; i++) (*jni)->DeleteLocalRef(jni, all[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    for (uint32_t i = 0; i < nmon; i++) (*jni)->DeleteLocalRef(jni, mons[i]);
    free(mons);
    (*jni)->PopLocalFrame(jni, NULL);
    return m->marker != NULL;
}

/* Where the JVM writes its dump: in a new folder of the agent's user alone (0700), beside
 * the output file, else in TMPDIR, so no one else reads it or plants a file in its place
 * whatever mode the JVM gives it. The name must end in .hprof. false when no folder. */
static bool temp_path(struct host *h, char *path, size_t n)
{
    char dir[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s", tmp && *tmp ? tmp : "/tmp");
    if (!h->opt->net_host && h->opt->file) {
        snprintf(dir, sizeof dir, "%s", h->opt->file);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir] = 0;
        else
            snprintf(dir, sizeof dir, ".");
    }
    if ((size_t)snprintf(path, n, "%s/.hprof-jvm-dump-XXXXXX", dir) >= n - sizeof "/heap.hprof" || !mkdtemp(path))
        return false;
    strcat(path, "/heap.hprof");
    return true;
}

/* The file and its folder go, whatever became of the dump. */
static void temp_remove(char *path)
{
    unlink(path);
    char *slash = strrchr(path, '/');
    *slash = 0;
    rmdir(path);
    *slash = '/';
}

/*
 * The native method behind HotSpotDiagnosticMXBean.dumpHeap (jdk.management's
 * HotSpotDiagnostic.dumpHeap0(String, boolean), the same on JDK 17 to 25), called
 * directly: the MXBean's Java side would leave hundreds of objects of its own in the
 * dump. Its library is initialised as System.loadLibrary would. NULL when not there
 * (a runtime without jdk.management): the heap is walked then.
 */
typedef void(JNICALL *dump_heap_fn)(JNIEnv *env, jobject self, jstring file, jboolean live);

static dump_heap_fn native_dumper(struct host *h)
{
    char *home = NULL, lib[FD_PATH_MAX];
    if ((*h->jvmti)->GetSystemProperty(h->jvmti, "java.home", &home) != JVMTI_ERROR_NONE || !home) return NULL;
    snprintf(lib, sizeof lib, "%s/lib/libmanagement_ext.so", home);
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)home);
    void *lib_handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!lib_handle) return NULL;
    jint(JNICALL * on_load)(JavaVM *, void *) = (jint(JNICALL *)(JavaVM *, void *))dlsym(lib_handle, "JNI_OnLoad");
    dump_heap_fn dump = (dump_heap_fn)dlsym(lib_handle, "Java_com_sun_management_internal_HotSpotDiagnostic_dumpHeap0");
    if (!on_load || !dump || on_load(h->vm, NULL) < JNI_VERSION_1_2) {
        dlclose(lib_handle);
        return NULL;
    }
    return dump; /* the library stays loaded, as the JDK's own would */
}

/* The JVM dumps its heap (live objects, GC first) into `file`; false when it threw. */
static bool jvm_dump_heap(JNIEnv *jni, dump_heap_fn dump, jstring file)
{
    dump(jni, NULL, file, JNI_TRUE);
    if (!(*jni)->ExceptionCheck(jni)) return true;
    if (heap_times()) (*jni)->ExceptionDescribe(jni);
    (*jni)->ExceptionClear(jni);
    return false;
}

/* A String's array of characters (JDK 9+: private byte[] value), or NULL. */
static jobject string_value(JNIEnv *jni, jstring s)
{
    jclass sc = (*jni)->GetObjectClass(jni, s);
    jfieldID f = sc ? (*jni)->GetFieldID(jni, sc, "value", "[B") : NULL;
    jobject v = f ? (*jni)->GetObjectField(jni, s, f) : NULL;
    (*jni)->ExceptionClear(jni);
    if (sc) (*jni)->DeleteLocalRef(jni, sc);
    return v;
}

/* Maps the JVM's dump; NULL when it cannot be read. *fd stays open (the
 * rewrite frees the file's blocks behind it), or is -1. */
static const uint8_t *map_dump(const char *path, size_t *len, int *fd)
{
    *fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0) *fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC); /* then the blocks stay till the end */
    if (*fd < 0) return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(*fd, &st) == 0 && st.st_size > 0) p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, *fd, 0);
    if (p == MAP_FAILED) {
        close(*fd);
        *fd = -1;
        return NULL;
    }
    madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
    *len = (size_t)st.st_size;
    return p;
}

static int by_id(const void *x, const void *y)
{
    uint64_t a = ((const uint64_t *)x)[0], b = ((const uint64_t *)y)[0];
    return (a > b) - (a < b);
}

/* Tells the reader which of its classes and threads are hprof's. */
static bool name_marked(struct jdr *r, struct marked *m)
{
    if (jdr_marker_element(r, 0) == 0) return false;
    uint64_t(*ids)[2] = calloc((size_t)m->ncls + 1, sizeof *ids); /* {dump ID, index} sorted */
    if (!ids) return false;
    for (uint32_t i = 0; i < m->ncls; i++) {
        ids[i][0] = jdr_marker_element(r, 1 + i);
        ids[i][1] = i;
    }
    qsort(ids, m->ncls, sizeof *ids, by_id);
    for (uint32_t k = 0; k < jdr_class_count(r); k++) {
        uint64_t key[2] = {jdr_class_id(r, k), 0};
        const uint64_t(*hit)[2] = bsearch(key, ids, m->ncls, sizeof *ids, by_id);
        if (hit) jdr_set_class(r, k, m->classes[(*hit)[1]], &m->orders[(*hit)[1]]);
    }
    free(ids);
    for (uint32_t i = 0; i < m->nthreads; i++)
        jdr_set_thread(r, jdr_marker_element(r, 1 + m->ncls + i), m->threads[i]->ti->object_id,
                       m->threads[i]->ti->serial);
    for (uint32_t i = 0; i < m->nhidden; i++)
        jdr_hide(r, jdr_marker_element(r, 1 + m->ncls + m->nthreads + m->nmonitors + i));
    return true;
}

/* Whether a class's signature ("Ljava/lang/String;", "[I") names what the JVM's dump
 * calls "java/lang/String", "[I". A hidden class's name has a '+' in the dump where
 * JVMTI has a '.'. */
static bool same_name(const char *sig, const char *name)
{
    if (!sig || !name) return false;
    bool plain = sig[0] == 'L';
    const char *p = sig + plain;
    for (; *name; p++, name++)
        if (*p != *name && !(*p == '.' && *name == '+')) return false;
    return plain ? p[0] == ';' && !p[1] : !*p;
}

static int by_ptr(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t) * (void *const *)x, b = (uintptr_t) * (void *const *)y;
    return (a > b) - (a < b);
}

/*
 * Classes the JVM loaded after the marker was made (the dump itself loads some, and a
 * program that makes class loaders in a loop many) are not in it: they are found by name
 * among the classes loaded now and not in the marker. Of several new classes of one name
 * (one a loader), each of the dump's is given a different one: which is which cannot be
 * told, and does not show, since reports name a class by its name and its fields are
 * laid out from the dump's own record; what matters is that every object is written
 * and no two classes share an ID.
 */
static void resolve_late(struct host *h, JNIEnv *jni, struct jdr *r, struct marked *m)
{
    uint32_t unset = 0;
    for (uint32_t k = 0; k < jdr_class_count(r); k++) unset += !jdr_class_is_set(r, k);
    jint n = 0;
    jclass *all = NULL;
    if (!unset || (*h->jvmti)->GetLoadedClasses(h->jvmti, &n, &all) != JVMTI_ERROR_NONE) return;
    struct class_info **known = malloc(((size_t)m->ncls + 1) * sizeof *known);
    struct class_info **fresh = calloc((size_t)n + 1, sizeof *fresh);
    m->late_orders = calloc((size_t)n + 1, sizeof *m->late_orders);
    if (known && fresh && m->late_orders && (*jni)->EnsureLocalCapacity(jni, n + 16) == 0) {
        memcpy(known, m->classes, (size_t)m->ncls * sizeof *known);
        qsort(known, m->ncls, sizeof *known, by_ptr);
        for (jint i = 0; i < n; i++) {
            struct class_info *ci = classes_of(&h->t.classes, h->jvmti, jni, all[i], &h->t.ids);
            if (bsearch(&ci, known, m->ncls, sizeof *known, by_ptr)) continue;
            field_order(h, jni, m, all[i], &m->late_orders[m->nlate]);
            fresh[m->nlate++] = ci;
        }
        for (uint32_t k = 0; k < jdr_class_count(r); k++) {
            if (jdr_class_is_set(r, k)) continue;
            for (uint32_t i = 0; i < m->nlate; i++)
                if (fresh[i] && same_name(fresh[i]->signature, jdr_class_name(r, k))) {
                    jdr_set_class(r, k, fresh[i], &m->late_orders[i]);
                    fresh[i] = NULL; /* given */
                    break;
                }
        }
    }
    for (jint i = 0; i < n; i++) (*jni)->DeleteLocalRef(jni, all[i]);
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)all);
    free(known);
    free(fresh);
}

/* The first of `need` object IDs for this dump: taken from the agent's counter when they
 * fit in it, else reused from where it stands (IDs are new at every dump). 0: too many. */
static uint32_t take_ids(struct host *h, uint64_t need)
{
    uint32_t at = atomic_load(&h->t.ids.next_object);
    if (need == 0 || (uint64_t)at + need >= 0xFFFFFF00ull) return 0;
    if ((uint64_t)at + 2 * need < 0xF0000000ull) return atomic_fetch_add(&h->t.ids.next_object, (uint32_t)need);
    return at;
}

/* Each thread's stack as the JVM wrote it, as hprof's trace (jdk_dump_stacks.h). */
static void thread_stacks(struct host *h, JNIEnv *jni, struct jdr *r, struct marked *m)
{
    uint64_t *ids = calloc((size_t)m->nthreads + 1, sizeof *ids);
    if (!ids) return;
    for (uint32_t i = 0; i < m->nthreads; i++) ids[i] = jdr_marker_element(r, 1 + m->ncls + i);
    jdk_dump_stacks(h, jni, r, ids, m->threads, m->nthreads);
    free(ids);
}

static bool convert(struct host *h, JNIEnv *jni, struct heap_sink *sink, struct marked *m, const uint8_t *data,
                    size_t len, int fd, double t0)
{
    const char *why = NULL;
    struct jdr *r = jdr_open(data, len, true, m->nonce, 1 + m->ncls + m->nthreads + m->nmonitors + m->nhidden, &why);
    if (!r) {
        log_warning("cannot read the JVM's own heap dump (%s); walking the heap instead", why ? why : "?");
        return false;
    }
    uint32_t base = 0;
    bool named = name_marked(r, m);
    if (named) resolve_late(h, jni, r, m);
    if (named) thread_stacks(h, jni, r, m);
    if (!named || !(base = take_ids(h, jdr_ids_needed(r)))) {
        jdr_close(r);
        return false;
    }
    heap_phase("read", t0);
    uint64_t *mons = calloc((size_t)m->nmonitors + 1, sizeof *mons);
    uint32_t nmons = 0;
    for (uint32_t i = 0; mons && i < m->nmonitors; i++)
        mons[nmons++] = jdr_marker_element(r, 1 + m->ncls + m->nthreads + i);

    jdr_discard_behind(r, fd);
    sink->open(sink);
    uint64_t left = jdr_write(r, sink->wr, sink->s, base, mons, nmons);
    sink->close(sink);
    heap_phase("end", t0);
    if (left && heap_times())
        fprintf(stderr, "heap dump: %llu objects of unknown classes left out\n", (unsigned long long)left);
    free(mons);
    jdr_close(r);
    return true;
}

bool jdk_dumper_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink)
{
    if (!wanted(h) || (*jni)->PushLocalFrame(jni, 16) != 0) return false;
    double t0 = clock_s();
    struct marked m;
    memset(&m, 0, sizeof m);
    char path[FD_PATH_MAX];
    if (!temp_path(h, path, sizeof path)) { /* no folder for the JVM's file: the heap is walked */
        heap_phase("jvm failed", t0);
        (*jni)->PopLocalFrame(jni, NULL);
        return false;
    }
    /* The file's name is a String in the dump: it and its characters are left out. */
    jstring file = (*jni)->NewStringUTF(jni, path);
    if (!file) (*jni)->ExceptionClear(jni); /* an OutOfMemoryError: the heap is walked instead */
    jobject hidden[2] = {file, file ? string_value(jni, file) : NULL};
    dump_heap_fn dump = native_dumper(h);
    bool done = false;
    struct dump_threads dt = {0};
    if (file && dump && dump_threads_take(h, jni, &dt) && make_marker(h, jni, &m, &dt, hidden, hidden[1] ? 2 : 1)) {
        dump_threads_drop_refs(jni, &dt); /* or the JVM's dump would show them as JNI local roots */
        heap_phase("marker", t0);
        if (!h->gc_at_exit) (*h->jvmti)->ForceGarbageCollection(h->jvmti); /* ZGC, Shenandoah: see the top */
        bool dumped = jvm_dump_heap(jni, dump, file);
        heap_phase(dumped ? "jvm dump" : "jvm failed", t0);
        size_t len = 0;
        int fd = -1;
        const uint8_t *data = dumped ? map_dump(path, &len, &fd) : NULL;
        temp_remove(path);
        done = data && convert(h, jni, sink, &m, data, len, fd, t0);
        /* Held till now: a class of the marker unloaded during the rewrite would give its
         * entry to a new class of its name, which could then be named twice in the dump. */
        (*jni)->DeleteGlobalRef(jni, m.marker);
        if (data) munmap((void *)data, len);
        if (fd >= 0) close(fd);
    }
    temp_remove(path); /* again: nothing was dumped when the marker could not be made */
    marked_free(&m);
    dump_threads_free(h, jni, &dt);
    (*jni)->PopLocalFrame(jni, NULL);
    return done;
}
