/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing whole buffers to a file descriptor: write(2) and send(2) may take part of one
 * (a signal, a full pipe or socket buffer), so these go on until all is taken.
 */
#ifndef HPROF_FD_IO_H
#define HPROF_FD_IO_H

#include <limits.h>
#include <stddef.h>

/* Room for a path and what the agent adds to it (a number, .tmp-XXXXXX, a view's suffix). */
#define FD_PATH_MAX (PATH_MAX + 104)

/* All n bytes written; 0, or -1 with errno set. */
int fd_write_all(int fd, const void *p, size_t n);
/* The same on a socket, with no SIGPIPE when the peer has gone (EPIPE instead). */
int fd_send_all(int fd, const void *p, size_t n);
/* Everything readable from in, written to out; 0, or -1 with errno set. */
int fd_copy(int in, int out);

/*
 * Files the agent makes hold a program's data (a heap dump holds every secret of it), so
 * they are its user's alone: 0600, as HotSpot makes its dumps.
 */
/* Takes group's and others' bits off a regular file (one opened with O_TRUNC keeps its
 * old mode); leaves devices and pipes alone. */
void fd_make_private(int fd);
/* A new 0600 file beside path with a random name (path.tmp-XXXXXX): created with O_EXCL,
 * so a file or a link planted at the name is never opened. Its name goes to *tmp (to
 * free). -1 with errno. */
int fd_temp_beside(const char *path, char **tmp);
/* n bytes into path through such a file, renamed over path once whole (a reader never
 * sees half of it). 0, or -1 with errno set. */
int fd_write_file(const char *path, const void *p, size_t n);

#endif
