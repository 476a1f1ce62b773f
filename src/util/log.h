/* Messages to the user on stderr: errors, warnings and the verbose "Dumping" lines. */
#ifndef HPROF_LOG_H
#define HPROF_LOG_H

#if defined(__GNUC__)
#define HPROF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HPROF_PRINTF(a, b)
#endif

/* "HPROF ERROR: <message>" */
void log_error(const char *fmt, ...) HPROF_PRINTF(1, 2);
/* "HPROF WARNING: <message>" */
void log_warning(const char *fmt, ...) HPROF_PRINTF(1, 2);
/* A plain line with no prefix (used for the verbose dump messages). */
void log_plain(const char *fmt, ...) HPROF_PRINTF(1, 2);

#endif
