/* SPDX-License-Identifier: Apache-2.0 */
/* kernel=y's perf event rings (sources/cpu/perf_events.c): the handler's reader over
 * rings written by hand (wrapped, hostile), then a real event on this thread, its
 * records read from a SIGPROF handler as the sampler's handler does. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/cpu/perf_events.h"
#include "sources/cpu/signal_internal.h"
#include "unit.h"

#define PAGE 4096u

static struct signal_sampler s;
static struct sig_thread t;
static unsigned char *ring; /* the event's page, then PAGE bytes of records */

static struct perf_event_mmap_page *meta(void) { return (struct perf_event_mmap_page *)ring; }

/* A record of type with the words given after its header, at byte *at of the data
 * (wrapping), *at moved past it. */
static void put(uint64_t *at, uint32_t type, const uint64_t *w, int n)
{
    uint64_t h = (uint64_t)type | (uint64_t)(8 + 8 * n) << 48;
    memcpy(ring + PAGE + (*at & (PAGE - 1)), &h, 8);
    for (int i = 0; i < n; i++) memcpy(ring + PAGE + ((*at + 8 + 8 * (uint64_t)i) & (PAGE - 1)), &w[i], 8);
    *at += 8 + 8 * (uint64_t)n;
}

static int take(uint64_t tail, uint64_t head, uintptr_t *pcs, uint32_t *samples)
{
    meta()->data_tail = tail;
    meta()->data_head = head;
    return perf_thread_take(&s, &t, pcs, PERF_MAX_KERNEL, samples);
}

static void test_by_hand(void)
{
    ring = aligned_alloc(PAGE, 2 * PAGE);
    memset(ring, 0, 2 * PAGE);
    s.perf_data_off = PAGE;
    s.perf_data_size = PAGE;
    atomic_store(&t.perf_ring, ring);
    uintptr_t pcs[PERF_MAX_KERNEL];
    uint32_t samples;
    const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL;

    uint64_t at = 0;
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){2, K, 0xffffffff81000010}, 3);
    put(&at, PERF_RECORD_LOST, (uint64_t[]){1, 5}, 2);
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){4, K, 0xffffffff81000020, 0xffffffff81000030, 0xffffffff81000040}, 5);
    int n = take(0, at, pcs, &samples);
    CHECK(samples == 2 && n == 3 && pcs[0] == 0xffffffff81000020 && pcs[2] == 0xffffffff81000040,
          "perf ring: 2 samples read, the newest's 3 pcs without its context mark (%u, %d)", samples, n);
    CHECK(meta()->data_tail == at, "perf ring: the tail moved to the head");
    n = take(at, at, pcs, &samples);
    CHECK(samples == 0 && n == 0, "perf ring: empty, no sample (a signal whose record was read)");

    /* A record across the ring's end, 7 laps on. */
    uint64_t start = 7 * PAGE + PAGE - 16;
    at = start;
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){3, K, 0xffffffff81000050, 0xffffffff81000060}, 4);
    n = take(start, at, pcs, &samples);
    CHECK(samples == 1 && n == 2 && pcs[1] == 0xffffffff81000060, "perf ring: a record across the end read whole");

    /* A user part (a kernel that kept it): cut there. */
    at = 0;
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){4, 0xffffffff81000070, (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000},
        5);
    n = take(0, at, pcs, &samples);
    CHECK(n == 1 && pcs[0] == 0xffffffff81000070, "perf ring: user pcs after PERF_CONTEXT_USER left out");

    /* Hostile: a chain longer than its record; a size of 0; a head past the ring. */
    at = 0;
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){1000000, 0xffffffff81000080}, 2);
    n = take(0, at, pcs, &samples);
    CHECK(samples == 1 && n == 1, "perf ring: a chain's length bounded by its record (%d)", n);
    at = 0;
    put(&at, PERF_RECORD_SAMPLE, (uint64_t[]){1, 0xffffffff81000090}, 2);
    uint64_t bad = at;
    memset(ring + PAGE + bad, 0, 8); /* a header of size 0 */
    n = take(0, bad + 64, pcs, &samples);
    CHECK(samples == 1 && n == 1 && meta()->data_tail == bad + 64,
          "perf ring: a record of size 0 ends the reading, what came before kept, the rest given back");
    memset(ring + PAGE, 0x41, PAGE); /* garbage everywhere */
    n = take(0, 3 * PAGE, pcs, &samples);
    CHECK(samples == 0 && n == 0 && meta()->data_tail == 3 * PAGE,
          "perf ring: a head more than a ring ahead: nothing read");
    n = take(0, PAGE, pcs, &samples);
    CHECK(samples == 0 && n == 0, "perf ring: a ring of garbage (size 0x4141, not within): nothing read");
    atomic_store(&t.perf_ring, NULL);
    n = take(0, 0, pcs, &samples);
    CHECK(n == 0 && samples == 0, "perf ring: none mapped, nothing read");
    free(ring);
}

/* ---- a real event on this thread ---- */

static volatile sig_atomic_t signals, samples_seen, kernel_pcs;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    uintptr_t pcs[PERF_MAX_KERNEL];
    uint32_t n = 0;
    if (si->si_code != POLL_IN || si->si_fd != t.perf_fd) return;
    signals++;
    int k = perf_thread_take(&s, &t, pcs, PERF_MAX_KERNEL, &n);
    samples_seen += (sig_atomic_t)n;
    for (int i = 0; i < k; i++) kernel_pcs += pcs[i] >= 0xffff800000000000u;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_live(void)
{
    char why[320];
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    atomic_store(&s.interval_ms, 2);
    s.pid = getpid();
    atomic_store(&t.e.tid, gettid());
    if (perf_events_probe(&s, why, sizeof why) != 0) {
        SKIP(why, "perf event: samples of this thread's system calls with the kernel's frames");
        return;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, &old);
    CHECK(perf_thread_open(&s, &t) == 0, "perf event: opened, mapped, its signal to this thread");
    int fd = open("/dev/null", O_WRONLY);
    char buf[64] = {0};
    double end = cpu_ms() + 200;
    while (cpu_ms() < end)
        for (int i = 0; i < 1000; i++)
            if (write(fd, buf, sizeof buf) < 0) break;
    perf_thread_arm(&s, &t, false);
    int seen = samples_seen;
    end = cpu_ms() + 30;
    while (cpu_ms() < end) continue;
    CHECK(seen >= 10 && seen <= 400, "perf event: samples in proportion to 200 ms of CPU at 2 ms (%d, %d signals)",
          seen, (int)signals);
    CHECK(kernel_pcs > 0, "perf event: kernel pcs among them (%d)", (int)kernel_pcs);
    CHECK(samples_seen == seen, "perf event: disarmed, no more samples");
    perf_thread_close(&s, &t);
    CHECK(atomic_load(&t.perf_ring) == NULL, "perf event: closed, its ring unmapped by its own thread");
    close(fd);
    sigaction(SIGPROF, &old, NULL);
}

int main(void)
{
    test_by_hand();
    test_live();
    return UNIT_DONE();
}
