/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the profile goes: a file or a TCP peer, behind one lock.
 *
 * Writers append whole records to the buffer while holding the lock and mark each
 * record's end. Should a write fail part way (a full disk, a file size limit), the file
 * is cut back to the last record end that reached it, so it holds whole records only,
 * every one written before the failure. A peer that accepts nothing for NET_STALL_MS
 * is dropped. The first failure is reported once; later output is dropped and the
 * program goes on.
 */
#ifndef HPROF_OUTPUT_H
#define HPROF_OUTPUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct output_pipe;
struct output_hold;

/* A peer that takes no byte for this long is dropped (a stalled reader must not hold
 * the program: records are written from its threads and at its exit). */
#define NET_STALL_MS 10000

/* Where the records in a buffer not yet written end (offsets into it, ascending). */
struct record_ends {
    size_t *at;
    size_t n, cap;
};

struct output {
    pthread_mutex_t lock;
    int fd;
    bool is_socket;
    bool failed;
    char *name;               /* file path, or host:port */
    struct buf buf;           /* whole records not yet written */
    struct record_ends ends;  /* ... and where each of them ends */
    struct output_pipe *pipe; /* a writing thread, during a heap dump (see below) */
    struct output_hold *hold; /* records held back in a spool file (see below) */
    uint64_t flushed;         /* bytes that reached the file */
    uint64_t start_micros;    /* binary record times count from here */
    uint64_t header_millis;   /* the header's time stamp */
};

/*
 * Opens `path` for writing. With force, an existing file is replaced; without, a new
 * name is chosen (see open_new) and *chosen_name set to it (caller frees). 0 on success; otherwise
 * err holds the reason.
 */
int output_open_file(struct output *o, const char *path, bool text, bool force, char **chosen_name, char *err,
                     size_t errlen);
/* No output (viewonly=y): records are built and dropped. */
void output_open_none(struct output *o);
/* A session's next file (lock held): what the last one was owed is written and it is
 * closed, then records go to `path` (as output_open_file opens it), or nowhere. */
int output_reopen_file(struct output *o, const char *path, bool text, bool force, char **chosen_name, char *err,
                       size_t errlen);
void output_reopen_none(struct output *o);
/* The file written out and closed (lock held): later records are dropped until a
 * reopen. A socket stays as it is. */
void output_end_file(struct output *o);
/* Connects to host:port. 0 on success; otherwise err holds the reason. */
int output_open_socket(struct output *o, const char *host, int port, char *err, size_t errlen);

void output_lock(struct output *o);
void output_unlock(struct output *o);
/* The record buffer (lock held). */
static inline struct buf *output_buf(struct output *o) { return &o->buf; }
/* A record ends here: write out once enough has gathered (lock held). */
void output_record_end(struct output *o);
/* Writes out everything buffered (lock held). */
void output_flush(struct output *o);
/*
 * Between these two (lock held) the buffered records are written by a thread of their
 * own while the caller builds the next ones: for heap dumps, where the copy into the
 * kernel is half the time. Without a thread, writes stay on the caller's.
 */
void output_pipe_begin(struct output *o);
void output_pipe_end(struct output *o);
/*
 * Holding records back (lock held), for a section whose first record says what follows
 * it (text HEAP DUMP BEGIN's totals): between output_hold_begin and output_hold_stop
 * the records go to a spool file of the agent's own (an unnamed file beside the output,
 * else in TMPDIR; nothing is left behind); output_hold_release then writes them out
 * after what was written since output_hold_stop. false when no spool can be had: the
 * records go straight out then.
 */
bool output_hold_begin(struct output *o);
void output_hold_stop(struct output *o);
void output_hold_release(struct output *o);
/* Flushes and closes (takes the lock). */
void output_close(struct output *o);
/* Microseconds since the header's time stamp, for binary record headers. */
uint32_t output_micros(struct output *o);

/* The socket's descriptor, for reading commands; -1 for a file. */
int output_socket_fd(struct output *o);

#endif
