/* SPDX-License-Identifier: Apache-2.0 */
#include "agent/session_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

void session_stamp(int64_t when_ns, char *buf, size_t len)
{
    time_t t = (time_t)(when_ns / 1000000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

char *session_file_name(const char *pattern, int64_t when_ns)
{
    char when[32];
    session_stamp(when_ns, when, sizeof when);
    size_t n = strlen(pattern) + 1;
    for (const char *p = pattern; (p = strstr(p, "%t")) != NULL; p += 2) n += strlen(when);
    char *out = malloc(n), *o = out;
    if (!out) return NULL;
    for (const char *p = pattern; *p;) {
        if (p[0] == '%' && p[1] == 't') {
            o = stpcpy(o, when);
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

void kept_files_add(struct kept_files *k, int keep, const char *path)
{
    if (!keep || !path) return;
    char **grown = realloc(k->paths, (size_t)(k->n + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        if (grown) k->paths = grown;
        return;
    }
    k->paths = grown;
    k->paths[k->n++] = copy;
    while (k->n > keep) {
        if (unlink(k->paths[0]) != 0 && errno != ENOENT)
            log_warning("keep=: cannot delete %s: %s", k->paths[0], strerror(errno));
        free(k->paths[0]);
        memmove(k->paths, k->paths + 1, (size_t)(--k->n) * sizeof *k->paths);
    }
}

void kept_files_forget(struct kept_files *k)
{
    for (int i = 0; i < k->n; i++) free(k->paths[i]);
    free(k->paths);
    k->paths = NULL;
    k->n = 0;
}
