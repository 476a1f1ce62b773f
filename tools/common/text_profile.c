/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text profile parser (java.hprof.txt: ours, JDK 8 HPROF's, a net= capture): TRACE
 * blocks, the rows of CPU SAMPLES, CPU TIME (ms), SITES, MONITOR TIME, MONITOR DUMP and
 * HEAP DUMP (OBJ, ARR, CLS with their trace=), and cpu=old's pairs. Outside input: every
 * line is read within its bounds, anything unknown is skipped; pure C, no I/O.
 * Calls profile_rows.c and writers/stack_profile.c.
 */
#include "profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE   4096
#define MAX_TOKENS 12

struct line {
    char text[MAX_LINE];   /* NUL-terminated, cut at MAX_LINE - 1 */
    char *tok[MAX_TOKENS]; /* whitespace-separated words (of a copy) */
    int ntok;
    char words[MAX_LINE];
};

enum state { IN_NOTHING, IN_TRACE, IN_SECTION, IN_OLD };

struct parse {
    struct pr_collect c;
    enum state state;
    enum pr_section sec; /* IN_SECTION: which */
    int64_t total;       /* the section's opening total (samples, or ms) */
    int64_t rows_sum;    /* what its rows add up to, in the same unit */
    bool header, old_header;
};

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void split(struct line *l)
{
    memcpy(l->words, l->text, strlen(l->text) + 1); /* not the whole buffer: lines are mostly short */
    l->ntok = 0;
    char *save = NULL;
    for (char *s = strtok_r(l->words, " \t", &save); s && l->ntok < MAX_TOKENS; s = strtok_r(NULL, " \t", &save))
        l->tok[l->ntok++] = s;
}

/* The largest count or time in ms a row may hold: ms become ns (x 10^6) in the view, and
 * sums of many rows must still fit in 64 bits. 4.6 x 10^12 ms is 146 years. */
#define VALUE_MAX (INT64_MAX / 1000000 / 2)

/* a + b, held at VALUE_MAX (both are in [0, VALUE_MAX]). */
static int64_t add_held(int64_t a, int64_t b) { return a > VALUE_MAX - b ? VALUE_MAX : a + b; }

/* A decimal number up to VALUE_MAX that fills the word (a trailing ',' allowed); false otherwise. */
static bool number(const char *s, int64_t *out)
{
    int64_t v = 0;
    const char *p = s;
    if (!*p) return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (VALUE_MAX - 9) / 10) return false;
        v = v * 10 + (*p - '0');
    }
    if (p == s || (*p && !(*p == ',' && !p[1]))) return false;
    *out = v;
    return true;
}

/* The number after "key" in s ("trace=300001"), held at VALUE_MAX, or -1. */
static int64_t after(const char *s, const char *key)
{
    const char *at = strstr(s, key);
    if (!at) return -1;
    int64_t v = 0;
    const char *p = at + strlen(key);
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9' && v < (VALUE_MAX - 9) / 10; p++) v = v * 10 + (*p - '0');
    return v;
}

/* "12.50%" as a share (0.125); 0 when not a percentage. */
static double percent(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '%' && v >= 0 && v <= 100 ? v / 100 : 0;
}

/* "\tjava.lang.String.valueOf(String.java:4220)" and the like. */
static void trace_frame(struct parse *ps, const char *s)
{
    struct stack_profile *p = ps->c.p;
    if (strcmp(s, "<empty>") == 0) return;
    char name[MAX_LINE], file[MAX_LINE];
    const char *open = strrchr(s, '(');
    size_t len = strlen(s);
    int line = 0;
    enum sp_kind kind = SP_JAVA;
    file[0] = 0;
    if (open && len && s[len - 1] == ')' && open > s) {
        snprintf(name, sizeof name, "%.*s", (int)(open - s), s);
        snprintf(file, sizeof file, "%.*s", (int)(s + len - 1 - open - 1), open + 1);
        char *colon = strrchr(file, ':');
        if (colon) {
            *colon = 0;
            int64_t v;
            if (number(colon + 1, &v) && v < 1 << 30)
                line = (int)v;
            else if (strcmp(colon + 1, "Native method") == 0)
                kind = SP_NATIVE;
        }
        if (strcmp(file, "<Unknown Source>") == 0) file[0] = 0;
    } else {
        snprintf(name, sizeof name, "%s", s);
    }
    prc_frame(&ps->c, sp_frame(p, name, file, line, kind));
}

