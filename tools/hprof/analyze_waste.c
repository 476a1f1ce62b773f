/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The finders behind the report's waste and leak suspects: duplicate strings and
 * primitive arrays (hashed, then compared byte for byte), ArrayLists and HashMaps that
 * hold nothing or mostly room, and where a suspect's objects accumulate.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_waste.h"
#include "util/hprof_format.h"

/* ------------------------------------------------------------ waste */

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++) x = (x ^ p[i]) * 1099511628211ull;
    return x;
}

/* The value array of a String (byte[] or char[]), AN_NONE when it has none. */
uint32_t an_string_value(const struct an_heap *h, uint32_t o)
{
    int t;
    const uint8_t *f = an_field(h, o, h->sid_value, &t);
    if (!f || t != HD_OBJECT) return AN_NONE;
    uint64_t id = h->idsize == 8 ? be_load_u8(f) : be_load_u4(f);
    uint32_t a = id ? an_find(h, id) : AN_NONE;
    return a != AN_NONE && AN_KIND(h, a) == AN_PRIMARRAY ? a : AN_NONE;
}

static bool same_content(const struct an_heap *h, uint32_t a, uint32_t b)
{
    int ta, tb;
    uint32_t na, nb;
    const uint8_t *pa = an_prim_array(h, a, &ta, &na), *pb = an_prim_array(h, b, &tb, &nb);
    if (!pa || !pb || ta != tb || na != nb) return false;
    int es = ta == HD_BOOLEAN || ta == HD_BYTE ? 1
        : ta == HD_CHAR || ta == HD_SHORT      ? 2
        : ta == HD_INT || ta == HD_FLOAT       ? 4
                                               : 8;
    return !memcmp(pa, pb, (size_t)na * (size_t)es);
}

/* Groups objects (strings by value, or primitive arrays by content) with an open
 * addressing table; returns the groups with more than one member. */
struct dup *an_duplicates(const struct an_heap *h, const struct an_dom *d, bool strings, const uint8_t *skip,
                          uint32_t *ngroups)
{
    size_t cap = 1024;
    uint32_t n = 0;
    struct dup *t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], arr = o;
        an_pages_done(h, i + 1);
        if (strings) {
            if (AN_KIND(h, o) != AN_INSTANCE || h->cls[o] == AN_NONE || h->classes[h->cls[o]].kind != AN_K_STRING)
                continue;
            arr = an_string_value(h, o);
            if (arr == AN_NONE) continue;
        } else if (AN_KIND(h, o) != AN_PRIMARRAY || (skip && skip[o]))
            continue;
        int ty;
        uint32_t cnt;
        const uint8_t *p = an_prim_array(h, arr, &ty, &cnt);
        if (!p || !cnt) continue;
        int es = ty == HD_BOOLEAN || ty == HD_BYTE ? 1
            : ty == HD_CHAR || ty == HD_SHORT      ? 2
            : ty == HD_INT || ty == HD_FLOAT       ? 4
                                                   : 8;
        uint64_t hash = fnv(p, (size_t)cnt * (size_t)es, (uint64_t)ty) | 1;
        if (2 * (size_t)(n + 1) > cap) {
            size_t nc = cap * 2;
            struct dup *nt = calloc(nc, sizeof *nt);
            if (!nt) return free(t), NULL;
            for (size_t j = 0; j < cap; j++)
                if (t[j].hash) {
                    size_t s = t[j].hash & (nc - 1);
                    while (nt[s].hash) s = (s + 1) & (nc - 1);
                    nt[s] = t[j];
                }
            free(t);
            t = nt, cap = nc;
        }
        size_t s = hash & (cap - 1);
        for (;;) {
            if (!t[s].hash) {
                t[s] = (struct dup){hash, o, 1, an_shallow(h, o) + (strings ? an_shallow(h, arr) : 0)};
                n++;
                break;
            }
            uint32_t f = strings ? an_string_value(h, t[s].first) : t[s].first;
            if (t[s].hash == hash && same_content(h, f, arr)) {
                t[s].count++;
                break;
            }
            s = (s + 1) & (cap - 1);
        }
    }
    uint32_t m = 0;
    for (size_t j = 0; j < cap; j++)
        if (t[j].hash && t[j].count > 1) t[m++] = t[j];
    *ngroups = m;
    return t;
}

