/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nativewalk: what the native unwinder costs in the signal handler, and what preparing
 * its tables costs on the agent's thread (bench/native-walk.sh builds and runs it).
 *
 *   nativewalk LIBCHAIN [LIBJVM] [SAMPLES]
 *
 * Spins in libnative_chain.so's inner function (built without frame pointers, so every
 * frame of it is unwound by .eh_frame) under a 1 ms ITIMER_PROF; each SIGPROF walks the
 * stack REPEAT times between two CLOCK_MONOTONIC reads (clock_gettime is
 * async-signal-safe) and adds up the time and the frames. Prints ns per walk (one
 * sample) and ns per frame, then the time to build the process's tables (maps, ELF
 * files, CFI compiled) and to compile LIBJVM's .eh_frame and read its symbols.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

#include "native/native_cfi.h"
#include "native/native_elf.h"
#include "native/native_modules.h"
#include "native/native_publish.h"
#include "native/native_unwind.h"

#define REPEAT 100
#define DEPTH  64

static struct native_publish pub;
static volatile int *inside, *stop;
static volatile long samples, frames, walks, max_samples;
static volatile int64_t ns;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Async-signal-safe: clock_gettime, the walk (no allocation, no lock), plain stores. */
static void on_prof(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    if (!*inside) return;
    const ucontext_t *uc = ctx;
    struct nu_regs r = {(uintptr_t)uc->uc_mcontext.gregs[REG_RIP], (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
                        (uintptr_t)uc->uc_mcontext.gregs[REG_RBP]};
    uintptr_t pcs[DEPTH];
    struct nu_result out = {0};
    struct np_reader rd;
    const struct native_space *s = np_enter(&pub, &rd);
    int64_t t0 = now_ns();
    for (int i = 0; s && i < REPEAT; i++) nu_walk(s, &r, pcs, DEPTH, &out);
    ns += now_ns() - t0;
    np_leave(&pub, &rd);
    frames += (long)out.n * REPEAT;
    walks += REPEAT;
    if (++samples >= max_samples) *stop = 1;
}

static double seconds_since(int64_t t0) { return (double)(now_ns() - t0) / 1e9; }

static void jvm_costs(const char *path)
{
    int64_t t0 = now_ns();
    struct ne_file f;
    if (ne_open(path, &f) != 0) return;
    struct nc_table t;
    nc_compile(f.data + f.eh_frame.off, f.eh_frame.size, f.eh_frame.vaddr, 0, &t);
    double cfi = seconds_since(t0);
    t0 = now_ns();
    struct ns_table syms;
    ns_init(&syms);
    ne_symbols(&f, &syms);
    ns_finish(&syms);
    printf("libjvm: .eh_frame compiled in %.1f ms (%zu rows, %zu KiB); %zu symbols read in %.1f ms\n", cfi * 1e3, t.n,
           t.n * sizeof *t.rows / 1024, syms.n, seconds_since(t0) * 1e3);
    nc_free(&t);
    ns_free(&syms);
    ne_close(&f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nativewalk LIBCHAIN [LIBJVM] [SAMPLES]\n");
        return 2;
    }
    max_samples = argc > 3 ? atol(argv[3]) : 2000;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "nativewalk: %s\n", dlerror());
        return 1;
    }
    inside = dlsym(h, "native_chain_inside");
    stop = dlsym(h, "native_chain_stop");
    uint64_t (*outer)(uint64_t);
    *(void **)&outer = dlsym(h, "native_chain_outer");
    int64_t t0 = now_ns();
    struct nm_maps maps;
    nm_maps_read_self(&maps);
    struct native_space *s = nsp_new(&maps, NULL, false);
    printf("tables of this process: %zu modules built in %.1f ms\n", s->n, seconds_since(t0) * 1e3);
    np_init(&pub, nsp_free);
    np_publish(&pub, s);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval on = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &on, NULL);
    outer(1);
    setitimer(ITIMER_PROF, &off, NULL);
    printf("handler walk: %ld samples, %.1f frames a walk, %.0f ns a walk, %.1f ns a frame\n", samples,
           (double)frames / (double)walks, (double)ns / (double)walks, (double)ns / (double)frames);
    if (argc > 2) jvm_costs(argv[2]);
    np_destroy(&pub);
    return 0;
}