/* "TRACE 300010: (thread=200001)" */
static void trace_begin(struct parse *ps, struct line *l)
{
    int64_t serial, thread = after(l->text, "(thread=");
    if (l->ntok < 2) return;
    size_t n = strlen(l->tok[1]);
    if (n && l->tok[1][n - 1] == ':') l->tok[1][n - 1] = 0;
    if (!number(l->tok[1], &serial) || serial > UINT32_MAX) return;
    prc_trace(&ps->c, (uint32_t)serial, thread > 0 && thread <= UINT32_MAX ? (uint32_t)thread : 0);
    ps->state = IN_TRACE;
}

/* A pseudo-frame: the class allocated, the monitor's class, a thread's status. */
static uint32_t top_frame(struct parse *ps, const char *fmt, const char *name)
{
    char text[MAX_LINE];
    snprintf(text, sizeof text, fmt, name);
    return sp_frame(ps->c.p, text, NULL, 0, SP_PSEUDO) + 1;
}

/* The opening line of a section, or false. */
static bool section_begin(struct parse *ps, struct line *l)
{
    static const struct {
        const char *prefix;
        enum pr_section s;
        bool replace;
    } OPENERS[] = {
        {"CPU SAMPLES BEGIN", PR_SAMPLES, false}, {"CPU TIME (ms) BEGIN", PR_TIMES, false},
        {"SITES BEGIN", PR_SITES, true},          {"MONITOR TIME BEGIN", PR_MONITOR, false},
        {"HEAP DUMP BEGIN", PR_HEAP, true},       {"MONITOR DUMP BEGIN", PR_THREADS, true},
    };
    for (size_t i = 0; i < sizeof OPENERS / sizeof OPENERS[0]; i++) {
        if (!starts(l->text, OPENERS[i].prefix)) continue;
        prc_section(&ps->c, OPENERS[i].s, OPENERS[i].replace);
        ps->state = IN_SECTION;
        ps->sec = OPENERS[i].s;
        ps->total = after(l->text, "(total = ");
        ps->rows_sum = 0;
        return true;
    }
    if (starts(l->text, "MONITOR WAIT TIME BEGIN")) { /* waiting is not contention: not a view */
        ps->state = IN_SECTION;
        ps->sec = PR_N;
        return true;
    }
    return false;
}

/* The closing line: what the cutoff left out of the rows goes into the view as one stack. */
static void section_end(struct parse *ps)
{
    struct pr_rows *r = ps->sec < PR_N ? &ps->c.sec[ps->sec] : NULL;
    if (r && ps->total > ps->rows_sum) {
        int64_t left = ps->total - ps->rows_sum;
        if (ps->sec == PR_TIMES || ps->sec == PR_MONITOR) left *= 1000000;
        if (ps->sec == PR_SAMPLES || ps->sec == PR_TIMES || ps->sec == PR_MONITOR)
            r->cut[0] = r->cut[0] > INT64_MAX - left ? INT64_MAX : r->cut[0] + left;
    }
    ps->state = IN_NOTHING;
}

/* "rank self accum count trace method" (CPU), "... count trace class (Java)" (MONITOR TIME). */
static void ranked_row(struct parse *ps, struct line *l)
{
    int64_t rank, count, trace;
    if (l->ntok < 5 || !number(l->tok[0], &rank) || !number(l->tok[3], &count) || !number(l->tok[4], &trace)) return;
    int64_t v[SP_MAX_TYPES] = {0};
    uint32_t top = 0;
    if (ps->sec == PR_SAMPLES) {
        v[0] = count;
        ps->rows_sum = add_held(ps->rows_sum, count);
    } else { /* times in ms from the row's share of the total (the row has no time column) */
        int64_t ms = ps->total > 0 ? (int64_t)(percent(l->tok[1]) * (double)ps->total + 0.5) : 0;
        v[0] = ms * 1000000;
        v[1] = count;
        ps->rows_sum = add_held(ps->rows_sum, ms);
        if (ps->sec == PR_MONITOR && l->ntok >= 6) top = top_frame(ps, "lock %s", l->tok[5]);
    }
    prc_row(&ps->c, ps->sec, (uint32_t)trace, top, v);
}

