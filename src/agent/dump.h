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

#endif
