/*
 * Where the profile goes: a file or a TCP peer, behind one lock.
 *
 * Writers append whole records to the buffer while holding the lock and mark each
 * record's end; the buffer is only ever written out at a record boundary, so a
 * failing disk or a vanished peer leaves the output readable up to the last whole
 * record. The first failure is reported once; later output is dropped and the
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

struct output {
    pthread_mutex_t lock;
    int fd;
    bool is_socket;
    bool failed;
    char *name;                  /* file path, or host:port */
    struct buf buf;              /* whole records not yet written */
    struct output_pipe *pipe;    /* a writing thread, during a heap dump (see below) */
    uint64_t flushed;            /* bytes that reached the file */
    uint64_t start_micros;       /* binary record times count from here */
    uint64_t header_millis;      /* the header's time stamp */
};

/*
 * Opens `path` for writing. With force, an existing file is replaced; without, a new
 * name is chosen (see open_new) and *chosen_name set to it (caller frees). 0 on success; otherwise
 * err holds the reason.
 */
int output_open_file(struct output *o, const char *path, bool text, bool force, char **chosen_name,
                     char *err, size_t errlen);
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
/* Flushes and closes (takes the lock). */
void output_close(struct output *o);
/* Microseconds since the header's time stamp, for binary record headers. */
uint32_t output_micros(struct output *o);

/* The socket's descriptor, for reading commands; -1 for a file. */
int output_socket_fd(struct output *o);

#endif
