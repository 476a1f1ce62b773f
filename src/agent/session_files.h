/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The files of sessions and rolling windows (agent/session.h): their names, file= with
 * each %t replaced by the window's start, and keep=<n>, which deletes all but the last
 * n a rolling profile wrote (only files this agent wrote, by the names it gave them).
 */
#ifndef HPROF_SESSION_FILES_H
#define HPROF_SESSION_FILES_H

#include <stddef.h>
#include <stdint.h>

/* "20261127T101500Z": when (wall clock, ns), in UTC. */
void session_stamp(int64_t when_ns, char *buf, size_t len);
/* file= with each %t replaced by session_stamp(when_ns), malloc'd; NULL when out of
 * memory. */
char *session_file_name(const char *pattern, int64_t when_ns);

/* The files a rolling profile wrote, oldest first. */
struct kept_files {
    char **paths;
    int n;
};

/* path is written: with keep > 0, the oldest beyond keep are deleted. */
void kept_files_add(struct kept_files *k, int keep, const char *path);
/* A new session: the files before it are no longer counted (nor deleted). */
void kept_files_forget(struct kept_files *k);

#endif
