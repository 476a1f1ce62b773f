/*
 * Writing whole buffers to a file descriptor: write(2) and send(2) may take part of one
 * (a signal, a full pipe or socket buffer), so these go on until all is taken.
 */
#ifndef HPROF_FD_IO_H
#define HPROF_FD_IO_H

#include <stddef.h>

/* All n bytes written; 0, or -1 with errno set. */
int fd_write_all(int fd, const void *p, size_t n);
/* The same on a socket, with no SIGPIPE when the peer has gone (EPIPE instead). */
int fd_send_all(int fd, const void *p, size_t n);
/* Everything readable from in, written to out; 0, or -1 with errno set. */
int fd_copy(int in, int out);

#endif