int an_dup_cmp(const void *a, const void *b)
{
    const struct dup *x = a, *y = b;
    uint64_t sx = (x->count - 1) * x->bytes, sy = (y->count - 1) * y->bytes;
    return sx != sy ? (sx < sy ? 1 : -1) : (x->first > y->first) - (x->first < y->first);
}

/* The first bytes of a string's value, quoted, into b. */
void an_string_text(const struct an_heap *h, uint32_t s, struct buf *b, bool json)
{
    uint32_t a = an_string_value(h, s), n;
    int t;
    const uint8_t *p = a != AN_NONE ? an_prim_array(h, a, &t, &n) : NULL;
    uint8_t tmp[64];
    size_t m = 0;
    for (uint32_t i = 0; p && i < n && m < sizeof tmp; i++) {
        uint32_t c = t == HD_CHAR ? (uint32_t)p[2 * i] << 8 | p[2 * i + 1] : p[i];
        tmp[m++] = c >= 0x20 && c < 0x7f ? (uint8_t)c : '?';
    }
    if (t == HD_BYTE && n > 0 && h->sid_value) { /* JDK 9+: UTF16 strings have coder 1 */
    }
    if (json)
        an_json_str(b, tmp, m);
    else {
        buf_u1(b, '"');
        buf_put(b, tmp, m);
        buf_put(b, m == sizeof tmp ? "...\"" : "\"", m == sizeof tmp ? 4 : 1);
    }
}

void an_collection_waste(const struct an_heap *h, const struct an_dom *d, struct coll_waste *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < d->nreach; i++) {
        uint32_t o = d->order[i], k = h->cls[o];
        an_pages_done(h, i + 1);
        if (AN_KIND(h, o) != AN_INSTANCE || k == AN_NONE) continue;
        int which = h->classes[k].kind == AN_K_ARRAYLIST ? 0 : h->classes[k].kind == AN_K_HASHMAP ? 1 : -1;
        if (which < 0) continue;
        int ts, ta;
        const uint8_t *fs = an_field(h, o, h->sid_size, &ts);
        const uint8_t *fa = an_field(h, o, which ? h->sid_table : h->sid_elements, &ta);
        if (!fs || ts != HD_INT || !fa || ta != HD_OBJECT) continue;
        uint32_t size = be_load_u4(fs);
        uint64_t id = h->idsize == 8 ? be_load_u8(fa) : be_load_u4(fa);
        uint32_t arr = id ? an_find(h, id) : AN_NONE;
        uint32_t cap = 0;
        if (arr != AN_NONE && AN_KIND(h, arr) == AN_OBJARRAY)
            cap = be_load_u4(h->p + an_off(h, arr) + 1 + h->idsize + 4);
        if (size == 0) {
            c->empty[which]++;
            c->empty_bytes[which] += an_shallow(h, o) + (arr != AN_NONE ? an_shallow(h, arr) : 0);
        } else if (cap >= 16 && (uint64_t)size * 4 < cap) {
            c->sparse[which]++;
            c->sparse_bytes[which] += (uint64_t)(cap - size) * (uint64_t)h->oopsize;
        }
    }
}

/* ------------------------------------------------------------ suspects */

/* Down from o, the child that holds most while it holds at least 80% of its parent: the
 * object under which the many accumulate. */
uint32_t an_accumulation_point(const struct an_dom *d, const struct an_kids *k, uint32_t o)
{
    for (;;) {
        uint32_t best = AN_NONE;
        for (uint32_t i = k->off[o]; i < k->off[o + 1]; i++)
            if (best == AN_NONE || d->retained[k->v[i]] > d->retained[best]) best = k->v[i];
        if (best == AN_NONE || d->retained[best] * 10 < d->retained[o] * 8) return o;
        o = best;
    }
}
