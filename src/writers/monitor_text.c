/* SPDX-License-Identifier: Apache-2.0 */
#include "writers/monitor_text.h"

#include <stdio.h>
#include <string.h>

#include "tables/classes.h"
#include "tables/ids.h"
#include "tables/monitors.h"
#include "tables/traces.h"
#include "util/buf.h"
#include "writers/output.h"
#include "writers/text_records.h"
#include "writers/writer.h"

const char *monitor_status(int32_t state, char *buf, size_t n)
{
    const char *base;
    if (!(state & JVMTI_THREAD_STATE_ALIVE))
        base = (state & JVMTI_THREAD_STATE_TERMINATED) ? "ZO" : "NS";
    else if (state & JVMTI_THREAD_STATE_SLEEPING)
        base = "SL";
    else if (state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        base = "MW";
    else if (state & JVMTI_THREAD_STATE_WAITING)
        base = "CW";
    else if (state & JVMTI_THREAD_STATE_RUNNABLE)
        base = "R";
    else
        base = "UN";
    snprintf(buf, n, "%s%s%s%s", (state & JVMTI_THREAD_STATE_SUSPENDED) ? "S|" : "",
             (state & JVMTI_THREAD_STATE_INTERRUPTED) ? "intr|" : "",
             (state & JVMTI_THREAD_STATE_IN_NATIVE) ? "native|" : "", base);
    return buf;
}

static void thread_part(struct buf *b, uint32_t serial)
{
    if (serial)
        buf_printf(b, "thread %u\n", serial);
    else
        buf_printf(b, "<unknown thread>\n");
}

void monitor_text_wait(struct writer_ctx *w, const char *signature, int64_t timeout_ms, uint32_t thread_serial)
{
    struct buf *b = output_buf(w->out);
    buf_printf(b, "WAIT: MONITOR %s, timeout=%lld, ", signature, (long long)timeout_ms);
    thread_part(b, thread_serial);
    output_record_end(w->out);
}

void monitor_text_waited(struct writer_ctx *w, const char *signature, int64_t waited_ms, uint32_t thread_serial)
{
    struct buf *b = output_buf(w->out);
    buf_printf(b, "WAITED: MONITOR %s, time_waited=%lld, ", signature, (long long)waited_ms);
    thread_part(b, thread_serial);
    output_record_end(w->out);
}

static void serial_list(struct buf *b, const char *title, const uint32_t *serials, int n)
{
    buf_printf(b, "\t%s:", title);
    for (int i = 0; i < n; i++) buf_printf(b, " thread %u%s", serials[i], i + 1 < n ? "," : "");
    buf_printf(b, "\n");
}

void monitor_text_dump(struct writer_ctx *w, const struct monitor_dump_monitor *mons, int nmons,
                       const struct monitor_dump_thread *threads, int nthreads)
{
    struct buf *b = output_buf(w->out);
    buf_printf(b, "MONITOR DUMP BEGIN\n");
    for (int i = 0; i < nmons; i++) {
        const struct monitor_dump_monitor *m = &mons[i];
        if (m->owner) {
            buf_printf(b, "    MONITOR %s\n", m->signature);
            buf_printf(b, "\towner: thread %u, entry count: %d\n", m->owner, m->entry_count);
        } else {
            buf_printf(b, "    MONITOR %s unowned\n", m->signature);
        }
        serial_list(b, "waiting to enter", m->enter_waiters, m->nenter_waiters);
        serial_list(b, "waiting to be notified", m->notify_waiters, m->nnotify_waiters);
        output_record_end(w->out);
    }
    for (int i = 0; i < nthreads; i++) {
        char status[40];
        buf_printf(b, "    THREAD %u, trace %u, status: %s\n", threads[i].serial, threads[i].trace_serial,
                   monitor_status(threads[i].state, status, sizeof status));
        output_record_end(w->out);
    }
    buf_printf(b, "MONITOR DUMP END\n");
    output_record_end(w->out);
}

void monitor_text_time(struct writer_ctx *w, const char *title, const struct monitor_times *t)
{
    struct buf *b = output_buf(w->out);
    char when[64];
    uint64_t total_ms = t->total_ns / 1000000u;
    buf_printf(b, "%s BEGIN (total = %llu ms) %s\n", title, (unsigned long long)total_ms, text_now(when, sizeof when));
    if (t->nrows > 0) buf_printf(b, "rank   self  accum   count trace monitor\n");
    uint64_t sum = 0;
    for (int i = 0; i < t->nrows; i++) {
        const struct monitor_entry *e = t->rows[i].entry;
        text_rank_row(b, i + 1, t->rows[i].ns, &sum, t->total_ns, t->rows[i].count,
                      e->trace ? e->trace->serial : SERIAL_TRACE_BASE);
        /* A j.u.c lock is told from a monitor of its class; a park with no blocker has
         * no class: "(none)". */
        const char *name = e->cls && e->cls->name ? e->cls->name : e->juc && !e->cls ? "(none)" : "<Unknown class>";
        buf_printf(b, " %s (%s)\n", name, e->juc ? "j.u.c" : "Java");
        output_record_end(w->out);
    }
    buf_printf(b, "%s END\n", title);
    output_record_end(w->out);
}

void monitor_text_sections(struct writer_ctx *w, const struct monitor_snapshot *s)
{
    monitor_text_dump(w, s->mons, s->nmons, s->threads, s->nthreads);
    if (s->contended.total_count > 0) monitor_text_time(w, MONITOR_TIME_TITLE, &s->contended);
    if (s->waits.total_count > 0) monitor_text_time(w, MONITOR_WAIT_TIME_TITLE, &s->waits);
}
