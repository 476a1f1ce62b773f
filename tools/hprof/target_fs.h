/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JVM's files, reached as the JVM's user and inside its root. Every path the JVM or
 * its user may choose (what the agent answers, the JVM's /tmp and working directory, a
 * container's symbolic links) is opened by a child process that has dropped to the
 * JVM's uid, gid and groups (when this tool runs as root), resolved from a descriptor of
 * /proc/<pid>/root (or /cwd) with no symbolic link followed and no way above that root.
 * The child hands back a descriptor or a name: this tool never opens such a path itself
 * as another user than the JVM's. When it is that user already (not root, or the JVM is
 * root's), the same steps run in this process, with no fork.
 *
 * Paths are the JVM's own ("/tmp/x"); each function returns 0, or -1 with errno set.
 */
#ifndef HPROF_TOOL_TARGET_FS_H
#define HPROF_TOOL_TARGET_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "target.h"

/* A regular file of the JVM's user, for reading (never a FIFO, a device or a link);
 * its size at open in *size: what a copy takes, at most. */
int tfs_open_read(const struct target *t, const char *path, int *fd, off_t *size);

/* The JVM's jvmstat file, /tmp/hsperfdata_<user>/<its pid as it sees it>, opened as
 * tfs_open_read opens a file; its size at open in *size. */
int tfs_open_perfdata(const struct target *t, int *fd, off_t *size);

/* Does reaching the JVM's files take a child (this tool is root, the JVM another user's)? */
bool tfs_needs_child(const struct target *t);

/* The JVM's attach socket at path, checked as jcmd does (a socket of the JVM's user and
 * group, closed to others): an O_PATH descriptor to connect through. */
int tfs_open_socket(const struct target *t, const char *path, int *fd);

/* A new folder (0700, the JVM's user's) in the JVM's folder dir, named prefix + random
 * letters: its name in name[]. */
int tfs_mkdtemp(const struct target *t, const char *dir, const char *prefix, char *name, size_t len);

/* Removes dir/file (when file is not NULL), then the folder dir when it is empty. */
int tfs_remove(const struct target *t, const char *dir, const char *file);

/* dir/name, a new empty file (O_EXCL) in the JVM's working directory (in_cwd) or dir. */
int tfs_create(const struct target *t, int in_cwd, const char *dir, const char *name);

int tfs_unlink(const struct target *t, int in_cwd, const char *dir, const char *name);

/* dir (made 0700 when missing; the JVM's user's) holds name, a copy of src (mode 0755)
 * unless one is there already. */
int tfs_install(const struct target *t, const char *dir, const char *name, int src);

/* Copies at most max bytes from in to out; 0 or -1. */
int tfs_copy_bounded(int in, int out, off_t max);

#endif
