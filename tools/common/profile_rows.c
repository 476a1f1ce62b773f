/* SPDX-License-Identifier: Apache-2.0 */
/* The traces and section rows a reader gathers, and the stacks made of them.
 * Calls table.c and writers/stack_profile.c. */
#include "profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name; /* for --section */
    const char *mode; /* for titles */
    struct sp_type types[SP_MAX_TYPES];
} SECTIONS[PR_N] = {
    [PR_SAMPLES] = {"samples", "cpu=samples (CPU SAMPLES)", {{"samples", "count"}}},
    [PR_TIMES] = {"times", "cpu=times (CPU TIME)", {{"cpu", "nanoseconds"}, {"calls", "count"}}},
    [PR_OLD] = {"old", "cpu=old (callee and caller pairs)", {{"calls", "count"}, {"time", "milliseconds"}}},
    [PR_SITES] =
        {"sites",
         "heap=sites (SITES)",
         {{"alloc_space", "bytes"}, {"alloc_objects", "count"}, {"inuse_space", "bytes"}, {"inuse_objects", "count"}}},
    [PR_MONITOR] = {"monitor",
                    "monitor=y (MONITOR TIME: contention)",
                    {{"delay", "nanoseconds"}, {"contentions", "count"}}},
    [PR_HEAP] = {"heap", "heap=dump (objects by allocation trace)", {{"space", "bytes"}, {"objects", "count"}}},
    [PR_THREADS] = {"threads", "monitor=y (MONITOR DUMP: threads by trace)", {{"threads", "count"}}},
};

/* The section's name, "any" for PR_ANY. */
static const char *pr_section_name(enum pr_section s) { return s > PR_ANY && s < PR_N ? SECTIONS[s].name : "any"; }

enum pr_section pr_section_named(const char *name)
{
    for (int s = PR_ANY + 1; s < PR_N; s++)
        if (strcmp(name, SECTIONS[s].name) == 0) return (enum pr_section)s;
    return PR_N;
}

void prc_init(struct pr_collect *c, struct stack_profile *p)
{
    memset(c, 0, sizeof *c);
    c->p = p;
}

void prc_free(struct pr_collect *c)
{
    hd_map_free(&c->traces);
    free(c->tr);
    free(c->fr);
    for (int s = 0; s < PR_N; s++) free(c->sec[s].r);
    memset(c, 0, sizeof *c);
}

void prc_trace(struct pr_collect *c, uint32_t serial, uint32_t thread)
{
    uint64_t *slot;
    if (!hd_map_put(&c->traces, serial, c->ntr, &slot)) {
        c->tr[*slot] = (struct pr_trace){(uint32_t)c->nfr, 0, thread}; /* read again: the last one counts */
        c->open_trace = (uint32_t)*slot + 1;
        return;
    }
    HD_GROW(c->tr, c->ntr, c->captr);
    c->tr[c->ntr++] = (struct pr_trace){(uint32_t)c->nfr, 0, thread};
    c->open_trace = (uint32_t)c->ntr;
}

void prc_frame(struct pr_collect *c, uint32_t frame)
{
    if (!c->open_trace) return;
    HD_GROW(c->fr, c->nfr, c->capfr);
    c->fr[c->nfr++] = frame;
    struct pr_trace *t = &c->tr[c->open_trace - 1];
    if (++t->n > c->deepest) c->deepest = t->n;
}

void prc_section(struct pr_collect *c, enum pr_section s, bool replace)
{
    struct pr_rows *r = &c->sec[s];
    if (replace || c->last_dump) {
        r->n = 0;
        memset(r->cut, 0, sizeof r->cut);
    }
    r->seen = true;
    c->open_trace = 0;
}

void prc_row(struct pr_collect *c, enum pr_section s, uint32_t trace, uint32_t top, const int64_t *v)
{
    struct pr_rows *r = &c->sec[s];
    HD_GROW(r->r, r->n, r->cap);
    struct pr_row *row = &r->r[r->n++];
    row->trace = trace;
    row->top = top;
    memcpy(row->v, v, sizeof row->v);
}

