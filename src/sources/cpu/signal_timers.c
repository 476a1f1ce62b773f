/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/signal_timers.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "sources/cpu/perf_events.h"
#include "sources/cpu/signal_internal.h"

static struct timespec interval_of(const struct signal_sampler *s)
{
    return (struct timespec){s->interval_ms / 1000, (long)(s->interval_ms % 1000) * 1000000L};
}

/* The CPU-time clock of any thread of this process, as the kernel numbers them (what
 * pthread_getcpuclockid gives for one's own): so a timer can be made for a thread
 * already running when the agent is attached, from another thread. */
static clockid_t thread_cpu_clock(int32_t tid)
{
    return (clockid_t)((~(uint32_t)tid << 3) | 6u); /* per thread (4), scheduler time (2) */
}

int sample_timer_start(struct signal_sampler *s, struct sig_thread *t, const void *tag)
{
    /* kernel=y: the thread's perf event, or (out of memory, mlock limit) its timer. */
    if (s->kernel) {
        if (perf_thread_open(s, t) == 0) return 0;
        atomic_fetch_add(&s->perf_refused, 1);
    }
    int32_t tid = atomic_load_explicit(&t->e.tid, memory_order_relaxed);
    clockid_t clock = thread_cpu_clock(tid);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev.sigev_value.sival_ptr = (void *)tag; /* how the handler knows its own signals */
    ev._sigev_un._tid = tid;
    if (timer_create(clock, &ev, &t->timer) != 0) return -1;
    /* The first expiry at a random point of the first interval: a thread that lives for
     * less CPU time than an interval still gets a sample with the right probability
     * (CPU used / interval), so a thousand short threads are not all missed. */
    struct timespec i = interval_of(s), first;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t x = (uint64_t)now.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)tid * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    uint64_t span = (uint64_t)i.tv_sec * 1000000000ull + (uint64_t)i.tv_nsec;
    uint64_t at = 1 + x % span;
    first.tv_sec = (time_t)(at / 1000000000ull);
    first.tv_nsec = (long)(at % 1000000000ull);
    struct itimerspec every = {i, first};
    if (timer_settime(t->timer, 0, &every, NULL) != 0) {
        timer_delete(t->timer);
        return -1;
    }
    atomic_store(&t->has_timer, true);
    return 0;
}

void sample_timer_arm(struct signal_sampler *s, struct sig_thread *t, bool on)
{
    perf_thread_arm(s, t, on);
    if (!atomic_load(&t->has_timer)) return;
    struct timespec i = on ? interval_of(s) : (struct timespec){0, 0};
    struct itimerspec every = {i, i};
    timer_settime(t->timer, 0, &every, NULL);
}

void sample_timer_stop(struct signal_sampler *s, struct sig_thread *t)
{
    perf_thread_close(s, t);
    if (atomic_exchange(&t->has_timer, false)) timer_delete(t->timer);
}

int sample_timer_process(struct signal_sampler *s, bool on)
{
    struct timespec i = interval_of(s);
    struct timeval tv = {i.tv_sec, i.tv_nsec / 1000};
    struct itimerval every = {on ? tv : (struct timeval){0, 0}, on ? tv : (struct timeval){0, 0}};
    return setitimer(ITIMER_PROF, &every, NULL);
}

bool sample_timer_poke(struct signal_sampler *s, pid_t tid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGPROF;
    si.si_code = SI_QUEUE;
    si.si_pid = s->pid;
    si.si_uid = getuid();
    si.si_value.sival_ptr = s;
    return syscall(SYS_rt_tgsigqueueinfo, s->pid, tid, SIGPROF, &si) == 0;
}
