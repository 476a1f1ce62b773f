/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Everything here that runs in a signal handler is async-signal-safe, step by step:
 *   - errno is saved and restored around the handler;
 *   - host_get() reads a pointer set once before any handler was installed;
 *   - gettid() and getpid() are plain system calls;
 *   - the map lookup, the ring's claim and publish, and every flag are C11 atomics on
 *     lock-free words (the ring checks that at init): no lock, no allocation;
 *   - sigsetjmp/siglongjmp leave the walk from the guard's handler; the mask saved by
 *     sigsetjmp is restored, so SIGSEGV is not left blocked;
 *   - AsyncGetCallTrace is HotSpot's entry for exactly this use (a profiler's signal
 *     handler): it allocates nothing and takes no lock; it needs the thread's JNIEnv,
 *     which the record holds (no JNI call is made to get it);
 *   - walk_recover (a refused walk tried again from a caller's frame) reads only the
 *     thread's own stack and the code cache, and copies the context on this stack;
 *   - the previous handler is called as the kernel would have called it;
 *   - a thread that is not a Java thread is found in a map of its own, filled by the
 *     sampling thread (native_threads.c), and only its pc is taken.
 */
#include "sources/cpu/signal_handler.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/cpu/signal_internal.h"
#include "sources/cpu/walk_recover.h"

/* AsyncGetCallTrace writes straight into the ring's slot: the two shapes must agree. */
_Static_assert(sizeof(struct agct_frame) == sizeof(struct sample_frame), "frame size");
_Static_assert(offsetof(struct agct_frame, method) == offsetof(struct sample_frame, method), "frame layout");

static struct signal_sampler *sampler(void)
{
    struct host *h = host_get();
    return h ? host_state(h, SOURCE_SIGNAL_SAMPLER) : NULL;
}

/* Calls a previous handler as the kernel would have. SIG_DFL and SIG_IGN: nothing (for
 * SIGPROF the default would end the process; see sample_signal_install). */
static void pass_on(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
}

/* Ours: a timer of ours (SI_TIMER) or the wall clock's signal (SI_QUEUE from this
 * process), both carrying the sampler's address; or the process timer when it is the one
 * used (setitimer's signals say SI_KERNEL and carry nothing). */
static bool is_ours(const struct signal_sampler *s, const siginfo_t *si)
{
    if (si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)&s->natives) return true;
    if ((si->si_code == SI_TIMER || si->si_code == SI_QUEUE) && si->si_value.sival_ptr == (void *)s)
        return si->si_code == SI_TIMER || si->si_pid == s->pid;
    return atomic_load_explicit(&s->process_timer, memory_order_relaxed) && si->si_code == SI_KERNEL;
}

/* The walk, guarded when the guard is installed: a fault inside lands back here, and
 * *faulted says so. */
static int walk(struct signal_sampler *s, struct sig_thread *t, struct sample *smp, void *uc, bool *faulted)
{
    struct agct_trace tr = {t->env, 0, (struct agct_frame *)smp->frames};
    sigjmp_buf out;
    *faulted = false;
    if (s->guarded) {
        if (sigsetjmp(out, 1)) {
            atomic_store_explicit(&t->walk, NULL, memory_order_relaxed);
            atomic_fetch_sub(&s->walking, 1);
            *faulted = true;
            return 0;
        }
        atomic_fetch_add(&s->walking, 1);
        atomic_store_explicit(&t->walk, &out, memory_order_release);
    }
    int depth = atomic_load_explicit(s->depth, memory_order_relaxed);
    if (depth > s->max_frames) depth = s->max_frames;
    /* The guard's test: a read of an address that is never mapped. */
    if (s->inject_fault) {
        volatile uintptr_t never_mapped = 8;
        tr.nframes = *(volatile jint *)never_mapped;
    }
    s->agct(&tr, depth > 0 ? depth : 1, uc);
    if (tr.nframes <= 0 && !s->inject_fault) {
        struct walk_site site = {s->agct, &s->code, &s->anchor, t->env, t->stack_lo, t->stack_hi};
        if (walk_recover(&site, &tr, depth > 0 ? depth : 1, uc) > 0)
            atomic_fetch_add_explicit(&s->recovered, 1, memory_order_relaxed);
    }
    if (s->guarded) {
        atomic_store_explicit(&t->walk, NULL, memory_order_relaxed);
        atomic_fetch_sub(&s->walking, 1);
    }
    return tr.nframes;
}

/* The interrupted instruction's address (0 where this is not known). */
static uintptr_t context_pc(const void *uc)
{
#if defined(__x86_64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc : 0;
#else
    return 0;
#endif
}

/* A thread that is not a Java thread: where it was, and which it is (native_threads.h). */
static void take_native(struct signal_sampler *s, const struct sig_thread *t, uint32_t weight, void *uc)
{
    uint64_t ticket;
    struct sample *smp = sample_ring_claim(&s->ring, weight, &ticket);
    if (!smp) return;
    smp->thread = t->name_id;
    smp->flags = SAMPLE_NATIVE;
    smp->state = STATE_NONE;
    smp->reason = REASON_NONE;
    smp->frames[0] = (struct sample_frame){-1, 0, (const void *)context_pc(uc)};
    smp->nframes = 1;
    sample_ring_publish(&s->ring, smp, ticket);
}

