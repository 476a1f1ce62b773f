/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/native_frames.h"

#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "native/native_kallsyms.h"
#include "native/native_symbolize.h"
#include "sources/cpu/pseudo_frames.h"
#include "sources/cpu/signal_internal.h"
#include "sources/host.h"
#include "util/env.h"
#include "util/log.h"

/* Pseudo jmethodIDs: signal_sampler.c's are below 0x2800, native_threads.c's from 0x2800
 * to 0x4000; a function's from 0x10000 (the VM's are addresses, far above). */
#define STOP_ID(r) ((jmethodID)(uintptr_t)(0x2C00 + (r)*16))
#define FN_ID(i)   ((jmethodID)(uintptr_t)(0x10000 + (uintptr_t)(i)*16))
#define MAX_FNS    65536 /* functions with a frame of their own; then one per library */
#define MAX_LIBS   1024
#define MAX_PCS    (1u << 20) /* pcs remembered: the cache starts again past this */
#define REFRESH_MS 200
#define NAME_CAP   1024
#define NO_FN      UINT32_MAX

struct pc_slot {
    uintptr_t key; /* pc << 1 | caller; 0: free */
    jmethodID id;
};

struct fn_slot {
    uint64_t hash; /* 0: free */
    uint32_t fn;   /* index in names */
};

struct native_frames {
    struct host *h;
    struct native_space *space; /* the snapshot published last (this side's to read) */
    struct class_info *stopped, *unknown;
    struct {
        char *name;
        struct class_info *cls;
        jmethodID more; /* its functions past MAX_FNS */
    } libs[MAX_LIBS];
    int nlibs;
    struct pc_slot *pcs;
    size_t npcs, pcs_cap;
    struct fn_slot *fns;
    size_t fns_cap;
    char **names; /* "lib\0function" of each function, by index */
    uint32_t nfns;
    unsigned long long adds, subs; /* dl_iterate_phdr's, at the last snapshot */
    uint64_t stops_seen;           /* the natives' walks that ended on the unknown, then */
    uint32_t wants_seen;           /* the snapshot's asks for tables, at the last build */
    bool eager;                    /* HPROF_LAZY_TABLES=0: every table at start, as before */
    uint64_t start_ns, build_ns;   /* this thread's CPU: the first snapshot; tables later */
    size_t built;                  /* tables built later */
    uint64_t last_ms;
    struct ns_table kernel; /* kernel=y: /proc/kallsyms, read at the first kernel pc */
    int kernel_read;        /* 0: not yet, 1: read, -1: could not be */
};

static const char *const STOP_NAMES[NU_STOP_COUNT] = {
    [NU_STOP_DEPTH] = "depth",      [NU_STOP_END] = "end",           [NU_STOP_NO_MODULE] = "no_module",
    [NU_STOP_NO_ROW] = "no_row",    [NU_STOP_RULE] = "unknown_rule", [NU_STOP_UNREADABLE] = "unreadable",
    [NU_STOP_SP] = "stack_pointer", [NU_STOP_NO_STACK] = "no_stack", [NU_STOP_NO_TABLE] = "no_table",
};

/* ---- the snapshot ---- */

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int count_loads(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *ab = arg;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    ab[0] = info->dlpi_adds;
    ab[1] = info->dlpi_subs;
    return 1; /* every entry carries the same counters: one is enough */
}

/* The natives' walks that ended on a stack or code the snapshot does not know. */
static uint64_t unknown_stops(struct signal_sampler *s)
{
    return atomic_load(&s->native_stops[NU_STOP_NO_STACK]) + atomic_load(&s->native_stops[NU_STOP_NO_MODULE]);
}

/* Reads the map, builds a snapshot (taking over the tables of the modules it had) and
 * hands it to the handler. */
static void publish(struct native_frames *nf, struct signal_sampler *s)
{
    struct nm_maps maps;
    if (nm_maps_read_self(&maps) != 0) return;
    struct native_space *next = nsp_new(&maps, nf->space, !nf->eager);
    nm_maps_free(&maps);
    if (!next) return;
    np_publish(&s->space, next); /* frees the one before once no handler reads it */
    nf->space = next;
    nf->wants_seen = 0;
    /* A library unloaded and another loaded at its place: pcs are named again. */
    memset(nf->pcs, 0, nf->pcs_cap * sizeof *nf->pcs);
    nf->npcs = 0;
}

/* The JDK's own directory of libraries: libjvm's directory's parent ("lib/" above
 * "lib/server/"), its length in *n; NULL when libjvm is not mapped. */
