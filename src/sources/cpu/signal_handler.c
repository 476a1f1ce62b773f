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
 *     sampling thread (native_threads.c);
 *   - native frames (native=y): the snapshot of the process's code is entered and left
 *     with native_publish's two atomic adds (no lock, no wait; the agent thread frees a
 *     snapshot only once no handler is inside), and nu_walk_stack walks it: no
 *     allocation, no lock, no call but binary searches, at most NATIVE_MAX_FRAMES
 *     frames, every word read checked to lie in [sp - 128, top of the thread's stack):
 *     the stack as the thread's record knows it, or the readable span of the snapshot's
 *     map holding sp; never below sp's red zone (HotSpot's guard zones are far
 *     below). Its pcs are kept in an array on this stack (2 KB) and copied into the
 *     ring's slot; names are found later, by the drain. A Java thread's native frames end where a pc is in no
 *     library (compiled or interpreted Java code, a stub): AsyncGetCallTrace's frames
 *     go under them.
 *   - kernel frames (kernel=y): a perf event's signal (F_SETSIG: si_code POLL_IN, si_fd
 *     the event's) to the thread whose event it is; perf_thread_take reads that
 *     thread's own ring, mapped while its record holds it (a thread's ring is unmapped
 *     only by itself, outside this handler, or once it has ended), and moves the ring's
 *     tail on: plain loads and stores, bounded by the ring's size. Names come later,
 *     from /proc/kallsyms, read by the drain.
 */
#include "sources/cpu/signal_handler.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/cpu/perf_events.h"
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

/* A perf event's signal (kernel=y): sent as SIGIO would be, with the event's fd. */
static bool from_perf(const struct signal_sampler *s, const siginfo_t *si)
{
    return s->kernel && si->si_code >= POLL_IN && si->si_code <= POLL_HUP;
}

/* Ours: a timer of ours (SI_TIMER) or the wall clock's signal (SI_QUEUE from this
 * process), both carrying the sampler's address; or the process timer when it is the one
 * used (setitimer's signals say SI_KERNEL and carry nothing). */
static bool is_ours(const struct signal_sampler *s, const siginfo_t *si)
{
    if (from_perf(s, si)) return true; /* whose event it is: take_sample checks the fd */
    if (si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)&s->natives) return true;
    if ((si->si_code == SI_TIMER || si->si_code == SI_QUEUE) && si->si_value.sival_ptr == (void *)s)
        return si->si_code == SI_TIMER || si->si_pid == s->pid;
    return atomic_load_explicit(&s->process_timer, memory_order_relaxed) && si->si_code == SI_KERNEL;
}

/* x86-64's red zone: the 128 bytes below sp a function may use without moving sp. */
#define RED_ZONE 128

/* The frames a sample may hold now: depth=, within the ring's slot. */
static int frames_wanted(const struct signal_sampler *s)
{
    int depth = atomic_load_explicit(s->depth, memory_order_relaxed);
    return depth > s->max_frames ? s->max_frames : depth > 0 ? depth : 1;
}

/* The walk, guarded when the guard is installed: a fault inside lands back here, and
 * *faulted says so. */
