/* SPDX-License-Identifier: Apache-2.0 */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* This thread's capture (log_capture_begin), if any: per thread, so that messages of
 * other threads (a sampler's) still go to stderr. */
static _Thread_local char *capture_buf;
static _Thread_local size_t capture_len;

void log_capture_begin(char *buf, size_t len)
{
    capture_buf = len ? buf : NULL;
    capture_len = len;
    if (capture_buf) capture_buf[0] = 0;
}

void log_capture_end(void) { capture_buf = NULL; }

static void emit(const char *prefix, const char *fmt, va_list ap)
{
    /* One fprintf per line keeps lines from different threads whole. */
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    if (capture_buf) {
        size_t used = strlen(capture_buf);
        snprintf(capture_buf + used, capture_len - used, "%s%s\n", prefix, line);
        return;
    }
    fprintf(stderr, "%s%s\n", prefix, line);
    fflush(stderr);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("HPROF ERROR: ", fmt, ap);
    va_end(ap);
}

void log_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("HPROF WARNING: ", fmt, ap);
    va_end(ap);
}

void log_plain(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}