static const char *jdk_lib_dir(const struct native_space *space, size_t *n)
{
    for (size_t i = 0; i < space->n; i++) {
        const struct nmod *m = &space->mods[i];
        if (strcmp(m->name, "libjvm.so") != 0 || m->name == m->path) continue;
        size_t len = (size_t)(m->name - m->path) - 1; /* the "/" before the name */
        while (len > 0 && m->path[len - 1] != '/') len--;
        *n = len;
        return len ? m->path : NULL;
    }
    return NULL;
}

/* The tables nearly every walk needs, wanted at once: the JDK's libraries mapped at
 * start (libjvm's: the JIT's and the GC's threads run in it, Java threads call it;
 * libjava's JNI glue every class definition passes; libjimage's reads of the boot
 * classes; the launcher's main thread), libc's (the bottom of every thread's stack), the
 * dynamic loader's (libjvm's thread-locals are looked up there) and the agent's own (its
 * threads are sampled too). Built at start rather than when walks ask, each such walk
 * being a sample stopped short (javac: 1-2% without the JDK's small libraries). */
static void warm_up(const struct native_space *space)
{
    const struct nmod *libc = nsp_module(space, (uintptr_t)&getpid);
    const struct nmod *own = nsp_module(space, (uintptr_t)&warm_up);
    size_t jn = 0;
    const char *jdk = jdk_lib_dir(space, &jn);
    for (size_t i = 0; i < space->n; i++) {
        const struct nmod *m = &space->mods[i];
        if (m == libc || m == own || (jdk && strncmp(m->path, jdk, jn) == 0) || strncmp(m->name, "ld-linux", 8) == 0)
            nsp_want(space, m);
    }
}

/* A new snapshot where the process's code or threads changed (native_frames.h). */
static void refresh_space(struct native_frames *nf, struct signal_sampler *s, uint64_t now_ms, bool new_threads)
{
    /* A library loaded or unloaded: at once (until then a Java thread's samples in it
     * end their native part there, as if it were Java code). One entry is read: cheap. */
    unsigned long long ab[2] = {0, 0};
    dl_iterate_phdr(count_loads, ab);
    bool loads = ab[0] != nf->adds || ab[1] != nf->subs;
    nf->adds = ab[0];
    nf->subs = ab[1];
    /* Walks ending on the unknown: at most every REFRESH_MS (a thread may stay unknown). */
    bool stops = false;
    if (now_ms - nf->last_ms >= REFRESH_MS) {
        nf->last_ms = now_ms;
        stops = unknown_stops(s) != nf->stops_seen;
    }
    if (!new_threads && !loads && !stops) return;
    publish(nf, s);
    nf->stops_seen = unknown_stops(s);
}

static void build_wanted(struct native_frames *nf);

void native_frames_refresh(struct native_frames *nf, struct signal_sampler *s, uint64_t now_ms, bool new_threads)
{
    refresh_space(nf, s, now_ms, new_threads);
    build_wanted(nf);
}

/* Unwind tables walks asked for (their samples say [native_walk_stopped].no_table), a
 * library's loaded since the last snapshot: built before this drain names the samples,
 * so later ones unwind through. Asked again while building (another library met
 * meanwhile): built too, a few rounds at most. */
static void build_wanted(struct native_frames *nf)
{
    for (int round = 0; round < 4 && nf->space; round++) {
        uint32_t wants = atomic_load(&nf->space->wants);
        if (wants == nf->wants_seen) break;
        nf->wants_seen = wants;
        uint64_t t0 = thread_cpu_ns();
        nf->built += nsp_build_wanted(nf->space);
        nf->build_ns += thread_cpu_ns() - t0;
    }
}

struct native_frames *native_frames_new(struct host *h, struct signal_sampler *s)
{
    struct native_frames *nf = calloc(1, sizeof *nf);
    if (!nf) return NULL;
    nf->h = h;
    nf->pcs_cap = 4096;
    nf->fns_cap = 4096;
    nf->pcs = calloc(nf->pcs_cap, sizeof *nf->pcs);
    nf->fns = calloc(nf->fns_cap, sizeof *nf->fns);
    nf->names = calloc(MAX_FNS, sizeof *nf->names);
    if (!nf->pcs || !nf->fns || !nf->names) {
        free(nf->pcs);
        free(nf->fns);
        free(nf->names);
        free(nf);
        return NULL;
    }
    nf->stopped = pseudo_class(h, "[native_walk_stopped]");
    for (int r = 0; nf->stopped && r < NU_STOP_COUNT; r++) pseudo_method(h, nf->stopped, STOP_ID(r), STOP_NAMES[r]);
    np_init(&s->space, nsp_free);
    dl_iterate_phdr(count_loads, &nf->adds); /* adds, subs: two words in a row */
    nf->eager = !env_switch("HPROF_LAZY_TABLES", true);
    uint64_t t0 = thread_cpu_ns();
    publish(nf, s);
    /* warm_up's tables before the first signal: nearly every thread's walk starts or
     * passes there (the JIT's and GC's threads, a Java thread in the VM), so built later
     * they would leave the run's first moments without native frames (3-5% of javac's
     * samples). The other libraries wait for a walk to need them. */
    if (nf->space) warm_up(nf->space);
    build_wanted(nf);
    nf->start_ns = thread_cpu_ns() - t0;
    if (!nf->space) log_warning("cpu=samples: the process's native code cannot be read; no native frames");
    return nf;
}

