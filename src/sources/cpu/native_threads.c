/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/native_threads.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/cpu/native_frames.h"
#include "sources/cpu/pseudo_frames.h"
#include "sources/cpu/signal_internal.h"
#include "sources/cpu/signal_timers.h"
#include "sources/host.h"

#define MAX_NAMES 256 /* distinct thread names with a frame of their own */
#define COMM_LEN  16  /* the kernel's names: 15 characters and a NUL */
#define NAME_LEN  32  /* a name as HotSpot gives it (CUT_NAMES), and a NUL */
/* Pseudo jmethodIDs (signal_sampler.c has those below 0x2800). */
#define KIND_ID(k) ((jmethodID)(uintptr_t)(0x2800 + (k)*16))
#define NAME_ID(i) ((jmethodID)(uintptr_t)(0x3000 + (i)*16))

enum native_kind { KIND_JIT = 0, KIND_GC, KIND_VM, KIND_HPROF, KIND_OTHER, KIND_COUNT };

static const char *const KIND_CLASSES[KIND_COUNT] = {"[JIT compiler]", "[GC]", "[VM]", "[hprof]", "[other native]"};

/* Names as HotSpot (and the agent) give their threads, by prefix. */
static const struct {
    const char *prefix;
    enum native_kind kind;
} KINDS[] = {
    {"C2 CompilerThre", KIND_JIT}, {"C1 CompilerThre", KIND_JIT},
    {"JVMCI", KIND_JIT},           {"Sweeper thread", KIND_JIT},
    {"GC Thread", KIND_GC},        {"G1 ", KIND_GC},
    {"ZWorker", KIND_GC},          {"ZDriver", KIND_GC},
    {"ZDirector", KIND_GC},        {"ZStat", KIND_GC},
    {"ZUncommit", KIND_GC},        {"ZUnmapper", KIND_GC},
    {"Shenandoah", KIND_GC},       {"Shen", KIND_GC},
    {"StrDedup", KIND_GC},         {"VM ", KIND_VM},
    {"Service Thread", KIND_VM},   {"Monitor Deflati", KIND_VM},
    {"Notification Th", KIND_VM},  {"Attach Listener", KIND_VM},
    {"Signal Dispatch", KIND_VM},  {"HPROF", KIND_HPROF},
};

/* The names HotSpot gives its threads that the kernel cuts to 15 characters (seen on
 * JDK 17 and 25 with each collector), without their numbers. HotSpot keeps the whole
 * name where no safe read reaches it from a thread id: a GC worker's (NamedThread::_name
 * in vmStructs) hangs off a Thread* that nothing exported maps a tid to, and a compiler
 * thread's is a String in its java.lang.Thread, in the heap. A cut name not listed (a
 * native thread of the program's own) stays as the kernel has it. */
static const struct {
    const char *cut, *whole;
} CUT_NAMES[] = {
    {"C1 CompilerThre", "C1 CompilerThread"},
    {"C2 CompilerThre", "C2 CompilerThread"},
    {"Monitor Deflati", "Monitor Deflation Thread"},
    {"Notification Th", "Notification Thread"},
    {"Signal Dispatch", "Signal Dispatcher"},
    {"Reference Handl", "Reference Handler"},
    {"VM Periodic Tas", "VM Periodic Task Thread"},
    {"Shenandoah Cont", "Shenandoah Control Thread"},
    {"Shenandoah GC T", "Shenandoah GC Threads#"},
    {"Shenandoah Unco", "Shenandoah Uncommit Thread"},
    /* the agent's own (host_start_thread's names) */
    {"HPROF cpu sampl", "HPROF cpu sampling thread"},
    {"HPROF rotation ", "HPROF rotation thread"},
    {"HPROF listener ", "HPROF listener thread"},
    {"HPROF timeline ", "HPROF timeline thread"},
    {"HPROF class swe", "HPROF class sweeper"},
    {"HPROF method ti", "HPROF method timer"},
};

struct native_threads {
    struct host *h;
    struct class_info *kinds[KIND_COUNT];
    uint32_t generation; /* of the last rescan */
    int nnames;
    struct {
        char name[NAME_LEN];
        unsigned char kind;
        jmethodID id;
    } names[MAX_NAMES];
};

struct native_threads *native_threads_new(struct host *h)
{
    struct native_threads *nt = calloc(1, sizeof *nt);
    if (!nt) return NULL;
    nt->h = h;
    for (int k = 0; k < KIND_COUNT; k++) {
        nt->kinds[k] = pseudo_class(h, KIND_CLASSES[k]);
        /* The frame of a thread whose name found no room. */
        if (nt->kinds[k]) pseudo_method(h, nt->kinds[k], KIND_ID(k), "threads");
    }
    return nt;
}

/* ---- the threads ---- */

static enum native_kind kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (strncmp(name, KINDS[i].prefix, strlen(KINDS[i].prefix)) == 0) return KINDS[i].kind;
    return KIND_OTHER;
}

