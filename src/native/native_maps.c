/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/self/maps into a sorted table of readable ranges (native_maps.h). */
#include "native/native_maps.h"
#include "native/native_text.h"

#include <stdlib.h>
#include <string.h>

/* One line's fields; *pos is left at the next line. */
struct nm_line {
    uintptr_t start, end;
    uint64_t offset;
    uint32_t perms;
    const char *path;
    size_t path_len;
};

/* A hex number of 1 to 16 digits at *p; false when there is none or it is longer. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;
    const char *s = *p;
    for (; s < end; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            break;
        if (++digits > 16) return false;
        v = (v << 4) | (uint64_t)d;
    }
    *p = s;
    *out = v;
    return digits > 0;
}

static const char *skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s;
}

/* Skips one field of non-blanks; false when there was none. */
static bool skip_field(const char **p, const char *end)
{
    const char *s = *p;
    while (s < end && *s != ' ' && *s != '\t') s++;
    if (s == *p) return false;
    *p = s;
    return true;
}

/* "start-end perms offset dev inode [path]" within [s, end): false when malformed. */
static bool parse_line(const char *s, const char *end, struct nm_line *l)
{
    uint64_t a, b;
    if (!parse_hex(&s, end, &a) || s >= end || *s++ != '-' || !parse_hex(&s, end, &b) || b <= a) return false;
    if ((uint64_t)(uintptr_t)b != b) return false;
    s = skip_spaces(s, end);
    if (end - s < 4) return false;
    l->perms = (s[0] == 'r' ? NM_PERM_R : 0) | (s[1] == 'w' ? NM_PERM_W : 0) | (s[2] == 'x' ? NM_PERM_X : 0);
    if (!skip_field(&s, end)) return false;
    s = skip_spaces(s, end);
    if (!parse_hex(&s, end, &l->offset)) return false;
    s = skip_spaces(s, end);
    if (!skip_field(&s, end)) return false; /* dev */
    s = skip_spaces(s, end);
    if (!skip_field(&s, end)) return false; /* inode */
    s = skip_spaces(s, end);
    l->start = (uintptr_t)a;
    l->end = (uintptr_t)b;
    l->path = s;
    l->path_len = (size_t)(end - s);
    return true;
}

/* Pages the kernel shows readable but that fault when read (the vDSO's data pages). */
static bool never_read(const struct nm_line *l) { return l->path_len >= 5 && memcmp(l->path, "[vvar", 5) == 0; }

static int cmp_range(const void *a, const void *b)
{
    const struct nm_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Appends a path to names; NM_NO_PATH for none. -1 when out of memory. */
static int add_path(struct nm_maps *m, size_t *cap, const char *p, size_t n, uint32_t *at)
{
    *at = NM_NO_PATH;
    if (n == 0) return 0;
    if (n > NM_MAX_PATH) n = NM_MAX_PATH;
    if (m->names_len + n + 1 > UINT32_MAX) return 0;
    if (m->names_len + n + 1 > *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        while (c < m->names_len + n + 1) c *= 2;
        char *q = realloc(m->names, c);
        if (!q) return -1;
        m->names = q;
        *cap = c;
    }
    memcpy(m->names + m->names_len, p, n);
    m->names[m->names_len + n] = 0;
    *at = (uint32_t)m->names_len;
    m->names_len += n + 1;
    return 0;
}

/* Reads every line into m->ranges (unsorted). -1 when out of memory. */
static int collect(const char *text, size_t len, struct nm_maps *m)
{
    size_t cap = 0, names_cap = 0;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        struct nm_line l;
        if (eol == s) {
            s = eol + 1;
            continue;
        }
        if (!parse_line(s, eol, &l) || m->nranges >= NM_MAX_RANGES) {
            m->skipped++;
        } else if ((l.perms & NM_PERM_R) && !never_read(&l)) {
            if (m->nranges == cap) {
                cap = cap ? cap * 2 : 256;
                struct nm_range *r = realloc(m->ranges, cap * sizeof *r);
                if (!r) return -1;
                m->ranges = r;
            }
            struct nm_range *r = &m->ranges[m->nranges];
            r->start = l.start;
            r->end = l.end;
            r->offset = l.offset;
            r->perms = l.perms;
            if (add_path(m, &names_cap, l.path, l.path_len, &r->path) != 0) return -1;
            m->nranges++;
        }
        s = eol + 1;
    }
    return 0;
}

/* Sorts the ranges and drops any that overlaps the one before (hostile text only). */
static void sort_ranges(struct nm_maps *m)
{
    if (m->nranges > 1) qsort(m->ranges, m->nranges, sizeof *m->ranges, cmp_range);
    size_t n = 0;
    for (size_t i = 0; i < m->nranges; i++) {
        if (n > 0 && m->ranges[i].start < m->ranges[n - 1].end) {
            m->skipped++;
            continue;
        }
        m->ranges[n++] = m->ranges[i];
    }
    m->nranges = n;
}

static int merge_spans(struct nm_maps *m)
{
    m->spans = malloc((m->nranges ? m->nranges : 1) * sizeof *m->spans);
    if (!m->spans) return -1;
    for (size_t i = 0; i < m->nranges; i++) {
        if (m->nspans > 0 && m->spans[m->nspans - 1].end == m->ranges[i].start)
            m->spans[m->nspans - 1].end = m->ranges[i].end;
        else
            m->spans[m->nspans++] = (struct nm_span){m->ranges[i].start, m->ranges[i].end};
    }
    return 0;
}

int nm_maps_parse(const char *text, size_t len, struct nm_maps *out)
{
    memset(out, 0, sizeof *out);
    if (collect(text, len, out) != 0) goto fail;
    sort_ranges(out);
    if (merge_spans(out) != 0) goto fail;
    return 0;
fail:
    nm_maps_free(out);
    return -1;
}

int nm_maps_read_self(struct nm_maps *out)
{
    memset(out, 0, sizeof *out);
    size_t n;
    char *buf = ntx_read("/proc/self/maps", (size_t)64 << 20, &n);
    if (!buf) return -1;
    int rc = nm_maps_parse(buf, n, out);
    free(buf);
    return rc;
}

void nm_maps_free(struct nm_maps *m)
{
    free(m->ranges);
    free(m->spans);
    free(m->names);
    memset(m, 0, sizeof *m);
}

const struct nm_span *nm_maps_span(const struct nm_maps *m, uintptr_t addr)
{
    size_t lo = 0, hi = m->nspans;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->spans[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->nspans && m->spans[lo].start <= addr) return &m->spans[lo];
    return NULL;
}

bool nm_maps_readable(const struct nm_maps *m, uintptr_t addr, size_t len)
{
    const struct nm_span *s = nm_maps_span(m, addr);
    return s && len <= s->end - addr;
}

const struct nm_range *nm_maps_find(const struct nm_maps *m, uintptr_t addr)
{
    size_t lo = 0, hi = m->nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ranges[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->nranges && m->ranges[lo].start <= addr) return &m->ranges[lo];
    return NULL;
}

const char *nm_maps_path(const struct nm_maps *m, const struct nm_range *r)
{
    return r->path == NM_NO_PATH || r->path >= m->names_len ? "" : m->names + r->path;
}
