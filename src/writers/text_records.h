/* Building blocks of the text format, shared by every text section writer. */
#ifndef HPROF_TEXT_RECORDS_H
#define HPROF_TEXT_RECORDS_H

#include <stddef.h>

/* The time now as ctime() writes it, without the newline: "Sun Nov 22 04:05:00 2026". */
const char *text_now(char *buf, size_t n);
/* A frame's line as the text format shows it: a number, or "Unknown line" etc. */
const char *text_line(int line, char *buf, size_t n);

#endif