/* " rank self accum live-bytes live-objs alloc-bytes alloc-objs trace class" */
static void site_row(struct parse *ps, struct line *l)
{
    int64_t n[6];
    if (l->ntok < 9) return;
    for (int i = 0; i < 6; i++)
        if (!number(l->tok[i == 0 ? 0 : i + 2], &n[i])) return;
    int64_t v[SP_MAX_TYPES] = {n[3], n[4], n[1], n[2]};
    prc_row(&ps->c, PR_SITES, (uint32_t)n[5], top_frame(ps, "%s", l->tok[8]), v);
}

/* "OBJ id (sz=16, trace=300001, class=java.lang.String@50000123)", "ARR ... elem type=int[])", "CLS ..." */
static void heap_row(struct parse *ps, struct line *l)
{
    bool obj = starts(l->text, "OBJ "), arr = starts(l->text, "ARR "), cls = starts(l->text, "CLS ");
    if (!obj && !arr && !cls) return;
    int64_t size = after(l->text, "(sz="), trace = after(l->text, "trace=");
    if (trace < 0 || trace > UINT32_MAX) return;
    char name[MAX_LINE] = "java.lang.Class";
    const char *at = obj ? strstr(l->text, "class=") : arr ? strstr(l->text, "elem type=") : NULL;
    if (at) {
        at = strchr(at, '=') + 1;
        snprintf(name, sizeof name, "%.*s", (int)strcspn(at, "@)"), at);
    }
    int64_t v[SP_MAX_TYPES] = {size > 0 ? size : 0, 1};
    prc_row(&ps->c, PR_HEAP, (uint32_t)trace, top_frame(ps, "%s", name), v);
}

/* "    THREAD 200001, trace 300000, status: ZO" */
static void thread_row(struct parse *ps, struct line *l)
{
    int64_t trace;
    if (l->ntok < 6 || strcmp(l->tok[0], "THREAD") || !number(l->tok[3], &trace) || trace > UINT32_MAX) return;
    int64_t v[SP_MAX_TYPES] = {1};
    prc_row(&ps->c, PR_THREADS, (uint32_t)trace, top_frame(ps, "status %s", l->tok[5]), v);
}

/* The next method of a cpu=old line: "Class.method(sig)ret", or "<unknown caller>" (with its
 * space), as a frame name; *s moves past it. */
static bool old_method(struct parse *ps, const char **s, uint32_t *frame)
{
    const char *m = *s + strspn(*s, " ");
    size_t n = m[0] == '<' ? strcspn(m, ">") + (strchr(m, '>') ? 1 : 0) : strcspn(m, " ");
    if (!n) return false;
    char name[MAX_LINE];
    if (m[0] == '<')
        snprintf(name, sizeof name, "[%.*s]", (int)(n > 2 ? n - 2 : 0), m + 1); /* pprof drops <...> */
    else
        snprintf(name, sizeof name, "%.*s", (int)strcspn(m, "( "), m);
    *frame = sp_frame(ps->c.p, name, NULL, 0, m[0] == '<' ? SP_PSEUDO : SP_JAVA);
    *s = m + n;
    return true;
}

/* cpu=old: "count callee caller time", methods with their signatures: a stack of two. */
static void old_row(struct parse *ps, struct line *l)
{
    int64_t count, ms;
    uint32_t callee, caller;
    const char *s = l->text + strcspn(l->text, " ");
    if (l->ntok < 4 || !number(l->tok[0], &count) || !number(l->tok[l->ntok - 1], &ms) ||
        !old_method(ps, &s, &callee) || !old_method(ps, &s, &caller)) {
        ps->state = IN_NOTHING;
        return;
    }
    struct pr_collect *c = &ps->c;
    uint32_t serial = 0x80000000u + (uint32_t)c->ntr; /* traces of their own, beyond any real serial */
    prc_trace(c, serial, 0);
    prc_frame(c, callee);
    prc_frame(c, caller);
    int64_t v[SP_MAX_TYPES] = {count, ms};
    prc_row(c, PR_OLD, serial, 0, v);
}

