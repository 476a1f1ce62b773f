/* Writing the profile gathered so far: at exit, on SIGQUIT, and on request. */
#ifndef HPROF_DUMP_H
#define HPROF_DUMP_H

#include <jni.h>

struct agent;

enum dump_reason { DUMP_AT_EXIT, DUMP_ON_SIGNAL, DUMP_ON_REQUEST };

/* Writes every section the options ask for, then flushes. Safe from any thread. */
void dump_all(struct agent *a, JNIEnv *jni, enum dump_reason why);
/* Only the CPU samples section (used by the socket command too). */
void dump_cpu_samples(struct agent *a, double cutoff);
/* Every trace not yet written, in serial order (output lock held): DUMP TRACES, and
 * the sections that name all traces before them (monitors, sites, heap dump). */
void dump_unwritten_traces(struct agent *a);

/*
 * The answers to the socket commands DUMP HEAP, ALLOC SITES (flags and cutoff as the
 * command gives them) and HEAP SUMMARY. They take the output lock themselves. The last
 * two belong to heap=sites and are declared weak: a build without them leaves them NULL
 * and the listener answers those commands with nothing.
 */
void dump_heap_section(struct agent *a, JNIEnv *jni);
void dump_sites(struct agent *a, JNIEnv *jni, unsigned flags, double cutoff) __attribute__((weak, visibility("hidden")));
void dump_heap_summary(struct agent *a, JNIEnv *jni) __attribute__((weak, visibility("hidden")));

#endif
