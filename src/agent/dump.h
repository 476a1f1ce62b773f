/* Writing the profile gathered so far: at exit, on SIGQUIT, and on request. */
#ifndef HPROF_DUMP_H
#define HPROF_DUMP_H

#include <jni.h>
#include <stdbool.h>

struct agent;

enum dump_reason { DUMP_AT_EXIT, DUMP_ON_SIGNAL };

/* Writes every section the options ask for, then flushes. Safe from any thread. */
void dump_all(struct agent *a, JNIEnv *jni, enum dump_reason why);
/* Only the CPU samples section (used by the socket command too). */
void dump_cpu_samples(struct agent *a, double cutoff);
/* Every trace not yet written, in serial order (output lock held): DUMP TRACES, and
 * the sections that name all traces before them (monitors, sites, heap dump). */
void dump_unwritten_traces(struct agent *a);

/*
 * The answers to the socket commands DUMP HEAP, ALLOC SITES and HEAP SUMMARY. They take
 * the output lock themselves. ALLOC SITES writes the complete list ranked by live bytes,
 * cut at `cutoff` (the incremental and by-allocation flags are not honoured, and the
 * record's flags say so). The last two need heap=sites: without it they write nothing
 * and return false.
 */
void dump_heap_section(struct agent *a, JNIEnv *jni);
bool dump_sites(struct agent *a, JNIEnv *jni, unsigned flags, double cutoff);
bool dump_heap_summary(struct agent *a, JNIEnv *jni);

#endif
