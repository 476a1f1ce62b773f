/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading HPROF profiles into a stack profile (writers/stack_profile.h), for hprof view:
 * text profiles (java.hprof.txt, ours or JDK 8 HPROF's, or a net= capture of one) with
 * text_profile.c, binary ones (format=b) with the hd engine (binary_profile.c). Both
 * gather traces and the rows of each section into a pr_collect (profile_rows.c), which
 * then turns the section chosen into stacks.
 * Layers: profile_rows.c < text_profile.c, binary_profile.c < profile_read.c.
 */
#ifndef HPROF_PROFILE_READ_H
#define HPROF_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hd.h"
#include "writers/stack_profile.h"

/* The stack-based sections a file may hold. */
enum pr_section { PR_ANY = 0, PR_SAMPLES, PR_TIMES, PR_OLD, PR_SITES, PR_MONITOR, PR_HEAP, PR_THREADS, PR_N };
/* Or'ed into the section wanted of a text profile: every section replaces the one before
 * it, so that the last dump's alone is shown (CPU and monitor sections add up else). */
#define PR_LAST_DUMP 0x100

struct pr_trace {
    uint32_t first, n; /* frames: fr[first .. first+n), top first */
    uint32_t thread;
};

/* One row of a section: a trace, a pseudo-frame on top of it (the class allocated, the
 * monitor's class, a thread's status) and its values in the section's order. */
struct pr_row {
    uint32_t trace;
    uint32_t top; /* frame index + 1, 0: none */
    int64_t v[SP_MAX_TYPES];
};

struct pr_rows {
    struct pr_row *r;
    size_t n, cap;
    bool seen;
    int64_t cut[SP_MAX_TYPES]; /* what the section's total has beyond its rows (the cutoff) */
};

struct pr_collect {
    struct stack_profile *p; /* frames are interned in it as they are read */
    hd_map traces;           /* serial -> index into tr */
    struct pr_trace *tr;
    size_t ntr, captr;
    uint32_t *fr;
    size_t nfr, capfr;
    struct pr_rows sec[PR_N];
    int64_t ms_total;    /* the opening line's total of the section being read */
    uint32_t open_trace; /* index + 1 of the trace whose frames are being read */
    uint32_t deepest;
    uint32_t depth;       /* the depth the file says it was taken at (RUN depth:), 0: unsaid */
    bool last_dump;       /* PR_LAST_DUMP: every section replaces */
    uint64_t input_bytes; /* the file's size: bounds the frames of the stacks made */
};

/* The section called name (samples, times, old, sites, monitor, heap, threads), PR_N if none. */
enum pr_section pr_section_named(const char *name);

void prc_init(struct pr_collect *c, struct stack_profile *p);
void prc_free(struct pr_collect *c);
/* A trace; its frames follow through prc_frame. A serial met again is read again. */
void prc_trace(struct pr_collect *c, uint32_t serial, uint32_t thread);
void prc_frame(struct pr_collect *c, uint32_t frame);
/* A section begins: `replace` when each one holds everything so far (SITES, heap
 * dumps), else rows add up (CPU counts start from zero after each dump). */
void prc_section(struct pr_collect *c, enum pr_section s, bool replace);
void prc_row(struct pr_collect *c, enum pr_section s, uint32_t trace, uint32_t top, const int64_t *v);
/* Sets p's types and adds the stacks of the section wanted (PR_ANY: the first found, in
 * enum order). Rows of the same trace and pseudo-frame are added up first; the stacks may
 * hold PR_FRAMES_PER_BYTE frames a byte of the input (and PR_FRAMES_FREE more), so that a
 * file of many rows on deep traces is refused rather than taking time and memory by the
 * square of its size. 0, or -1 with the reason in err. */
#define PR_FRAMES_PER_BYTE 16
#define PR_FRAMES_FREE     (1u << 24)
int prc_finish(struct pr_collect *c, enum pr_section want, char *err, size_t errlen);

/* A text profile in memory: pure, no I/O (fuzzed by tests/fuzz/fuzz_text_profile.c). */
int pr_read_text(const char *data, size_t n, enum pr_section want, struct stack_profile *p, char *err, size_t errlen);
/* A binary profile, from the open file fd. */
int pr_read_binary(const char *path, int fd, enum pr_section want, struct stack_profile *p, char *err, size_t errlen);
/* Any profile file: its first bytes tell text from binary; anything else is refused. */
int pr_read_file(const char *path, enum pr_section want, struct stack_profile *p, char *err, size_t errlen);

#endif