/* ---- the frames ---- */

static uint64_t hash_name(const char *lib, const char *fn)
{
    uint64_t x = 1469598103934665603ull;
    for (const char *p = lib; *p; p++) x = (x ^ (unsigned char)*p) * 1099511628211ull;
    x = (x ^ 0xff) * 1099511628211ull;
    for (const char *p = fn; *p; p++) x = (x ^ (unsigned char)*p) * 1099511628211ull;
    return x ? x : 1;
}

/* The library's class (its own for "", when no module held the pc). */
static int lib_of(struct native_frames *nf, const char *lib)
{
    for (int i = 0; i < nf->nlibs; i++)
        if (strcmp(nf->libs[i].name, lib) == 0) return i;
    if (nf->nlibs == MAX_LIBS) return -1;
    struct class_info *c = pseudo_library(nf->h, *lib ? lib : "[generated code]");
    char *name = strdup(lib);
    if (!c || !name) {
        free(name);
        return -1;
    }
    int i = nf->nlibs++;
    nf->libs[i].name = name;
    nf->libs[i].cls = c;
    return i;
}

/* Doubles the functions' table. */
static bool fns_grow(struct native_frames *nf)
{
    size_t cap = nf->fns_cap * 2;
    struct fn_slot *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < nf->fns_cap; i++) {
        if (!nf->fns[i].hash) continue;
        size_t j = nf->fns[i].hash & (cap - 1);
        while (t[j].hash) j = (j + 1) & (cap - 1);
        t[j] = nf->fns[i];
    }
    free(nf->fns);
    nf->fns = t;
    nf->fns_cap = cap;
    return true;
}

/* The function called fn in lib: its frame, made on first sight. */
static jmethodID function_id(struct native_frames *nf, const char *lib, const char *fn)
{
    int l = lib_of(nf, lib);
    if (l < 0) return NULL;
    uint64_t hash = hash_name(lib, fn);
    size_t j = hash & (nf->fns_cap - 1);
    for (; nf->fns[j].hash; j = (j + 1) & (nf->fns_cap - 1)) {
        const char *have = nf->names[nf->fns[j].fn];
        if (nf->fns[j].hash == hash && strcmp(have, lib) == 0 && strcmp(have + strlen(have) + 1, fn) == 0)
            return FN_ID(nf->fns[j].fn);
    }
    if (nf->nfns == MAX_FNS || (nf->nfns + 1) * 4 > nf->fns_cap * 3) {
        if (nf->nfns == MAX_FNS || !fns_grow(nf)) {
            /* No room: one frame for the rest of the library's functions. */
            if (!nf->libs[l].more && pseudo_native_method(nf->h, nf->libs[l].cls, FN_ID(MAX_FNS + l), "<more>") == 0)
                nf->libs[l].more = FN_ID(MAX_FNS + l);
            return nf->libs[l].more;
        }
        return function_id(nf, lib, fn);
    }
    size_t ll = strlen(lib), lf = strlen(fn);
    char *both = malloc(ll + lf + 2);
    if (!both) return NULL;
    memcpy(both, lib, ll + 1);
    memcpy(both + ll + 1, fn, lf + 1);
    uint32_t i = nf->nfns;
    if (pseudo_native_method(nf->h, nf->libs[l].cls, FN_ID(i), fn) != 0) {
        free(both);
        return NULL;
    }
    nf->names[i] = both;
    nf->nfns++;
    nf->fns[j] = (struct fn_slot){hash, i};
    return FN_ID(i);
}

