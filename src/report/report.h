/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report layer: the one place that turns what the sources gathered into output.
 * It owns the output sink and the writer of the chosen format; it asks the sources for a
 * snapshot of their tables (or, for a heap dump, hands them a sink) and passes what it
 * gets to the writers. Dumps come at exit, on SIGQUIT and on socket commands.
 */
#ifndef HPROF_REPORT_H
#define HPROF_REPORT_H

#include <jni.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/report_state.h"

struct host;
struct live_record;

/* A signal's request is dropped while a dump is under way; the others wait for it.
 * DUMP_WINDOW_END ends a rolling window: the sites' counts are taken too, so the next
 * window's file holds only its own. */
enum dump_reason { DUMP_AT_EXIT, DUMP_ON_SIGNAL, DUMP_ON_REQUEST, DUMP_WINDOW_END };

/* VMInit, before the sources start: the text file's header with the run header after
 * its first line; in binary the RUN HEADER record when timeline= is on. */
void report_start(struct report *r, JNIEnv *jni);
/* Opens the file (path: file= as the session names it) or socket the options name and
 * writes the file's header; on failure says why in err and returns -1. */
int report_open(struct report *r, struct host *h, const struct options *o, const char *path, char *err, size_t errlen);
/* Sessions (agent/session.h): the next session's file and options (o and path stay
 * valid until the next begin), its header written; -1 with err when the file cannot be
 * opened (the report stays idle). */
int report_begin_session(struct report *r, const struct options *o, const char *path, char *err, size_t errlen);
/* The session's file closed: until the next begin nothing is written (records and
 * dumps are dropped). */
void report_end_session(struct report *r);
/* A session's counts start from zero: CPU samples and times, the sites' allocations,
 * the monitors' times (the live objects stay: they are a state, not a flow). */
void report_reset_window(struct report *r, JNIEnv *jni);
/* A rolling profile's window is written: the traces only samples named, none in the
 * last `idle` windows, are forgotten (see tables/traces.h); returns how many. */
uint32_t report_forget_idle_traces(struct report *r, uint32_t idle);
/* The net= socket (commands come back on it), or -1 when the output is a file. */
int report_socket_fd(struct report *r);
/* Flushes and closes the output (VM death). */
void report_close(struct report *r);

/* A record due now (a thread's start or end, a monitor wait). */
void report_record(struct report *r, const struct live_record *rec);

/* Writes every section the options ask for, then flushes. Safe from any thread; a
 * request that comes while a dump is being written is dropped, but the one at exit.
 * false when nothing was written: dropped, or asked by the thread writing a dump. */
bool report_dump(struct report *r, JNIEnv *jni, enum dump_reason why);

/* Single sections, for socket commands: call them between report_begin_command and
 * report_end_command, which hold the dump lock and flush the answer. */
void report_begin_command(struct report *r, bool section);
void report_end_command(struct report *r, bool section);
void report_heap_dump(struct report *r, JNIEnv *jni);
/* false when heap=sites is off (nothing written). */
bool report_sites(struct report *r, JNIEnv *jni, double cutoff);
bool report_heap_summary(struct report *r, JNIEnv *jni);
void report_cpu_samples(struct report *r, double cutoff);
/* Every trace not written yet, in serial order. */
void report_traces(struct report *r);

#endif
