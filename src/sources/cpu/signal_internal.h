/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state shared by the three parts of cpu=samples' signal engine:
 *   sources/cpu/signal_handler.c       the SIGPROF handler (walks the stack into the ring) and
 *                                 the guard that gets a faulting walk out (SIGSEGV/SIGBUS)
 *   sources/cpu/signal_timers.c       what makes the signals: a CPU-time timer per thread, or
 *                                 a signal to each thread at each interval (clock=wall)
 *   sources/cpu/signal_sampler.c  the source: threads in and out, the agent thread that
 *                                 drains the ring into the trace table, the fallbacks
 * A signal handler carries no context: it reaches this through host_get().
 */
#ifndef HPROF_SIGNAL_SAMPLER_H
#define HPROF_SIGNAL_SAMPLER_H

#include <jni.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "native/native_publish.h"
#include "native/native_unwind.h"
#include "sources/hotspot/async_trace.h"
#include "sources/hotspot/code_heap.h"
#include "sources/hotspot/thread_anchor.h"
#include "util/sample_ring.h"
#include "util/tid_map.h"

struct thread_info;

/* Why a sample has no frames: AsyncGetCallTrace's own codes (0, -1 ... -10) as 1 ... 11,
 * then the agent's. Each is a pseudo-frame [walk_failed].<name> in the profile. */
enum sample_reason {
    REASON_NONE = 0,
    REASON_AGCT_FIRST = 1, /* AGCT code c -> REASON_AGCT_FIRST - c */
    REASON_AGCT_LAST = REASON_AGCT_FIRST + 10,
    REASON_FAULT,    /* the walk faulted and was abandoned */
    REASON_LOST,     /* the ring was full */
    REASON_NOT_JAVA, /* a thread the profile does not know (the
                                                  process timer hits the VM's own threads) */
    REASON_OTHER,    /* an AGCT code unknown here */
    REASON_COUNT
};

/* The thread's state at a wall-clock sample: [thread_state].<name>, the trace's last frame. */
enum sample_state {
    STATE_NONE = 0,
    STATE_RUNNABLE,
    STATE_NATIVE,
    STATE_BLOCKED,
    STATE_WAITING,
    STATE_SLEEPING,
    STATE_PARKED,
    STATE_COUNT
};

/* struct sample's flags: sampling was off for its thread (socket CONTROL); a thread
 * that is not a Java thread (native_threads.h: `thread` is its name's number, frames[0]
 * the interrupted pc when nframes is 1). */
#define SAMPLE_NOT_SAMPLED 1u
#define SAMPLE_NATIVE      2u

/* A sample's frames that are not Java methods' (native=y), by their location: a native
 * pc (method: the pc; top first, above the Java frames), and where the native part of a
 * walk ended short (method: the enum nu_stop, as a number; after the native pcs). */
#define FRAME_NATIVE_PC   (-100)
#define FRAME_NATIVE_STOP (-101)
/* A kernel pc (kernel=y: perf_events.h), top first, above the native ones. */
#define FRAME_KERNEL_PC (-102)
/* Native pcs a handler takes at most (its array is on the interrupted thread's stack). */
#define NATIVE_MAX_FRAMES 256

/* One thread that may be sampled: a record of a map, by Linux thread ID. A Java thread's
 * (`threads`), or one that is not (`natives`: only name_id and seen, and the timer). */
struct sig_thread {
    struct tid_entry e;
    JNIEnv *env;                        /* the thread's, for the walker */
    _Atomic(struct thread_info *) info; /* the entry its samples name: its own, or that of
                                           the virtual thread mounted on it; read by its
                                           own thread, or under threads_read_begin */
    struct thread_info *own;            /* its own entry (the thread itself writes it) */
    _Atomic uint32_t state;             /* clock=wall: written just before the signal */
    _Atomic uint32_t owed;              /* clock=wall: intervals not yet sampled (a signal
                                           still pending when the next is due is not sent
                                           again: the one sample stands for both) */
    _Atomic(sigjmp_buf *) walk;         /* set while the handler walks: the guard's way out */
    _Atomic bool has_timer;
    timer_t timer;                /* its CPU-time timer (clock=cpu) */
    uintptr_t stack_lo, stack_hi; /* its stack, for walk_recover (0, 0: unknown) */
    uint32_t name_id;             /* natives: its name's frame (native_threads.c) */
    uint32_t seen;                /* natives: the last rescan that listed it */
    _Atomic(void *) perf_ring;    /* kernel=y: its perf event's ring, NULL: none (timer) */
    int perf_fd;                  /* that event (valid while perf_ring is set) */
};

struct signal_sampler {
    struct sample_ring ring;
    struct tid_map threads; /* struct sig_thread records of Java threads */
    struct tid_map natives; /* and of the others (threads=all; native_threads.c) */
    struct async_trace *walker;
    agct_fn agct;
    struct code_heap code;                /* where the VM's code is (walk_recover) */
    struct thread_anchor anchor;          /* where a thread's last Java frame is (walk_recover) */
    int max_frames;                       /* the ring's frames per slot */
    _Atomic int *depth;                   /* the host's depth= (a command may change it) */
    _Atomic int interval_ms;              /* the timers' period (set again when sampling resumes) */
    bool wall;                            /* clock=wall */
    bool all_threads;                     /* threads=all on the CPU clock: natives are sampled */
    bool guarded;                         /* the SIGSEGV/SIGBUS guard is installed */
    _Atomic bool process_timer;           /* setitimer(ITIMER_PROF) instead of per-thread timers */
    bool inject_fault;                    /* tests: every walk faults (HPROF_SAMPLER_FAULT=1) */
    _Atomic bool enabled;                 /* samples are taken (socket CONTROL, VM death) */
    _Atomic int walking;                  /* handlers inside a guarded walk now */
    _Atomic uint64_t faults;              /* walks the guard got out of */
    _Atomic uint64_t recovered;           /* walks refused, then made from a caller's frame */
    _Atomic uint64_t foreign;             /* SIGPROFs that were not ours, passed on */
    _Atomic uint64_t signals;             /* our SIGPROFs that arrived (`hprof status`: an idle agent gets none) */
    bool kernel;                          /* kernel=y, allowed: perf events instead of timers */
    size_t perf_data_off, perf_data_size; /* a ring's records: where, how many bytes */
    _Atomic uint64_t perf_refused;        /* threads whose event could not be had (timers) */
    bool native_frames;                   /* native=y: native pcs walked by the snapshot in `space` */
    struct native_publish space;          /* the process's code (native_modules.h), for the handler */
    _Atomic uint64_t native_stops[NU_STOP_COUNT]; /* the natives' walks, by how they ended */
    struct sigaction old_prof, old_segv, old_bus;
    pid_t pid;
};

#endif
