/* SPDX-License-Identifier: Apache-2.0 */
/* monitor=y on java.util.concurrent: MONITOR DUMP's rows (juc_waits_dump.c). */
#ifndef HPROF_JUC_WAITS_DUMP_H
#define HPROF_JUC_WAITS_DUMP_H

#include <jni.h>

struct host;
struct monitor_snapshot;

/* Adds to snap a row for each object threads are parked on now, with the threads
 * waiting to enter it (a lock) or to be notified (a condition, a queue ...). */
void juc_waits_dump(struct host *h, JNIEnv *jni, struct monitor_snapshot *snap);

#endif
