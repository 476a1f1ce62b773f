/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The number ranges of the identifiers hprof writes, as the original agent used them:
 * readers and scripts recognise a record's kind by its range.
 */
#ifndef HPROF_IDS_H
#define HPROF_IDS_H

#define SERIAL_CLASS_BASE  100000u     /* first class serial number is 100001 */
#define SERIAL_THREAD_BASE 200000u     /* first thread serial number is 200001 */
#define SERIAL_TRACE_BASE  300000u     /* 300000 is the empty trace; real ones from 300001 */
#define ID_OBJECT_BASE     0x50000000u /* object IDs (threads, classes, heap objects) */
#define ID_FRAME_BASE      0x70000000u /* stack frame IDs */
#define ID_STRING_BASE     0xa0000000u /* UTF8 string IDs (binary output only) */

/* Line numbers of a frame that are not real lines (as in the binary STACK FRAME). */
#define LINE_NONE     0    /* the method has no line number table */
#define LINE_UNKNOWN  (-1) /* no location known (or lineno=n) */
#define LINE_COMPILED (-2)
#define LINE_NATIVE   (-3)

#endif
