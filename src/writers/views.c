/* SPDX-License-Identifier: Apache-2.0 */
/* Which view a file name asks for, and writing one to a file. */
#include "writers/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fd_io.h"

static const struct {
    int kind;
    const char *ext;
} EXTENSIONS[] = {
    {VIEW_HTML, ".html"},
    {VIEW_COLLAPSED, ".collapsed"},
    {VIEW_PPROF, ".pb.gz"},
};

#define NEXT (sizeof EXTENSIONS / sizeof EXTENSIONS[0])

int view_kind_of_path(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < NEXT; i++) {
        size_t e = strlen(EXTENSIONS[i].ext);
        if (n > e && strcmp(path + n - e, EXTENSIONS[i].ext) == 0) return EXTENSIONS[i].kind;
    }
    return 0;
}

const char *view_extension(int kind)
{
    for (size_t i = 0; i < NEXT; i++)
        if (EXTENSIONS[i].kind == kind) return EXTENSIONS[i].ext;
    return "";
}

static int build(const struct stack_profile *p, const struct stack_profile *base, int kind, struct buf *b)
{
    switch (kind) {
    case VIEW_HTML: return view_flamegraph(p, base, b);
    case VIEW_COLLAPSED: return view_collapsed(p, p->main_type, b);
    case VIEW_PPROF: return view_pprof(p, b);
    default: return -1;
    }
}

int view_write_file(const struct stack_profile *p, const struct stack_profile *base, int kind, const char *path,
                    char *err, size_t errlen)
{
    struct buf b;
    buf_init(&b);
    if (build(p, base, kind, &b) != 0) {
        snprintf(err, errlen, "out of memory building %s", path);
        buf_free(&b);
        return -1;
    }
    int rc = fd_write_file(path, b.data, b.len);
    if (rc) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    buf_free(&b);
    return rc;
}
