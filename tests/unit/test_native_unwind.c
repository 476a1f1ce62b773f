/* SPDX-License-Identifier: Apache-2.0 */
/* The native unwinder from a real SIGPROF handler: a library of the test's own
 * (libnative_chain.so, built without frame pointers, loaded by dlopen as a JNI library
 * is) spins in native_chain_inner, called by middle, by outer, by this file's
 * spin_chain; each sample's walk must name inner, middle, outer, spin_chain in that
 * order, through .eh_frame. The same walk with the library's table emptied (frame
 * pointers only) must not: the check fails without the DWARF unwinder. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "native/native_cfi.h"
#include "native/native_demangle.h"
#include "native/native_maps.h"
#include "native/native_modules.h"
#include "native/native_publish.h"
#include "native/native_symbolize.h"
#include "native/native_unwind.h"
#include "unit.h"

#define SAMPLES 300
#define DEPTH   32

static uintptr_t pcs[SAMPLES][DEPTH];
static struct nu_result results[SAMPLES];
static atomic_int nsamples, walked;
static struct native_publish pub;
static volatile int *chain_inside, *chain_stop;
static uint64_t (*chain_outer)(uint64_t);

/* Async-signal-safe: atomics and the walk (no allocation, no lock, no call but the
 * tables' binary searches); samples go to arrays allocated before the timer starts. */
static void on_prof(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    if (!*chain_inside) return;
    int i = atomic_fetch_add(&nsamples, 1);
    if (i >= SAMPLES) {
        *chain_stop = 1;
        return;
    }
    const ucontext_t *uc = ctx;
    struct nu_regs r = {(uintptr_t)uc->uc_mcontext.gregs[REG_RIP], (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
                        (uintptr_t)uc->uc_mcontext.gregs[REG_RBP]};
    struct np_reader rd;
    const struct native_space *s = np_enter(&pub, &rd);
    if (s) nu_walk(s, &r, pcs[i], DEPTH, &results[i]);
    np_leave(&pub, &rd);
    atomic_fetch_add(&walked, 1);
}

/* Ends a run that gets no signals (no CPU time counted), instead of hanging. */
static void *watchdog(void *arg)
{
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    for (int i = 0; i < 300 && !*chain_stop; i++) usleep(100000);
    *chain_stop = 1;
    return NULL;
}

__attribute__((noinline)) static uint64_t spin_chain(uint64_t n)
{
    uint64_t r = chain_outer(n);
    __asm__ volatile("" ::: "memory");
    return r + 1;
}

/* Samples the spinning chain with the tables of space (NULL: those published already);
 * returns the samples taken. */
static int sample_chain(struct native_space *space)
{
    atomic_store(&nsamples, 0);
    atomic_store(&walked, 0);
    memset(results, 0, sizeof results);
    *chain_stop = 0;
    if (space) np_publish(&pub, space);
    pthread_t w;
    pthread_create(&w, NULL, watchdog, NULL);
    struct itimerval on = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &on, NULL);
    spin_chain(3);
    setitimer(ITIMER_PROF, &off, NULL);
    pthread_join(w, NULL);
    int n = atomic_load(&walked);
    return n < SAMPLES ? n : SAMPLES;
}

/* How many samples name the chain in order; how many did so without frame pointers. */
static int count_chains(struct native_space *s, int n, int *dwarf_only, int *shown)
{
    static const char *const want[4] = {"native_chain_inner", "native_chain_middle", "native_chain_outer",
                                        "spin_chain"};
    int good = 0;
    *dwarf_only = 0;
    for (int i = 0; i < n; i++) {
        int ok = results[i].n >= 4;
        char name[256];
        const char *lib;
        for (int f = 0; ok && f < 4; f++) {
            nsz_name(s, pcs[i][f], f > 0, 0, name, sizeof name, &lib);
            ok = strcmp(name, want[f]) == 0;
            if (!ok && (*shown)++ < 3)
                printf("# sample %d frame %d: %s in %s (walk stopped: %s, %d frames)\n", i, f, name, lib,
                       nu_stop_name(results[i].stop), results[i].n);
        }
        good += ok;
        if (ok && !(results[i].flags & NU_FLAG_FP)) ++*dwarf_only;
    }
    return good;
}

static void load_chain(void)
{
    char exe[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(path, sizeof path, "%s/libnative_chain.so", exe);
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        printf("not ok - unwind: dlopen %s: %s\n", path, dlerror());
        exit(1);
    }
    chain_inside = dlsym(h, "native_chain_inside");
    chain_stop = dlsym(h, "native_chain_stop");
    *(void **)&chain_outer = dlsym(h, "native_chain_outer");
}

