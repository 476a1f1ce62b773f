/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/perf_events.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sources/cpu/signal_internal.h"
#include "util/env.h"

/* Pages of records after the event's own page: a record is at most 16 + 8 * 66 bytes
 * (PERF_MAX_KERNEL pcs and context markers), so a page holds several, and the handler
 * empties the ring at each signal. */
#define DATA_PAGES 1
/* Entries of a call chain at or above this are context markers (PERF_CONTEXT_KERNEL ...),
 * not pcs. */
#define CONTEXT_MARK ((uint64_t)-4095)

static void attr_of(const struct signal_sampler *s, struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK; /* the thread's CPU time, in ns */
    a->sample_period = (uint64_t)atomic_load(&s->interval_ms) * 1000000u;
    a->sample_type = PERF_SAMPLE_CALLCHAIN;
    a->exclude_callchain_user = 1; /* the user stack is the handler's to walk */
    a->sample_max_stack = PERF_MAX_KERNEL;
    a->wakeup_events = 1; /* a signal for every record */
    a->disabled = 1;      /* enabled once its signal goes to its thread */
}

static int open_event(const struct signal_sampler *s, int32_t tid)
{
    struct perf_event_attr a;
    attr_of(s, &a);
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int v = -99;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = -99;
        fclose(f);
    }
    return v;
}

int perf_events_probe(struct signal_sampler *s, char *why, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    s->perf_data_off = page > 0 ? (size_t)page : 4096;
    s->perf_data_size = s->perf_data_off * DATA_PAGES;
    int fd = -1;
    if (env_switch("HPROF_PERF_DENIED", false))
        errno = EACCES;
    else
        fd = open_event(s, 0);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno, level = paranoid();
    if (err == EACCES || err == EPERM) {
        char lv[32] = "unknown";
        if (level != -99) snprintf(lv, sizeof lv, "%d", level);
        snprintf(why, len,
                 "perf_event_open is not allowed (%s; kernel.perf_event_paranoid is %s: kernel frames need root, "
                 "CAP_PERFMON, or sysctl kernel.perf_event_paranoid=1)",
                 strerror(err), lv);
    } else {
        snprintf(why, len, "perf_event_open failed (%s): no perf events here", strerror(err));
    }
    return -1;
}

int perf_thread_open(struct signal_sampler *s, struct sig_thread *t)
{
    int32_t tid = atomic_load_explicit(&t->e.tid, memory_order_relaxed);
    int fd = open_event(s, tid);
    if (fd < 0) return -1;
    void *ring = mmap(NULL, s->perf_data_off + s->perf_data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    if (ring == MAP_FAILED || fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        int err = errno;
        if (ring != MAP_FAILED) munmap(ring, s->perf_data_off + s->perf_data_size);
        close(fd);
        errno = err;
        return -1;
    }
    t->perf_fd = fd;
    atomic_store_explicit(&t->perf_ring, ring, memory_order_release);
    return 0;
}

void perf_thread_arm(struct signal_sampler *s, struct sig_thread *t, bool on)
{
    if (!atomic_load(&t->perf_ring)) return;
    if (!on) {
        ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        return;
    }
    uint64_t period = (uint64_t)atomic_load(&s->interval_ms) * 1000000u;
    ioctl(t->perf_fd, PERF_EVENT_IOC_PERIOD, &period);
    ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* No handler can be reading t's ring: the caller is its thread (not in a handler), or
 * its thread has ended. */
static bool ring_idle(const struct signal_sampler *s, const struct sig_thread *t)
{
    int32_t tid = atomic_load_explicit(&t->e.tid, memory_order_relaxed);
    return tid == gettid() || (syscall(SYS_tgkill, s->pid, tid, 0) != 0 && errno == ESRCH);
}

void perf_thread_close(struct signal_sampler *s, struct sig_thread *t)
{
    /* The handler sees no ring from here on: a signal still on its way is dropped. */
    void *ring = atomic_exchange(&t->perf_ring, NULL);
    if (!ring) return;
    ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(t->perf_fd);
    /* A live thread's handler may hold the ring now: left mapped (two pages a thread,
     * only where sampling stops for good while threads live: VM death, the fall-back). */
    if (ring_idle(s, t)) munmap(ring, s->perf_data_off + s->perf_data_size);
}

/* A word of the ring's data at offset off (records are 8-byte aligned and the data's size
 * a power of two, so no word straddles its end). */
static uint64_t ring_word(const unsigned char *data, uint64_t mask, uint64_t off)
{
    return *(const volatile uint64_t *)(data + (off & mask));
}

int perf_thread_take(const struct signal_sampler *s, struct sig_thread *t, uintptr_t *pcs, int max, uint32_t *samples)
{
    *samples = 0;
    struct perf_event_mmap_page *page = atomic_load_explicit(&t->perf_ring, memory_order_acquire);
    if (!page) return 0;
    const unsigned char *data = (const unsigned char *)page + s->perf_data_off;
    uint64_t mask = s->perf_data_size - 1;
    /* The kernel's writes before its head: acquire, as its documentation asks. */
    uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE), tail = page->data_tail, last = UINT64_MAX;
    /* More than the ring holds: the kernel's head is not to be trusted; start again. */
    if (head - tail > s->perf_data_size) tail = head;
    /* Every record from tail to head, each at least 8 bytes: bounded by the ring's size. */
    while (head - tail >= sizeof(struct perf_event_header)) {
        uint64_t h = ring_word(data, mask, tail);
        uint32_t type = (uint32_t)h;
        uint16_t size = (uint16_t)(h >> 48);
        if (size < sizeof(struct perf_event_header) || (size & 7) || size > head - tail) break; /* a bad record */
        if (type == PERF_RECORD_SAMPLE && size >= 16) {
            (*samples)++;
            last = tail;
        }
        tail += size;
    }
    int n = 0;
    if (last != UINT64_MAX) {
        uint64_t size = ring_word(data, mask, last) >> 48, nr = ring_word(data, mask, last + 8);
        if (nr > (size - 16) / 8) nr = (size - 16) / 8; /* the chain within its record */
        for (uint64_t i = 0; i < nr && n < max; i++) {
            uint64_t pc = ring_word(data, mask, last + 16 + 8 * i);
            if (pc == (uint64_t)PERF_CONTEXT_USER) break; /* user pcs: a kernel that kept them */
            if (pc < CONTEXT_MARK) pcs[n++] = (uintptr_t)pc;
        }
    }
    /* Everything up to head is read (the rest of a bad record too): the kernel may reuse it. */
    __atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
    return n;
}
