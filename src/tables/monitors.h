/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor=y: time threads spent blocked on a contended monitor, or waiting in
 * Object.wait, gathered per (stack trace, monitor class). A table holds one kind:
 * the monitor source keeps one for contention (MONITOR TIME) and one for waits
 * (MONITOR WAIT TIME), so that waits never pass for contention.
 *
 * An entry is found by the trace and class entries it names (both live as long as
 * the agent), so the key is two pointers. Times and counts are atomics: the event
 * callbacks add to them without locks, a dump takes them (leaving zero behind, so
 * each dump covers the time since the previous one, as in the original agent).
 */
#ifndef HPROF_MONITORS_H
#define HPROF_MONITORS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/cmap.h"
#include "util/registry.h"

struct trace;
struct class_info;

struct monitor_entry {
    struct cmap_node node;
    struct trace *trace;    /* where the thread blocked (or waited) */
    struct class_info *cls; /* the monitor's class; a j.u.c park with no blocker: NULL */
    bool juc;               /* a java.util.concurrent lock or park, not a monitor */
    _Atomic uint64_t ns;    /* time blocked (or waiting) since the last dump */
    _Atomic uint64_t count; /* contended enters (or waits) since the last dump */
};

struct monitor_table {
    struct cmap map;
    struct registry all;
};

/* One line of a MONITOR TIME or MONITOR WAIT TIME section. */
struct monitor_row {
    struct monitor_entry *entry;
    uint64_t ns;
    uint64_t count;
};

/* One table ranked: the rows kept (caller frees) and the totals over every row. */
struct monitor_times {
    struct monitor_row *rows;
    int nrows;
    int nall; /* every row ranked: the ones under the cutoff follow nrows */
    uint64_t total_ns, total_count;
};

void monitors_init(struct monitor_table *t);
void monitors_destroy(struct monitor_table *t);
/* The entry of this trace and class (its canonical entry: see classes.h), a monitor's or
 * (juc) a java.util.concurrent lock's or park's, made on first sight; NULL if out of memory. */
struct monitor_entry *monitors_of(struct monitor_table *t, struct trace *trace, struct class_info *cls, bool juc);
/* Adds one contended enter (or one wait) that lasted `ns`. */
void monitors_add(struct monitor_entry *e, uint64_t ns);
uint32_t monitors_count(struct monitor_table *t);
struct monitor_entry *monitors_at(struct monitor_table *t, uint32_t i);

/*
 * Ranks every entry with something to report, most time first (then most events,
 * then trace serial, so output is stable). With `take` the times and counts are
 * zeroed. The totals add up every row, kept or not; the rows kept are those whose
 * share of the total is at least `cutoff`. out->rows is NULL (with nrows 0) when
 * there is nothing to report or no memory.
 */
void monitors_rank(struct monitor_table *t, bool take, double cutoff, struct monitor_times *out);

struct monitor_dump_thread {
    uint32_t serial;
    uint32_t trace_serial;
    int32_t state; /* JVMTI thread state bits */
};

struct monitor_dump_monitor {
    const char *signature; /* the monitor's class, "Ljava/lang/Object;" */
    uint32_t owner;        /* thread serial, 0 when unowned */
    int entry_count;
    uint32_t *enter_waiters; /* thread serials */
    int nenter_waiters;
    uint32_t *notify_waiters;
    int nnotify_waiters;
};

/* What a monitor dump shows, taken at once: the rows of MONITOR TIME (contention) and
 * of MONITOR WAIT TIME (ranked, cut at the cutoff, the counts taken), the monitors in
 * use and every thread. */
struct monitor_snapshot {
    struct monitor_times contended;
    struct monitor_times waits;
    struct monitor_dump_monitor *mons;
    int nmons;
    struct monitor_dump_thread *threads;
    int nthreads;
};

void monitor_snapshot_free(struct monitor_snapshot *s);

#endif