static void take_sample(struct signal_sampler *s, const siginfo_t *si, void *uc)
{
    int32_t tid = gettid();
    struct sig_thread *t = (struct sig_thread *)tid_map_find(&s->threads, tid);
    /* A CPU timer that expired more than once before the signal went out says so; the
     * wall clock counts the intervals owed. */
    uint32_t weight = 1 + (si->si_code == SI_TIMER && si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0);
    if (!t && s->all_threads) {
        const struct sig_thread *n = (const struct sig_thread *)tid_map_find(&s->natives, tid);
        if (n) {
            take_native(s, n, weight, uc);
            return;
        }
    }
    /* A native timer's signal on a thread that has just become a Java thread (its own
     * timer counts its CPU) or whose record has just gone with the thread. */
    if (si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)&s->natives) return;
    if (t && si->si_code == SI_QUEUE) {
        uint32_t owed = atomic_exchange_explicit(&t->owed, 0, memory_order_relaxed);
        weight = owed ? owed : 1;
    }
    uint64_t ticket;
    struct sample *smp = sample_ring_claim(&s->ring, weight, &ticket);
    if (!smp) return; /* counted by the ring as refused */
    if (!t) {         /* not a Java thread of the profile */
        smp->thread = 0;
        smp->flags = 0;
        smp->state = STATE_NONE;
        smp->reason = REASON_NOT_JAVA;
        smp->nframes = 0;
        sample_ring_publish(&s->ring, smp, ticket);
        return;
    }
    /* The entry is read here, on its own thread, which is alive and has not passed its
     * end (the record goes then): the sample keeps what the drain needs of it, as the
     * entry may be gone by the time the drain comes. */
    const struct thread_info *ti = atomic_load_explicit(&t->info, memory_order_acquire);
    smp->thread = ti ? ti->serial : 0;
    smp->flags = ti && !ti->sampled ? SAMPLE_NOT_SAMPLED : 0;
    smp->state = s->wall ? atomic_load_explicit(&t->state, memory_order_relaxed) : STATE_NONE;
    bool faulted;
    int n = walk(s, t, smp, uc, &faulted);
    /* On a carrier, the frames below the virtual thread's are the carrier's own. */
    if (!faulted && n > 0) n = async_trace_barrier_cut(s->walker, (const struct agct_frame *)smp->frames, n);
    if (faulted) {
        smp->reason = REASON_FAULT;
    } else if (n <= 0) {
        /* AGCT's answer (0 no Java frame ... -10); a carrier caught entering its virtual
         * thread's first frame has none of its frames either. */
        smp->reason = n >= -10 ? (uint32_t)(REASON_AGCT_FIRST - n) : REASON_OTHER;
    } else {
        smp->reason = REASON_NONE;
    }
    smp->nframes = smp->reason == REASON_NONE ? n : 0;
    sample_ring_publish(&s->ring, smp, ticket);
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    struct signal_sampler *s = sampler();
    if (s && is_ours(s, si)) {
        atomic_fetch_add_explicit(&s->signals, 1, memory_order_relaxed);
        if (atomic_load_explicit(&s->enabled, memory_order_relaxed)) take_sample(s, si, uc);
    } else if (s) {
        atomic_fetch_add_explicit(&s->foreign, 1, memory_order_relaxed);
        pass_on(&s->old_prof, sig, si, uc);
    }
    errno = saved;
}

/* In front of the JVM's handler: out of our walk, or on to the JVM. The JVM takes
 * SIGSEGV in Java code all the time; while no walk is under way anywhere (the common
 * case) this costs one atomic load. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    struct signal_sampler *s = sampler();
    if (!s) return;
    if (atomic_load_explicit(&s->walking, memory_order_acquire) > 0) {
        struct sig_thread *t = (struct sig_thread *)tid_map_find(&s->threads, gettid());
        sigjmp_buf *out = t ? atomic_load_explicit(&t->walk, memory_order_acquire) : NULL;
        if (out) {
            atomic_fetch_add_explicit(&s->faults, 1, memory_order_relaxed);
            siglongjmp(*out, 1);
        }
    }
    const struct sigaction *old = sig == SIGBUS ? &s->old_bus : &s->old_segv;
    if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_DFL) {
        /* No one handled it before us: the default action, as without the agent. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        return; /* the instruction faults again, unguarded */
    }
    pass_on(old, sig, si, uc);
}

int sample_signal_install(struct signal_sampler *s)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGPROF, &sa, &s->old_prof);
}

int sample_signal_guard(struct signal_sampler *s)
{
    struct sigaction sa;
    if (sigaction(SIGSEGV, NULL, &s->old_segv) != 0 || sigaction(SIGBUS, NULL, &s->old_bus) != 0) return -1;
    /* The JVM's flags and mask, so that when it is called through us it runs as before. */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = s->old_segv.sa_flags | SA_SIGINFO;
    sa.sa_mask = s->old_segv.sa_mask;
    if (sigaction(SIGSEGV, &sa, NULL) != 0) return -1;
    sa.sa_mask = s->old_bus.sa_mask;
    if (sigaction(SIGBUS, &sa, NULL) != 0) {
        sigaction(SIGSEGV, &s->old_segv, NULL);
        return -1;
    }
    s->guarded = true;
    return 0;
}

bool sample_signal_is_ours(void)
{
    struct sigaction cur;
    if (sigaction(SIGPROF, NULL, &cur) != 0) return false;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigprof;
}