/* The thread's name (comm, or HotSpot's whole name where the kernel cut it: CUT_NAMES),
 * without the number HotSpot puts at the end of a worker's: one frame for "GC Thread#0"
 * ... "GC Thread#7". name has NAME_LEN bytes; false when the thread has gone. */
static bool name_of(int32_t tid, char *name)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, name, COMM_LEN - 1);
    close(fd);
    if (n <= 0) return false;
    name[n] = '\0';
    if (n > 0 && name[n - 1] == '\n') name[--n] = '\0';
    for (size_t i = 0; n == COMM_LEN - 1 && i < sizeof CUT_NAMES / sizeof CUT_NAMES[0]; i++)
        if (strcmp(name, CUT_NAMES[i].cut) == 0) {
            n = snprintf(name, NAME_LEN, "%s", CUT_NAMES[i].whole);
            break;
        }
    while (n > 0 && isdigit((unsigned char)name[n - 1])) name[--n] = '\0';
    if (n == 0) snprintf(name, NAME_LEN, "thread");
    return true;
}

/* The number of a name's frame (interned on the sampling thread, which alone reads it). */
static uint32_t intern(struct native_threads *nt, const char *name, enum native_kind kind)
{
    for (int i = 0; i < nt->nnames; i++)
        if (nt->names[i].kind == kind && strcmp(nt->names[i].name, name) == 0) return (uint32_t)i;
    if (nt->nnames == MAX_NAMES || !nt->kinds[kind] || pseudo_method(nt->h, nt->kinds[kind], NAME_ID(nt->nnames), name))
        return MAX_NAMES + (uint32_t)kind; /* the kind's own frame */
    int i = nt->nnames++;
    snprintf(nt->names[i].name, NAME_LEN, "%s", name);
    nt->names[i].kind = (unsigned char)kind;
    nt->names[i].id = NAME_ID(i);
    return (uint32_t)i;
}

/* A thread not seen before: its record, its name's frame, its timer. 1 adopted, else 0. */
static int adopt(struct native_threads *nt, struct signal_sampler *s, int32_t tid)
{
    char name[NAME_LEN];
    if (!name_of(tid, name)) return 0;
    struct sig_thread *t = (struct sig_thread *)tid_map_add(&s->natives, tid);
    if (!t) return 0; /* the map is full: the thread goes unsampled */
    t->name_id = intern(nt, name, kind_of(name));
    t->seen = nt->generation;
    tid_map_publish(&t->e);
    /* With the process's timer (no timer per thread here) its signals find the record. */
    if (!atomic_load(&s->process_timer)) sample_timer_start(s, t, &s->natives);
    return 1;
}

int native_threads_rescan(struct native_threads *nt, struct signal_sampler *s)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int adopted = 0;
    uint32_t gen = ++nt->generation;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0 || tid > INT32_MAX) continue;
        /* A Java thread: its own timer counts its CPU. */
        if (tid_map_find(&s->threads, (int32_t)tid)) continue;
        struct sig_thread *t = (struct sig_thread *)tid_map_find(&s->natives, (int32_t)tid);
        if (t)
            t->seen = gen;
        else
            adopted += adopt(nt, s, (int32_t)tid);
    }
    closedir(d);
    /* Gone, or a Java thread now (its start came after the last rescan saw it). */
    for (size_t i = 0; i < tid_map_capacity(&s->natives); i++) {
        struct sig_thread *t = (struct sig_thread *)tid_map_at(&s->natives, i);
        if (atomic_load(&t->e.live) && atomic_load(&t->e.tid) > 0 && t->seen != gen) {
            sample_timer_stop(s, t);
            tid_map_remove(&s->natives, &t->e);
        }
    }
    return adopted;
}

void native_threads_stop(struct signal_sampler *s)
{
    for (size_t i = 0; i < tid_map_capacity(&s->natives); i++)
        sample_timer_stop(s, (struct sig_thread *)tid_map_at(&s->natives, i));
}

/* ---- the frames ---- */

int native_threads_start_up(struct native_threads *nt, jvmtiFrameInfo *f)
{
    uint32_t id = intern(nt, "JVM start-up", KIND_VM);
    f[0] = (jvmtiFrameInfo){id < (uint32_t)nt->nnames ? nt->names[id].id : KIND_ID(KIND_VM), -1};
    return 1;
}

int native_threads_frames(struct native_threads *nt, struct native_frames *nf, const struct sample *smp,
                          jvmtiFrameInfo *f, int depth)
{
    int n = nf && depth > 1 ? native_frames_convert(nf, smp->frames, smp->nframes, f, depth - 1) : 0;
    uint32_t id = smp->thread;
    jmethodID who = id < (uint32_t)nt->nnames            ? nt->names[id].id
        : id >= MAX_NAMES && id < MAX_NAMES + KIND_COUNT ? KIND_ID(id - MAX_NAMES)
                                                         : KIND_ID(KIND_OTHER);
    f[n++] = (jvmtiFrameInfo){who, -1};
    return n;
}
