/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the memory-map parser (native/native_maps.c): the input is
 * /proc/self/maps text. Invariants: ranges sorted and apart, each readable and inside
 * one span; spans sorted with gaps between them; every path NUL-terminated inside the
 * names; a lookup of each range's bounds finds it; nothing past the ends is readable. */
#include "fuzz_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/native_maps.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

static void check_range(const struct nm_maps *m, size_t i)
{
    const struct nm_range *r = &m->ranges[i];
    if (r->start >= r->end) broken("an empty range");
    if (i > 0 && m->ranges[i - 1].end > r->start) broken("ranges overlap or are out of order");
    if (!(r->perms & NM_PERM_R)) broken("an unreadable range kept");
    if (!nm_maps_readable(m, r->start, r->end - r->start)) broken("a range is not readable");
    if (nm_maps_find(m, r->start) != r || nm_maps_find(m, r->end - 1) != r) broken("a range's bounds find another");
    if (r->path != NM_NO_PATH && (r->path >= m->names_len || !memchr(m->names + r->path, 0, m->names_len - r->path)))
        broken("a path outside the names");
    if (strlen(nm_maps_path(m, r)) > NM_MAX_PATH) broken("a path past the bound");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nm_maps m;
    if (nm_maps_parse((const char *)data, size, &m) != 0) return 0;
    for (size_t i = 0; i < m.nranges; i++) check_range(&m, i);
    for (size_t i = 0; i < m.nspans; i++) {
        const struct nm_span *s = &m.spans[i];
        if (s->start >= s->end) broken("an empty span");
        if (i > 0 && m.spans[i - 1].end >= s->start) broken("spans touch, overlap or are out of order");
        if (s->end != UINTPTR_MAX && nm_maps_readable(&m, s->end, 1)) broken("the byte after a span is readable");
        if (s->start > 0 && nm_maps_readable(&m, s->start - 1, 1)) broken("the byte before a span is readable");
        if (nm_maps_readable(&m, s->start, s->end - s->start + 1)) broken("a read past a span's end is readable");
    }
    nm_maps_free(&m);
    return 0;
}
