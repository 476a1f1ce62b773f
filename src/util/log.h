/* SPDX-License-Identifier: Apache-2.0 */
/* Messages to the user on stderr: errors, warnings and the verbose "Dumping" lines. */
#ifndef HPROF_LOG_H
#define HPROF_LOG_H

#include <stddef.h>

#if defined(__GNUC__)
#define HPROF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HPROF_PRINTF(a, b)
/* Until log_capture_end, this thread's messages are appended to buf (cut at len)
 * instead of going to stderr: an attach request's answer goes back to the tool. */
void log_capture_begin(char *buf, size_t len);
void log_capture_end(void);

#endif

/* "HPROF ERROR: <message>" */
void log_error(const char *fmt, ...) HPROF_PRINTF(1, 2);
/* "HPROF WARNING: <message>" */
void log_warning(const char *fmt, ...) HPROF_PRINTF(1, 2);
/* A plain line with no prefix (used for the verbose dump messages). */
void log_plain(const char *fmt, ...) HPROF_PRINTF(1, 2);

/* Until log_capture_end, this thread's messages are appended to buf (cut at len)
 * instead of going to stderr: an attach request's answer goes back to the tool. */
void log_capture_begin(char *buf, size_t len);
void log_capture_end(void);

#endif