static int walk(struct signal_sampler *s, struct sig_thread *t, struct sample *smp, int first, int wanted, void *uc,
                bool *faulted)
{
    struct agct_trace tr = {t->env, 0, (struct agct_frame *)(smp->frames + first)};
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
    int depth = wanted - first; /* the native frames above count too */
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

/* The interrupted code's pc, sp and fp, or false where this is not known. */
static bool context_regs(const void *uc, struct nu_regs *r)
{
#if defined(__x86_64__)
    if (!uc) return false;
    const greg_t *g = ((const ucontext_t *)uc)->uc_mcontext.gregs;
    *r = (struct nu_regs){(uintptr_t)g[REG_RIP], (uintptr_t)g[REG_RSP], (uintptr_t)g[REG_RBP]};
    return true;
#else
    (void)uc;
    (void)r;
    return false; /* x86-64 only: elsewhere no native frames */
#endif
}

/* A thread that is not a Java thread interrupted in code of no library: a stub the JVM
 * generated (the instruction cache's flush after C1 or C2 installs code), which keeps a
 * frame pointer. The walk goes on from its caller, by the frame-pointer chain, after the
 * stub's pc (named [generated code] by the drain). Both words read are inside stack (as
 * native_unwind.c's reads, left alone by the address sanitizer: other frames' slots). */
__attribute__((no_sanitize_address)) static void stub_step(const struct native_space *space,
                                                           const struct nm_span *stack, const struct nu_regs *r,
                                                           uintptr_t *pcs, int max, struct nu_result *res)
{
    uintptr_t fp = r->fp;
    if ((fp & 7) || fp < r->sp || fp < stack->start || fp > stack->end - 16) return;
    struct nu_regs caller = {((const volatile uintptr_t *)fp)[1], fp + 16, ((const volatile uintptr_t *)fp)[0]};
    if (!nsp_module(space, caller.pc - 1)) return; /* not a call from a library: leave it */
    nu_walk_stack(space, stack, &caller, pcs + 1, max - 1, res);
    res->n++;
}

/* Native pcs from the context, top first, into out as FRAME_NATIVE_PC frames (at most
 * max): how many; *stop says how the walk ended. [lo, hi): the thread's stack as its
 * record knows it (0, 0: the map's span holding sp). Reads only from sp's red zone up.
 * stubs: a first pc in no library is a stub of the JVM's (not Java code): stub_step. */
static int walk_native(struct signal_sampler *s, uintptr_t lo, uintptr_t hi, bool stubs, const void *uc,
                       struct sample_frame *out, int max, int *stop)
{
    struct nu_regs r;
    *stop = max <= 0 ? NU_STOP_DEPTH : NU_STOP_END; /* nothing to say of a walk not made */
    if (max <= 0 || !context_regs(uc, &r)) return 0;
    if (max > NATIVE_MAX_FRAMES) max = NATIVE_MAX_FRAMES;
    struct np_reader rd;
    const struct native_space *space = np_enter(&s->space, &rd);
    int n = 0;
    if (space) {
        struct nm_span stack = {lo, hi};
        if (!(r.sp >= lo && r.sp < hi)) {
            const struct nm_span *in_map = nm_maps_span(&space->maps, r.sp);
            stack = in_map ? *in_map : (struct nm_span){0, 0};
        }
        /* From sp's red zone up: an epilogue's row may still say rbp is saved below sp
         * (popped, and kept there: the kernel leaves the red zone alone); the guard zones
         * are far below (a thread 128 bytes from them would have overflowed its stack). */
        if (r.sp >= stack.start + RED_ZONE) stack.start = r.sp - RED_ZONE;
        uintptr_t pcs[NATIVE_MAX_FRAMES];
        struct nu_result res;
        nu_walk_stack(space, stack.end > stack.start ? &stack : NULL, &r, pcs, max, &res);
        if (stubs && res.stop == NU_STOP_NO_MODULE && res.n == 1 && max > 1)
            stub_step(space, &stack, &r, pcs, max, &res);
        for (; n < res.n; n++) out[n] = (struct sample_frame){FRAME_NATIVE_PC, 0, (const void *)pcs[n]};
        *stop = res.stop;
    } else {
        *stop = NU_STOP_NO_STACK;
    }
    np_leave(&s->space, &rd);
    return n;
}

/* Where a walk ended short (not at the outermost frame, not at depth=), as a frame after
 * the native ones, when there is room. */
static int stop_frame(struct sample_frame *out, int n, int max, int stop)
{
    if (stop == NU_STOP_END || stop == NU_STOP_DEPTH || n >= max) return n;
    out[n] = (struct sample_frame){FRAME_NATIVE_STOP, 0, (const void *)(uintptr_t)stop};
    return n + 1;
}

/* The kernel's pcs (kernel=y: nk of them) as FRAME_KERNEL_PC frames into out, at most
 * max: how many. */
static int put_kernel(const uintptr_t *kpcs, int nk, struct sample_frame *out, int max)
{
    int n = nk < max ? nk : max > 0 ? max : 0;
    for (int i = 0; i < n; i++) out[i] = (struct sample_frame){FRAME_KERNEL_PC, 0, (const void *)kpcs[i]};
    return n;
}

/* A thread that is not a Java thread: where it was, and which it is (native_threads.h),
 * under the kernel's nk pcs. */
static void take_native(struct signal_sampler *s, const struct sig_thread *t, uint32_t weight, void *uc,
                        const uintptr_t *kpcs, int nk)
{
    uint64_t ticket;
    struct sample *smp = sample_ring_claim(&s->ring, weight, &ticket);
    if (!smp) return;
    smp->thread = t->name_id;
    smp->flags = SAMPLE_NATIVE;
    smp->state = STATE_NONE;
    smp->reason = REASON_NONE;
    if (s->native_frames) {
        /* the thread's own pseudo-frame goes under these: one frame of depth= is its */
        int max = frames_wanted(s) - 1, k = put_kernel(kpcs, nk, smp->frames, max);
        struct sample_frame *user = smp->frames + k;
        int stop, n = walk_native(s, 0, 0, true, uc, user, max - k, &stop);
        /* a pc in no library: code the snapshot does not know (yet), said as the stop */
        if (stop == NU_STOP_NO_MODULE && n > 0) n--;
        atomic_fetch_add_explicit(&s->native_stops[stop < NU_STOP_COUNT ? stop : NU_STOP_RULE], 1,
                                  memory_order_relaxed);
        smp->nframes = k + stop_frame(user, n, s->max_frames - 1 - k, stop);
    } else {
        smp->nframes = 0; /* native=n: the thread's frame alone */
    }
    sample_ring_publish(&s->ring, smp, ticket);
}

/* kernel=y: the kernel's pcs of the newest record of t's event into kpcs (how many);
 * *weight: the intervals its records stand for, 0 when the signal is not t's event's
 * (si_fd) or its record was read by an earlier signal (no sample then). */
static int take_kernel(const struct signal_sampler *s, struct sig_thread *t, const siginfo_t *si, uintptr_t *kpcs,
                       uint32_t *weight)
{
    *weight = 0;
    if (!t || !atomic_load_explicit(&t->perf_ring, memory_order_acquire) || si->si_fd != t->perf_fd) return 0;
    return perf_thread_take(s, t, kpcs, PERF_MAX_KERNEL, weight);
}

static void take_sample(struct signal_sampler *s, const siginfo_t *si, void *uc)
{
    int32_t tid = gettid();
    struct sig_thread *t = (struct sig_thread *)tid_map_find(&s->threads, tid);
    /* A CPU timer that expired more than once before the signal went out says so; the
     * wall clock counts the intervals owed; a perf event, the records it wrote. */
    uint32_t weight = 1 + (si->si_code == SI_TIMER && si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0);
    uintptr_t kpcs[PERF_MAX_KERNEL]; /* 512 bytes of this stack */
    int nkp = 0;
    bool perf = from_perf(s, si);
    if (!t && s->all_threads) {
        struct sig_thread *n = (struct sig_thread *)tid_map_find(&s->natives, tid);
        if (n && perf) nkp = take_kernel(s, n, si, kpcs, &weight);
        if (n && weight) take_native(s, n, weight, uc, kpcs, nkp);
        if (n) return;
    }
    if (perf) { /* a thread's event: its record, or nothing to take */
        nkp = take_kernel(s, t, si, kpcs, &weight);
        if (!weight) return;
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
    /* The kernel's frames (kernel=y) on top, then native frames (a thread in a JNI method
     * or in the VM), down to the first pc in no library: Java code, where
     * AsyncGetCallTrace takes over. */
    int wanted = frames_wanted(s), nw = 0, stop = NU_STOP_NO_MODULE; /* depth= read once */
    int nk = put_kernel(kpcs, nkp, smp->frames, wanted);
    struct sample_frame *user = smp->frames + nk;
    if (s->native_frames) nw = walk_native(s, t->stack_lo, t->stack_hi, false, uc, user, wanted - nk, &stop);
    if (stop == NU_STOP_NO_MODULE && nw > 0)
        nw--; /* that pc is the Java code's */
    else if (stop != NU_STOP_NO_MODULE)
        nw = stop_frame(user, nw, wanted - nk - 1, stop);
    int nn = nk + nw;
    bool faulted = false;
    int n = nn < wanted ? walk(s, t, smp, nn, wanted, uc, &faulted) : 0;
    /* On a carrier, the frames below the virtual thread's are the carrier's own. */
    if (!faulted && n > 0) n = async_trace_barrier_cut(s->walker, (const struct agct_frame *)(smp->frames + nn), n);
    if (faulted) {
        smp->reason = REASON_FAULT;
    } else if (n <= 0 && nn == wanted) {
        smp->reason = REASON_NONE; /* depth= is all native frames */
    } else if (n <= 0) {
        /* AGCT's answer (0 no Java frame ... -10); a carrier caught entering its virtual
         * thread's first frame has none of its frames either. */
        smp->reason = n >= -10 ? (uint32_t)(REASON_AGCT_FIRST - n) : REASON_OTHER;
    } else {
        smp->reason = REASON_NONE;
    }
    /* The native frames stay with the reason: the drain puts it under them. */
    smp->nframes = nn + (smp->reason == REASON_NONE && n > 0 ? n : 0);
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
