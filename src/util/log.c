#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

static void emit(const char *prefix, const char *fmt, va_list ap)
{
    /* One fprintf per line keeps lines from different threads whole. */
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
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