static void section_row(struct parse *ps, struct line *l)
{
    if (starts(l->text, "CPU ") || starts(l->text, "SITES ") || starts(l->text, "MONITOR ") ||
        starts(l->text, "HEAP DUMP ")) {
        if (strstr(l->text, " END")) section_end(ps);
        return;
    }
    switch (ps->sec) {
    case PR_SAMPLES:
    case PR_TIMES:
    case PR_MONITOR: ranked_row(ps, l); break;
    case PR_SITES: site_row(ps, l); break;
    case PR_HEAP: heap_row(ps, l); break;
    case PR_THREADS: thread_row(ps, l); break;
    default: break;
    }
}

static void one_line(struct parse *ps, struct line *l)
{
    if (ps->state == IN_TRACE && l->text[0] == '\t') {
        trace_frame(ps, l->text + 1);
        return;
    }
    if (ps->state == IN_TRACE) ps->state = IN_NOTHING;
    if (starts(l->text, "JAVA PROFILE 1.0.") && strstr(l->text, ", created ")) {
        ps->header = true;
        if (!ps->c.p->date) sp_set(ps->c.p, &ps->c.p->date, "%s", strstr(l->text, ", created ") + 10);
        return;
    }
    if (ps->state == IN_NOTHING && starts(l->text, "RUN depth: ")) { /* this agent says it; else guessed */
        int64_t d = after(l->text, "RUN depth: ");
        ps->c.depth = d > 0 && d <= 65535 ? (uint32_t)d : 0;
        return;
    }
    split(l);
    if (ps->state == IN_OLD)
        old_row(ps, l);
    else if (starts(l->text, "TRACE "))
        trace_begin(ps, l);
    else if (ps->state == IN_SECTION)
        section_row(ps, l);
    else if (section_begin(ps, l))
        return;
    else if (strcmp(l->text, "count callee caller time") == 0) {
        prc_section(&ps->c, PR_OLD, false);
        ps->state = IN_OLD;
        ps->old_header = true;
    }
}

int pr_read_text(const char *data, size_t n, enum pr_section want, struct stack_profile *p, char *err, size_t errlen)
{
    struct parse *ps = calloc(1, sizeof *ps);
    struct line *l = malloc(sizeof *l);
    int rc = -1;
    if (!ps || !l) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    prc_init(&ps->c, p);
    ps->c.input_bytes = n;
    ps->c.last_dump = (want & PR_LAST_DUMP) != 0;
    want &= ~PR_LAST_DUMP;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(data + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : n - at;
        size_t keep = len < MAX_LINE - 1 ? len : MAX_LINE - 1;
        memcpy(l->text, data + at, keep);
        l->text[keep] = 0;
        if (keep && l->text[keep - 1] == '\r') l->text[keep - 1] = 0;
        if (strlen(l->text) == keep || keep == 0) one_line(ps, l); /* a line with a NUL in it is no profile line */
        at += len + 1;
    }
    if (!ps->header && !ps->old_header && ps->c.ntr == 0)
        snprintf(err, errlen, "not an HPROF profile (no \"JAVA PROFILE 1.0.x, created\" header, TRACE or section)");
    else
        rc = prc_finish(&ps->c, want, err, errlen);
    /* Its rows are those SITES kept, by live bytes; its opening line gives no total. */
    if (rc == 0 && sp_type_named(p, "alloc_space") >= 0)
        sp_set(p, &p->note,
               "a text file's SITES lists only the sites its cutoff kept, ranked by live bytes: what was allocated "
               "and died is left out (the agent's view= holds every site)");
    prc_free(&ps->c);
out:
    free(ps);
    free(l);
    return rc;
}
