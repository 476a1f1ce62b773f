/* SPDX-License-Identifier: Apache-2.0 */
/* Constant pool: typed lookups, and additions that reuse an equal entry when there is one. */
#include <string.h>

#include "classfile/cf_internal.h"

int cp_is(const cf_class *c, uint32_t i, unsigned tag)
{
    return i > 0 && i < c->cp_count && c->cp[i].raw && c->cp[i].raw[0] == tag;
}

const uint8_t *cp_utf8_raw(const cf_class *c, uint32_t i, size_t *n)
{
    if (!cp_is(c, i, CP_UTF8)) return NULL;
    *n = c->cp[i].len - 3;
    return c->cp[i].raw + 3;
}

int cp_utf8_eq(const cf_class *c, uint32_t i, const char *s)
{
    size_t have, n = strlen(s);
    const uint8_t *p = cp_utf8_raw(c, i, &have);
    return p && have == n && memcmp(p, s, n) == 0;
}

const char *cp_utf8_dup(cf_class *c, uint32_t i)
{
    size_t n;
    const uint8_t *p = cp_utf8_raw(c, i, &n);
    if (!p) return NULL;
    char *s = cf_arena_alloc(&c->ar, n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static uint32_t raw_hash(const uint8_t *p, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void hash_put(cf_class *c, uint32_t i)
{
    uint32_t k = raw_hash(c->cp[i].raw, c->cp[i].len) & c->hash_mask;
    while (c->hash[k]) k = (k + 1) & c->hash_mask;
    c->hash[k] = i;
}

/* (Re)builds the lookup index so that it holds room for at least `want` entries. */
static int hash_build(cf_class *c, uint32_t want)
{
    uint32_t size = 64;
    while (size < 2 * want) size *= 2;
    uint32_t *h = cf_arena_array(&c->ar, size, sizeof(uint32_t));
    if (!h) return 0;
    c->hash = h;
    c->hash_mask = size - 1;
    for (uint32_t i = 1; i < c->cp_count; i++)
        if (c->cp[i].raw) hash_put(c, i);
    return 1;
}

/* Appends an entry (a copy of raw); 0 when the pool is full or memory ran out. */
static uint32_t cp_add(cf_class *c, const uint8_t *raw, uint32_t len)
{
    if (c->cp_count >= 0xFFFF) return 0;
    if (c->cp_count >= c->cp_cap) {
        uint32_t nc = c->cp_cap * 2 + 16;
        cf_cpe *n = cf_arena_array(&c->ar, nc, sizeof(cf_cpe));
        if (!n) return 0;
        memcpy(n, c->cp, c->cp_count * sizeof(cf_cpe));
        c->cp = n;
        c->cp_cap = nc;
    }
    uint8_t *copy = cf_arena_alloc(&c->ar, len);
    if (!copy) return 0;
    memcpy(copy, raw, len);
    c->cp[c->cp_count].raw = copy;
    c->cp[c->cp_count].len = len;
    uint32_t i = c->cp_count++;
    if (c->hash) {
        if (2 * c->cp_count > c->hash_mask + 1) {
            if (!hash_build(c, c->cp_count)) c->hash = NULL;
        } else {
            hash_put(c, i);
        }
    }
    return i;
}

static uint32_t cp_find_raw(cf_class *c, const uint8_t *raw, uint32_t len)
{
    if (!c->hash && !hash_build(c, c->cp_count)) {
        for (uint32_t i = 1; i < c->cp_count; i++)
            if (c->cp[i].raw && c->cp[i].len == len && memcmp(c->cp[i].raw, raw, len) == 0) return i;
        return 0;
    }
    /* the lowest index wins among equal entries, as a linear scan would give */
    uint32_t best = 0;
    for (uint32_t k = raw_hash(raw, len) & c->hash_mask; c->hash[k]; k = (k + 1) & c->hash_mask) {
        uint32_t i = c->hash[k];
        if (c->cp[i].len == len && memcmp(c->cp[i].raw, raw, len) == 0 && (!best || i < best)) best = i;
    }
    return best;
}

static uint32_t cp_find_or_add_raw(cf_class *c, const uint8_t *raw, uint32_t len)
{
    uint32_t i = cp_find_raw(c, raw, len);
    return i ? i : cp_add(c, raw, len);
}

static uint32_t cp_utf8_n(cf_class *c, const char *s, size_t n)
{
    if (n > 0xFFFF) return 0;
    uint8_t *raw = cf_arena_alloc(&c->ar, n + 3);
    if (!raw) return 0;
    raw[0] = CP_UTF8;
    be_store_u2(raw + 1, (uint32_t)n);
    memcpy(raw + 3, s, n);
    return cp_find_or_add_raw(c, raw, (uint32_t)n + 3);
}

uint32_t cp_find_or_add_utf8(cf_class *c, const char *s) { return cp_utf8_n(c, s, strlen(s)); }

static uint32_t cp_ref2(cf_class *c, unsigned tag, uint32_t a, uint32_t b, int two)
{
    uint8_t raw[5];
    raw[0] = (uint8_t)tag;
    be_store_u2(raw + 1, a);
    if (two) be_store_u2(raw + 3, b);
    return cp_find_or_add_raw(c, raw, two ? 5 : 3);
}

uint32_t cp_find_or_add_class(cf_class *c, const char *name, size_t name_len)
{
    uint32_t u = cp_utf8_n(c, name, name_len);
    return u ? cp_ref2(c, CP_CLASS, u, 0, 0) : 0;
}

uint32_t cp_find_or_add_int(cf_class *c, int32_t v)
{
    uint8_t raw[5];
    raw[0] = CP_INTEGER;
    be_store_u4(raw + 1, (uint32_t)v);
    return cp_find_or_add_raw(c, raw, 5);
}

uint32_t cp_find_or_add_methodref(cf_class *c, const char *cls, const char *name, const char *desc)
{
    uint32_t k = cp_find_or_add_class(c, cls, strlen(cls));
    uint32_t n = cp_find_or_add_utf8(c, name);
    uint32_t d = cp_find_or_add_utf8(c, desc);
    if (!k || !n || !d) return 0;
    uint32_t nat = cp_ref2(c, CP_NAMEANDTYPE, n, d, 1);
    return nat ? cp_ref2(c, CP_METHODREF, k, nat, 1) : 0;
}

uint32_t cp_ref_class_name(const cf_class *c, uint32_t ref)
{
    if (!cp_is(c, ref, CP_METHODREF)) return 0;
    uint32_t cls = be_load_u2(c->cp[ref].raw + 1);
    return cp_is(c, cls, CP_CLASS) ? be_load_u2(c->cp[cls].raw + 1) : 0;
}

/* Whether NameAndType entry nat names name and desc. */
static int nat_is(const cf_class *c, uint32_t nat, const char *name, const char *desc)
{
    return cp_is(c, nat, CP_NAMEANDTYPE) && cp_utf8_eq(c, be_load_u2(c->cp[nat].raw + 1), name) &&
        cp_utf8_eq(c, be_load_u2(c->cp[nat].raw + 3), desc);
}

int cp_fieldref_is(const cf_class *c, uint32_t ref, const char *cls, const char *name, const char *desc)
{
    if (!cp_is(c, ref, CP_FIELDREF)) return 0;
    uint32_t k = be_load_u2(c->cp[ref].raw + 1);
    return cp_is(c, k, CP_CLASS) && cp_utf8_eq(c, be_load_u2(c->cp[k].raw + 1), cls) &&
        nat_is(c, be_load_u2(c->cp[ref].raw + 3), name, desc);
}

int cp_ref_is(const cf_class *c, uint32_t ref, const char *name, const char *desc)
{
    return cp_is(c, ref, CP_METHODREF) && nat_is(c, be_load_u2(c->cp[ref].raw + 3), name, desc);
}

uint32_t cp_ref_name(const cf_class *c, uint32_t ref)
{
    if (!cp_is(c, ref, CP_METHODREF) && !cp_is(c, ref, CP_IMETHODREF) && !cp_is(c, ref, CP_FIELDREF)) return 0;
    uint32_t nat = be_load_u2(c->cp[ref].raw + 3);
    if (!cp_is(c, nat, CP_NAMEANDTYPE)) return 0;
    return be_load_u2(c->cp[nat].raw + 1);
}
