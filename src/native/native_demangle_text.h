/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The demangler's state (native_demangle.c): the output buffer, an arena every piece of
 * text is made in, the input, the substitution table and the recursion depth, all
 * bounded; past a bound, d->fail is set and every caller unwinds.
 */
#ifndef HPROF_NATIVE_DEMANGLE_TEXT_H
#define HPROF_NATIVE_DEMANGLE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DM_ARENA     (64 * 1024)
#define DM_MAX_DEPTH 64
#define DM_MAX_SUBS  256
#define DM_MAX_TARGS 64
/* No number in a name is past the longest name demangled (NDM_MAX_INPUT, checked there). */
#define DM_MAX_NUMBER 4096

/* A piece of the arena. */
struct str {
    uint32_t off, len;
};

enum { T_PLAIN, T_FUNC, T_ARRAY, T_GROUPED }; /* how a type takes a pointer to it */

/* A type printed as left + right: "void (*" + ")(int)". A bare function's is
 * left + " " + right. */
struct type {
    struct str left, right;
    struct str simple; /* a class's last source name, for its constructors */
    uint8_t kind;
};

struct dm {
    const char *p, *end;
    int depth;
    bool fail;
    char *arena;
    uint32_t used;
    struct type subs[DM_MAX_SUBS];
    int nsubs;
    struct type targs[DM_MAX_TARGS];
    int ntargs;
    int type_nest;  /* >0 inside a type: template arguments there are not the function's */
    unsigned flags; /* NDM_*: how local names show their function */
};

/* Text in the arena: a piece is made by a mark, some adds, then done. */
uint32_t dm_mark(struct dm *d);
void dm_add_bytes(struct dm *d, const char *s, size_t n);
void dm_add(struct dm *d, struct str s);
void dm_lit(struct dm *d, const char *s);
struct str dm_done(struct dm *d, uint32_t from);
/* s as a piece of its own. */
struct str dm_make(struct dm *d, const char *s);
void dm_add_number(struct dm *d, size_t n);
/* s + t, or s::t (sep "::"). */
struct str dm_join(struct dm *d, struct str s, const char *sep, struct str t);
/* A type as one piece of text. */
struct str dm_type_text(struct dm *d, const struct type *t);

/* The input: the character i ahead (0 past the end); c taken when it is next. */
char dm_peek(struct dm *d, size_t i);
bool dm_eat(struct dm *d, char c);
/* Sets d->fail; false, for "return dm_fail(d)". */
bool dm_fail(struct dm *d);
/* A decimal number; false when there is none or it is too big. */
bool dm_number(struct dm *d, size_t *n);
/* A <seq-id>_ (base 36) as an index from 0 (S_ and T_ are 0, S0_ is 1). */
bool dm_seq_id(struct dm *d, size_t *n);
/* Records a substitution candidate. */
void dm_add_sub(struct dm *d, struct type t);
/* One level deeper; false past DM_MAX_DEPTH or after a failure. */
bool dm_enter(struct dm *d);

#endif
