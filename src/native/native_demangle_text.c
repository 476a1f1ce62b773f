/* SPDX-License-Identifier: Apache-2.0 */
/* The demangler's output buffer, input and substitution table (native_demangle_text.h). */
#include "native/native_demangle_text.h"

#include <string.h>

/* ---- text in the arena ---- */

uint32_t dm_mark(struct dm *d) { return d->used; }

void dm_add_bytes(struct dm *d, const char *s, size_t n)
{
    if (d->fail || n > DM_ARENA - d->used) {
        d->fail = true;
        return;
    }
    memmove(d->arena + d->used, s, n);
    d->used += (uint32_t)n;
}

void dm_add(struct dm *d, struct str s) { dm_add_bytes(d, d->arena + s.off, s.len); }
void dm_lit(struct dm *d, const char *s) { dm_add_bytes(d, s, strlen(s)); }
struct str dm_done(struct dm *d, uint32_t from) { return (struct str){from, d->used - from}; }

struct str dm_make(struct dm *d, const char *s)
{
    uint32_t m = dm_mark(d);
    dm_lit(d, s);
    return dm_done(d, m);
}

void dm_add_number(struct dm *d, size_t n)
{
    char num[24];
    size_t k = sizeof num;
    do num[--k] = (char)('0' + n % 10);
    while ((n /= 10) > 0 && k > 0);
    dm_add_bytes(d, num + k, sizeof num - k);
}

/* s + t, or s::t (sep "::"). */
struct str dm_join(struct dm *d, struct str s, const char *sep, struct str t)
{
    if (!s.len) return t;
    uint32_t m = dm_mark(d);
    dm_add(d, s);
    dm_lit(d, sep);
    dm_add(d, t);
    return dm_done(d, m);
}

/* A type as one piece of text. */
struct str dm_type_text(struct dm *d, const struct type *t)
{
    if (!t->right.len) return t->left;
    uint32_t m = dm_mark(d);
    dm_add(d, t->left);
    if (t->kind == T_FUNC) dm_lit(d, " ");
    dm_add(d, t->right);
    return dm_done(d, m);
}

/* ---- input ---- */

char dm_peek(struct dm *d, size_t i) { return (size_t)(d->end - d->p) > i ? d->p[i] : 0; }
bool dm_eat(struct dm *d, char c)
{
    if (dm_peek(d, 0) != c) return false;
    d->p++;
    return true;
}

bool dm_fail(struct dm *d)
{
    d->fail = true;
    return false;
}

/* A decimal number; false when there is none or it is too big. */
bool dm_number(struct dm *d, size_t *n)
{
    *n = 0;
    if (!(dm_peek(d, 0) >= '0' && dm_peek(d, 0) <= '9')) return dm_fail(d);
    while (dm_peek(d, 0) >= '0' && dm_peek(d, 0) <= '9') {
        *n = *n * 10 + (size_t)(*d->p++ - '0');
        if (*n > DM_MAX_NUMBER) return dm_fail(d);
    }
    return true;
}

/* A <seq-id>_ (base 36) as an index from 0 (S_ and T_ are 0, S0_ is 1). */
bool dm_seq_id(struct dm *d, size_t *n)
{
    *n = 0;
    if (dm_eat(d, '_')) return true;
    size_t v = 0;
    for (char c; (c = dm_peek(d, 0)) != '_';) {
        if (c >= '0' && c <= '9')
            v = v * 36 + (size_t)(c - '0');
        else if (c >= 'A' && c <= 'Z')
            v = v * 36 + (size_t)(c - 'A' + 10);
        else
            return dm_fail(d);
        if (v > DM_MAX_SUBS) return dm_fail(d);
        d->p++;
    }
    d->p++;
    *n = v + 1;
    return true;
}

void dm_add_sub(struct dm *d, struct type t)
{
    if (d->nsubs < DM_MAX_SUBS)
        d->subs[d->nsubs++] = t;
    else
        d->fail = true;
}

bool dm_enter(struct dm *d)
{
    if (++d->depth > DM_MAX_DEPTH) return dm_fail(d);
    return !d->fail;
}
