/*
 * monitor=y: time threads spent blocked on a contended monitor or waiting in
 * Object.wait, gathered per (stack trace, monitor class).
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
    struct trace *trace;          /* where the thread blocked or waited */
    struct class_info *cls;       /* the monitor's class */
    _Atomic uint64_t ns;          /* time blocked or waiting since the last dump */
    _Atomic uint64_t count;       /* contended enters and waits since the last dump */
};

struct monitor_table {
    struct cmap map;
    struct registry all;
};

/* One line of the MONITOR TIME section. */
struct monitor_row {
    struct monitor_entry *entry;
    uint64_t ns;
    uint64_t count;
};

void monitors_init(struct monitor_table *t);
void monitors_destroy(struct monitor_table *t);
/* The entry of this trace and class, made on first sight; NULL if out of memory. */
struct monitor_entry *monitors_of(struct monitor_table *t, struct trace *trace, struct class_info *cls);
/* Adds one contended enter or wait that lasted `ns`. */
void monitors_add(struct monitor_entry *e, uint64_t ns);
uint32_t monitors_count(struct monitor_table *t);
struct monitor_entry *monitors_at(struct monitor_table *t, uint32_t i);

/*
 * Ranks every entry with something to report, most time first (then most events,
 * then trace serial, so output is stable). With `take` the times and counts are
 * zeroed. *total_ns adds up every row, kept or not; the rows kept are those whose
 * share of the total is at least `cutoff`. Returns the rows (caller frees), NULL
 * (with *nrows 0) when there is nothing to report or no memory.
 */
struct monitor_row *monitors_rank(struct monitor_table *t, bool take, double cutoff, int *nrows,
                                  uint64_t *total_ns, uint64_t *total_count);

struct monitor_dump_thread {
    uint32_t serial;
    uint32_t trace_serial;
    int32_t state;               /* JVMTI thread state bits */
};

struct monitor_dump_monitor {
    const char *signature;       /* the monitor's class, "Ljava/lang/Object;" */
    uint32_t owner;              /* thread serial, 0 when unowned */
    int entry_count;
    uint32_t *enter_waiters;     /* thread serials */
    int nenter_waiters;
    uint32_t *notify_waiters;
    int nnotify_waiters;
};

/* What a monitor dump shows, taken at once: the MONITOR TIME rows (ranked, cut at the
 * cutoff, the counts taken), the monitors in use and every thread. */
struct monitor_snapshot {
    struct monitor_row *rows;
    int nrows;
    uint64_t total_ns, total_count;
    struct monitor_dump_monitor *mons;
    int nmons;
    struct monitor_dump_thread *threads;
    int nthreads;
};

void monitor_snapshot_free(struct monitor_snapshot *s);

#endif