/* One row's stack: its pseudo-frame, the trace's frames, its thread. */
static void add_row(struct pr_collect *c, const struct pr_row *row, uint32_t **buf, size_t *cap)
{
    struct stack_profile *p = c->p;
    uint64_t *slot = hd_map_get(&c->traces, row->trace);
    const struct pr_trace *t = slot ? &c->tr[*slot] : NULL;
    size_t need = (t ? t->n : 0) + 3;
    if (!grow_array((void **)buf, cap, need, sizeof **buf)) {
        p->oom = true;
        return;
    }
    uint32_t n = 0, *fr = *buf;
    char name[64];
    if (row->top) fr[n++] = row->top - 1;
    if (!t) {
        snprintf(name, sizeof name, "[trace %u, not in the file]", row->trace);
        fr[n++] = sp_frame(p, name, NULL, 0, SP_PSEUDO);
    } else if (!t->n) {
        fr[n++] = sp_frame(p, "[no Java frames]", NULL, 0, SP_PSEUDO);
    }
    for (uint32_t i = 0; t && i < t->n; i++) fr[n++] = c->fr[t->first + i];
    if (t && t->thread) {
        snprintf(name, sizeof name, "thread %u", t->thread);
        fr[n++] = sp_frame(p, name, NULL, 0, SP_PSEUDO);
    }
    sp_add(p, fr, n, row->v);
}

static enum pr_section chosen(const struct pr_collect *c, enum pr_section want)
{
    if (want != PR_ANY) return c->sec[want].seen ? want : PR_N;
    for (int s = PR_ANY + 1; s < PR_N; s++)
        if (c->sec[s].seen && c->sec[s].n) return (enum pr_section)s;
    for (int s = PR_ANY + 1; s < PR_N; s++)
        if (c->sec[s].seen) return (enum pr_section)s;
    return PR_N;
}

static int64_t add_sat(int64_t a, int64_t b) { return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b; }

/* Adds up the rows of the same trace and pseudo-frame, in place, keeping the first's place. */
static void merge_rows(struct pr_rows *r)
{
    hd_map seen = {0};
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct pr_row *row = &r->r[i];
        uint64_t *slot;
        if (hd_map_put(&seen, (uint64_t)row->trace << 32 | row->top, n, &slot)) {
            r->r[n++] = *row;
            continue;
        }
        for (int k = 0; k < SP_MAX_TYPES; k++) r->r[*slot].v[k] = add_sat(r->r[*slot].v[k], row->v[k]);
    }
    r->n = n;
    hd_map_free(&seen);
}

/* The frames the rows' stacks take, at most: their trace's and three more. */
static uint64_t frames_needed(const struct pr_collect *c, const struct pr_rows *r)
{
    uint64_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t *slot = hd_map_get(&c->traces, r->r[i].trace);
        n += (slot ? c->tr[*slot].n : 0) + 3;
    }
    return n;
}

int prc_finish(struct pr_collect *c, enum pr_section want, char *err, size_t errlen)
{
    struct stack_profile *p = c->p;
    enum pr_section s = chosen(c, want);
    if (s == PR_N) {
        snprintf(err, errlen,
                 want == PR_ANY ? "no stack-based section in it (CPU SAMPLES, CPU TIME, SITES, MONITOR "
                                  "TIME, HEAP DUMP, MONITOR DUMP, cpu=old)"
                                : "no %s section in it",
                 pr_section_name(want));
        return -1;
    }
    for (int k = 0; k < SP_MAX_TYPES && SECTIONS[s].types[k].type; k++)
        sp_add_type(p, SECTIONS[s].types[k].type, SECTIONS[s].types[k].unit);
    sp_set(p, &p->mode, "%s", SECTIONS[s].mode);
    p->depth = (int)(c->depth ? c->depth : c->deepest); /* else guessed: the deepest trace */
    struct pr_rows *r = &c->sec[s];
    merge_rows(r);
    uint64_t frames = frames_needed(c, r), budget = c->input_bytes * PR_FRAMES_PER_BYTE + PR_FRAMES_FREE;
    if (frames > budget) {
        snprintf(err, errlen,
                 "its %s rows on their traces make stacks of %llu frames in all, more than the %llu "
                 "a file of this size may ask for (%d a byte): too many rows on too deep traces",
                 pr_section_name(s), (unsigned long long)frames, (unsigned long long)budget, PR_FRAMES_PER_BYTE);
        return -1;
    }
    uint32_t *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < r->n && !p->oom; i++) add_row(c, &r->r[i], &buf, &cap);
    free(buf);
    bool cut = false;
    for (int k = 0; k < p->ntypes; k++) cut |= r->cut[k] > 0;
    if (cut) {
        uint32_t f = sp_frame(p, "[rows under the cutoff]", NULL, 0, SP_PSEUDO);
        int64_t v[SP_MAX_TYPES];
        for (int k = 0; k < SP_MAX_TYPES; k++) v[k] = r->cut[k] > 0 ? r->cut[k] : 0;
        sp_add(p, &f, 1, v);
    }
    /* a heap dump that gives no sizes (the original's text dumps cut short) still counts objects */
    if (s == PR_HEAP && sp_total(p, 0) == 0) p->main_type = 1;
    if (p->oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
