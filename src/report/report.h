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

#include "writers/output.h"
#include "writers/writer.h"

struct host;
struct live_record;

struct report {
    struct host *h;                  /* the sources and tables it reports */
    struct output out;
    const struct writer *writer;     /* text or binary */
    struct writer_ctx wctx;
    pthread_mutex_t dump_lock;       /* one dump at a time */
    unsigned dumps;                  /* dumps and section commands so far, but the one at exit */
    unsigned view_seq;               /* view=: the number in the views' names (0 at exit) */
    struct report_timeline *tl;      /* timeline= (report_timeline.h); NULL if off */
    int top;                         /* top=N (0: every row) */
};

/* A signal's request is dropped while a dump is under way; the others wait for it. */
enum dump_reason { DUMP_AT_EXIT, DUMP_ON_SIGNAL, DUMP_ON_REQUEST };

/* Opens the file or socket the options name and writes the file's header; on failure
 * says why in err and returns -1. */
int report_open(struct report *r, struct host *h, char *err, size_t errlen);
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
/* top=N: at most N of n rows (all when top= is not given). */
static inline int report_top(const struct report *r, int n) { return r->top > 0 && n > r->top ? r->top : n; }
/* Every trace not written yet, in serial order. */
void report_traces(struct report *r);

#endif
