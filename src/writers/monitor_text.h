/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text of monitor=y (there is no binary form: format=b with monitor=y is an
 * option error, as in the original). Every call needs the output lock held.
 *
 *   WAIT: MONITOR <sig>, timeout=<ms>, thread <id>          when Object.wait begins
 *   WAITED: MONITOR <sig>, time_waited=<ms>, thread <id>    when it ends
 *   MONITOR DUMP BEGIN ... END     monitors in use (owner, entry count, threads
 *                                  waiting to enter and to be notified), then every
 *                                  thread with its trace and state
 *   MONITOR TIME BEGIN (total = N ms) <date> ... MONITOR TIME END
 *                                  contention: time blocked entering a monitor, per
 *                                  trace and monitor class (as in the original)
 *   MONITOR WAIT TIME BEGIN (total = N ms) <date> ... MONITOR WAIT TIME END
 *                                  time in Object.wait (so Thread.join too), the same
 *                                  layout; a section of its own (not in the original)
 *                                  so that waits never pass for contention
 */
#ifndef HPROF_MONITOR_TEXT_H
#define HPROF_MONITOR_TEXT_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

struct writer_ctx;
struct monitor_times;
struct monitor_dump_monitor;
struct monitor_dump_thread;

/* The status column of a thread: "R", "CW", "MW", "SL", "ZO", "NS", "UN", with "S|",
 * "intr|" and "native|" in front when suspended, interrupted or in native code. */
const char *monitor_status(int32_t state, char *buf, size_t n);

void monitor_text_wait(struct writer_ctx *w, const char *signature, int64_t timeout_ms, uint32_t thread_serial);
void monitor_text_waited(struct writer_ctx *w, const char *signature, int64_t waited_ms, uint32_t thread_serial);
void monitor_text_dump(struct writer_ctx *w, const struct monitor_dump_monitor *mons, int nmons,
                       const struct monitor_dump_thread *threads, int nthreads);
#define MONITOR_TIME_TITLE      "MONITOR TIME"
#define MONITOR_WAIT_TIME_TITLE "MONITOR WAIT TIME"

/* The section `title` (one of the two above) of rows already cut at the cutoff. */
void monitor_text_time(struct writer_ctx *w, const char *title, const struct monitor_times *t);

/* The sections of a monitor dump from one snapshot: MONITOR DUMP, then MONITOR TIME and
 * MONITOR WAIT TIME, each only when something blocked or waited since the last dump. */
struct monitor_snapshot;
void monitor_text_sections(struct writer_ctx *w, const struct monitor_snapshot *s);

#endif