static bool pcs_grow(struct native_frames *nf)
{
    size_t cap = nf->pcs_cap * 2;
    if (cap > MAX_PCS) { /* start again: pcs are named again as they come */
        memset(nf->pcs, 0, nf->pcs_cap * sizeof *nf->pcs);
        nf->npcs = 0;
        return true;
    }
    struct pc_slot *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < nf->pcs_cap; i++) {
        if (!nf->pcs[i].key) continue;
        size_t j = (nf->pcs[i].key * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
        while (t[j].key) j = (j + 1) & (cap - 1);
        t[j] = nf->pcs[i];
    }
    free(nf->pcs);
    nf->pcs = t;
    nf->pcs_cap = cap;
    return true;
}

/* A kernel pc's function, in name (kernel=y): by /proc/kallsyms, read the first time
 * (a few MB, tens of ms, on this thread); "unknown" where no symbol covers it (the
 * kernel hides its addresses: kptr_restrict). */
static void kernel_name(struct native_frames *nf, uintptr_t pc, bool caller, char *name, size_t cap)
{
    if (!nf->kernel_read) {
        nf->kernel_read = nk_read(&nf->kernel) == 0 && nf->kernel.n ? 1 : -1;
        if (nf->kernel_read < 0)
            log_warning("kernel=y: /proc/kallsyms gives no kernel symbols here (kernel.kptr_restrict?): kernel "
                        "frames are [kernel].unknown");
    }
    uint64_t off;
    const struct ns_sym *sym = ns_lookup(&nf->kernel, caller ? pc - 1 : pc, &off);
    snprintf(name, cap, "%s", sym ? ns_name(&nf->kernel, sym) : "unknown");
}

/* The frame of a native pc (caller: a return address; kernel: the kernel's), looked up
 * once per pc (a kernel pc's key cannot be a user pc's: those are below 2^47). */
static jmethodID pc_id(struct native_frames *nf, uintptr_t pc, bool caller, bool kernel)
{
    uintptr_t key = pc << 1 | caller;
    if (!key || !nf->space) return NULL;
    if ((nf->npcs + 1) * 4 > nf->pcs_cap * 3 && !pcs_grow(nf)) return NULL;
    size_t j = (key * 0x9E3779B97F4A7C15ull >> 20) & (nf->pcs_cap - 1);
    for (; nf->pcs[j].key; j = (j + 1) & (nf->pcs_cap - 1))
        if (nf->pcs[j].key == key) return nf->pcs[j].id;
    char name[NAME_CAP];
    const char *lib = "";
    /* "lib+0x1a2b" where no symbol covers pc; in no library (a JVM stub at the top of a
     * thread that is not a Java thread, signal_handler.c's stub_step): [generated code].stub */
    if (kernel) {
        lib = "[kernel]";
        kernel_name(nf, pc, caller, name, sizeof name);
    } else if (!nsz_name(nf->space, pc, caller, 0, name, sizeof name, &lib) && !*lib) {
        snprintf(name, sizeof name, "stub");
    }
    jmethodID id = function_id(nf, lib, name);
    if (id) {
        nf->pcs[j] = (struct pc_slot){key, id};
        nf->npcs++;
    }
    return id;
}

void native_frames_report(const struct native_frames *nf)
{
    log_plain("cpu=samples: native code read at start in %.1f ms of CPU (%zu libraries, tables %s); %zu tables "
              "built later in %.1f ms\n",
              (double)nf->start_ns / 1e6, nf->space ? nf->space->n : 0, nf->eager ? "all built" : "on first need",
              nf->built, (double)nf->build_ns / 1e6);
}

int native_frames_count(const struct sample_frame *in, int n)
{
    int i = 0;
    while (
        i < n &&
        (in[i].location == FRAME_NATIVE_PC || in[i].location == FRAME_NATIVE_STOP || in[i].location == FRAME_KERNEL_PC))
        i++;
    return i;
}

int native_frames_convert(struct native_frames *nf, const struct sample_frame *in, int n, jvmtiFrameInfo *out, int max)
{
    int k = 0;
    for (int i = 0; i < n && k < max; i++) {
        jmethodID id;
        if (in[i].location == FRAME_NATIVE_PC || in[i].location == FRAME_KERNEL_PC) {
            id = pc_id(nf, (uintptr_t)in[i].method, i > 0 && in[i - 1].location == in[i].location,
                       in[i].location == FRAME_KERNEL_PC);
        } else if (in[i].location == FRAME_NATIVE_STOP) {
            uintptr_t r = (uintptr_t)in[i].method;
            id = nf->stopped && r < NU_STOP_COUNT ? STOP_ID(r) : NULL;
        } else {
            continue; /* a Java frame: not this function's */
        }
        if (id) out[k++] = (jvmtiFrameInfo){id, -1};
    }
    return k;
}
