/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The neutral "stack profile" every view is written from: distinct stacks of frames,
 * each with one value per sample type (samples, bytes, ns ...), and a few words on what
 * was profiled. The agent's report layer fills one from its snapshots, the `hprof view`
 * tool from a file it read, so collapsed stacks, the flame graph and pprof come out of
 * the same code either way. Plain data: no JVMTI, no output.
 *
 * Frames and strings are interned; a stack added twice adds up its values.
 */
#ifndef HPROF_STACK_PROFILE_H
#define HPROF_STACK_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define SP_MAX_TYPES  4
#define SP_MAX_LABELS 4

/* How a frame is drawn: a Java method, a native one, or a frame that is no method (the
 * class allocated, a thread, "no Java frames"). */
enum sp_kind { SP_JAVA = 0, SP_NATIVE = 1, SP_PSEUDO = 2 };

struct sp_frame {
    uint32_t name; /* string index: "Class.method" */
    uint32_t file; /* string index of the source file; 0: none */
    int32_t line;  /* > 0: a line; 0: none */
    uint8_t kind;  /* enum sp_kind */
};

/* A sample type, as pprof names them: "samples"/"count", "alloc_space"/"bytes" ... */
struct sp_type {
    const char *type, *unit; /* literals: they are never freed */
};

struct sp_stack {
    uint32_t first, n; /* its frames: frame_ix[first .. first+n), top (leaf) first */
    int64_t v[SP_MAX_TYPES];
};

/* Open addressing: index + 1 of an entry, 0 for an empty slot. */
struct sp_index {
    uint32_t *slot;
    size_t cap, n;
};

struct stack_profile {
    /* What was profiled, for titles: each may be NULL. */
    char *program; /* e.g. "java Sample" or the input file's name */
    char *date;    /* as the profile's own header gives it */
    char *mode;    /* e.g. "cpu=samples", "heap=sites" */
    char *note;    /* anything else a reader should know (depth, estimates) */
    int depth;     /* the stack depth used; 0 when not known */
    int ntypes;
    struct sp_type types[SP_MAX_TYPES];
    int main_type;              /* the one a flame graph and collapsed stacks show */
    struct sp_type period_type; /* pprof's period: what one sample stands for; type NULL: none */
    int64_t period;
    int64_t time_nanos, duration_nanos; /* the window it covers (wall clock); 0: not known */
    /* Labels every sample carries (pprof's string labels): string indexes. */
    uint32_t label_key[SP_MAX_LABELS], label_value[SP_MAX_LABELS];
    int nlabels;

    struct buf pool;  /* every string, NUL-terminated */
    uint32_t *str_at; /* offsets into pool; string 0 is "" */
    size_t nstr, capstr;
    struct sp_index str_index;

    struct sp_frame *frames;
    size_t nframes, capframes;
    struct sp_index frame_index;

    uint32_t *frame_ix; /* the frames of every stack, one after the other */
    size_t nframe_ix, capframe_ix;
    struct sp_stack *stacks;
    size_t nstacks, capstacks;
    struct sp_index stack_index;
    int64_t total[SP_MAX_TYPES]; /* the sum of each type over every stack: it always fits */

    bool oom; /* an allocation failed: the profile is incomplete */
};

void sp_init(struct stack_profile *p);
void sp_free(struct stack_profile *p);
/* Sets one of the text fields (copied); fmt is printf's. */
void sp_set(struct stack_profile *p, char **field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Adds a sample type; returns its index, or -1 when there are SP_MAX_TYPES already. */
int sp_add_type(struct stack_profile *p, const char *type, const char *unit);
/* The index of a string (interned). */
uint32_t sp_string(struct stack_profile *p, const char *s);
/* A label every sample carries (service, host, pid); dropped past SP_MAX_LABELS. */
void sp_label(struct stack_profile *p, const char *key, const char *value);
static inline const char *sp_str(const struct stack_profile *p, uint32_t i)
{
    return p->oom || i >= p->nstr ? "" : (const char *)p->pool.data + p->str_at[i];
}
/* The index of a frame (interned); file may be NULL, line <= 0 for none. */
uint32_t sp_frame(struct stack_profile *p, const char *name, const char *file, int line, enum sp_kind kind);
/* Adds values (ntypes of them) to the stack of these frames (top first). A value is never
 * below 0 and is held so that the type's total over every stack fits in 64 bits: a view
 * may add any stacks up without overflow, whatever a file handed in. */
void sp_add(struct stack_profile *p, const uint32_t *frames, uint32_t n, const int64_t *values);
/* The sum of one type over every stack. */
int64_t sp_total(const struct stack_profile *p, int type);
/* The type called `name`, or -1. */
int sp_type_named(const struct stack_profile *p, const char *name);

#endif
