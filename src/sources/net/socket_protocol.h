/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The commands a front end sends down the net= socket (format=b), as the manual
 * lays them out: u1 tag, u4 serial, u4 length, then `length` bytes of body, all
 * numbers big-endian. Pure C (no JVMTI), shared by the agent's listener and the
 * front end (tools/hprof-front), and unit-tested on its own.
 *
 * Bodies:
 *   0x01 FORCE GC, 0x02 DUMP HEAP, 0x04 HEAP SUMMARY, 0x05 EXIT THE VM,
 *   0x06 DUMP TRACES, 0x09 ALLOCS (timeline=: the allocations since the previous
 *   record, the 1997 request's HPROF_CMD_ALLOCS), 0xFF EOF   none (length 0)
 *   0x03 ALLOC SITES                    u2 flags (0x1 incremental, 0x2 by allocated
 *                                       bytes, 0x4 force GC first), u4 cutoff (float)
 *   0x07 CPU SAMPLES                    u2 ignored, u4 cutoff (float)
 *   0x08 CONTROL                        u2 sub-command, then (manual's numbering):
 *        1 alloc traces on, 2 alloc traces off         nothing more
 *        3 CPU sampling on, 4 CPU sampling off         u4 thread object ID (0 = all)
 *        5 clear CPU samples                           nothing more
 *        6 set the stack depth                         u2 depth
 * A cutoff must be a number from 0.0 to 1.0.
 */
#ifndef HPROF_SOCKET_PROTOCOL_H
#define HPROF_SOCKET_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

enum cmd_tag {
    CMD_FORCE_GC = 0x01,
    CMD_DUMP_HEAP = 0x02,
    CMD_ALLOC_SITES = 0x03,
    CMD_HEAP_SUMMARY = 0x04,
    CMD_EXIT = 0x05,
    CMD_DUMP_TRACES = 0x06,
    CMD_CPU_SAMPLES = 0x07,
    CMD_CONTROL = 0x08,
    CMD_ALLOCS = 0x09,
    CMD_EOF = 0xFF,
};

enum cmd_control {
    CTL_ALLOC_ON = 1,
    CTL_ALLOC_OFF = 2,
    CTL_CPU_ON = 3,
    CTL_CPU_OFF = 4,
    CTL_CPU_CLEAR = 5,
    CTL_DEPTH = 6,
};

#define CMD_HEADER_SIZE 9
/* The longest body any command has is 6 bytes; a length above this cannot be a
 * command, and the stream can no longer be trusted to be in step. */
#define CMD_MAX_BODY 64

struct command {
    uint8_t tag;
    uint32_t serial;
    uint32_t length;
    uint16_t flags;     /* ALLOC SITES */
    double cutoff;      /* ALLOC SITES, CPU SAMPLES */
    uint16_t control;   /* CONTROL sub-command */
    uint32_t thread_id; /* CONTROL 3/4 */
    uint16_t depth;     /* CONTROL 6 */
};

enum cmd_status {
    CMD_NEED_MORE, /* not a whole command yet; nothing used */
    CMD_READY,     /* *cmd holds a good command */
    CMD_DROPPED,   /* a whole command that is not good (why says what); skip it */
    CMD_DESYNC,    /* the length cannot be right: nothing more can be read in step */
};

/*
 * Looks at the bytes received so far. On CMD_READY and CMD_DROPPED, *used is how
 * many bytes the command took; on CMD_NEED_MORE and CMD_DESYNC it is 0. `why`
 * (may be NULL) gets a short reason for CMD_DROPPED and CMD_DESYNC.
 */
enum cmd_status cmd_next(const uint8_t *buf, size_t len, struct command *cmd, size_t *used, char *why, size_t whylen);

/*
 * Commands reassembled from the pieces a stream delivers (recv gives any split): read
 * into buf + have (sizeof buf - have bytes free, never 0 between takes), add what came
 * to `have`, then take commands until CMD_NEED_MORE. A command that did not fit is not
 * possible: the longest one fits buf. Pure C, so it is fuzzed on its own.
 */
struct cmd_stream {
    uint8_t buf[CMD_HEADER_SIZE + CMD_MAX_BODY];
    size_t have;
};

/* cmd_next on what the stream holds; a command taken (CMD_READY, CMD_DROPPED) leaves it. */
enum cmd_status cmd_stream_take(struct cmd_stream *s, struct command *cmd, char *why, size_t whylen);

/* Writes a command's bytes (header and body) into out; returns the length (0 if
 * out is too small or the command unknown). Used by the front end and tests. */
size_t cmd_encode(const struct command *cmd, uint8_t *out, size_t n);

/* "FORCE GC", "CPU SAMPLES", ... or NULL for an unknown tag. */
const char *cmd_name(uint8_t tag);

#endif