static struct native_space *new_space_after(struct native_space *prev)
{
    struct nm_maps maps;
    if (nm_maps_read_self(&maps) != 0) return NULL;
    return nsp_new(&maps, prev, false);
}

static struct native_space *new_space(void) { return new_space_after(NULL); }

static const struct nmod *module_named(const struct native_space *s, const char *part)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strstr(s->mods[i].name, part)) return &s->mods[i];
    return NULL;
}

/* The tables before the library is loaded, and after: the new snapshot has the library
 * and takes over the others' tables; the old one, published first, is freed by the
 * second publication and leaves them alone (the sampling below reads them). */
static struct native_space *space_across_dlopen(void)
{
    struct native_space *before = new_space();
    CHECK(before && !module_named(before, "libnative_chain") && module_named(before, "libc"),
          "modules: before the dlopen, libc and no chain library");
    const struct nmod *libc_before = module_named(before, "libc");
    const struct nc_table *libc_rows = libc_before ? libc_before->cfi : NULL;
    np_publish(&pub, before);
    load_chain();
    struct native_space *after = new_space_after(before);
    const struct nmod *chain = module_named(after, "libnative_chain"), *libc = module_named(after, "libc");
    CHECK(chain && chain->cfi->n > 0, "modules: after the dlopen, the chain library with its rows (%zu)",
          chain ? chain->cfi->n : 0);
    CHECK(libc && libc->cfi == libc_rows && libc->owns && !libc_before->owns,
          "modules: libc's rows taken over, not compiled again");
    return after;
}

/* The same process's tables with the chain library's unwind rows taken away. */
static struct native_space *space_without_cfi(void)
{
    struct native_space *s = new_space();
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp(s->mods[i].name, "libnative_chain.so") == 0) s->mods[i].cfi->n = 0;
    return s;
}

/* Lazy tables: no table until a walk needs one; the walks that meet the chain library
 * first stop there and ask for it; built, the same snapshot's walks go through. */
static void test_lazy(void)
{
    struct nm_maps maps;
    struct native_space *lazy = nm_maps_read_self(&maps) == 0 ? nsp_new(&maps, NULL, true) : NULL;
    const struct nmod *chain = module_named(lazy, "libnative_chain");
    size_t tables = 0;
    for (size_t i = 0; lazy && i < lazy->n; i++) tables += atomic_load(&lazy->mods[i].cfi) != NULL;
    CHECK(chain && !atomic_load(&chain->cfi) && tables == 0, "lazy: no table before a walk needs one (%zu)", tables);
    int n = sample_chain(lazy), stopped = 0;
    for (int i = 0; i < n; i++) stopped += results[i].stop == NU_STOP_NO_TABLE && results[i].n == 1;
    CHECK(n > 0 && stopped == n && chain && atomic_load(&chain->wanted) && atomic_load(&lazy->wants) >= (uint32_t)n,
          "lazy: every walk stopped at the library for want of its table, and asked for it (%d of %d)", stopped, n);
    size_t built = lazy ? nsp_build_wanted(lazy) : 0;
    const struct nc_table *t = chain ? atomic_load(&chain->cfi) : NULL;
    CHECK(built == 1 && t && t->n > 0, "lazy: the one table wanted built (%zu built, %zu rows)", built, t ? t->n : 0);
    n = sample_chain(NULL);
    int dwarf = 0, shown = 0, good = count_chains(lazy, n, &dwarf, &shown);
    CHECK(n > 0 && good * 10 >= n * 9, "lazy: then inner, middle, outer, spin_chain in %d of %d samples", good, n);
}

int main(void)
{
    np_init(&pub, nsp_free);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);

    struct native_space *s = space_across_dlopen();
    CHECK(s && s->n > 0, "unwind: the process's modules (%zu)", s ? s->n : 0);
    int n = sample_chain(s), dwarf = 0, shown = 0; /* publishes s: frees the one before */
    CHECK(n >= 50, "unwind: samples taken in the chain (%d)", n);
    int good = count_chains(s, n, &dwarf, &shown);
    CHECK(n > 0 && good * 10 >= n * 9, "unwind: inner, middle, outer, spin_chain in %d of %d samples (>= 90%%)", good,
          n);
    CHECK(good > 0 && dwarf * 10 >= good * 9, "unwind: %d of those %d without the frame-pointer chain", dwarf, good);

    struct native_space *bare = space_without_cfi();
    n = sample_chain(bare); /* publishing frees s once no handler holds it */
    shown = 3;
    good = count_chains(bare, n, &dwarf, &shown);
    CHECK(n > 0 && good * 10 < n, "unwind: without the library's table, the chain in %d of %d samples (< 10%%)", good,
          n);
    test_lazy();
    np_destroy(&pub);
    return UNIT_DONE();
}
