/* The class sweeper (see class_sweeper.c): the tables forget unloaded classes. */
#ifndef HPROF_CLASS_SWEEPER_H
#define HPROF_CLASS_SWEEPER_H

#include <jni.h>
#include <stdint.h>

struct host;

struct class_sweep_stats {
    uint64_t classes;      /* class entries made vacant */
    uint64_t numbered;     /* instrumented classes made vacant */
    uint64_t aliases;      /* jmethodIDs forgotten */
    uint64_t raw_traces;   /* raw trace keys forgotten */
};

/* One pass, on the sweeper's thread (or a test's, the sweeper not running). */
struct class_sweep_stats class_sweeper_pass(struct host *h, JNIEnv *jni);
/* What every pass so far has swept. */
struct class_sweep_stats class_sweeper_totals(struct host *h);

#endif
