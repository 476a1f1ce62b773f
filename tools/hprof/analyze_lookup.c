/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lookups on the index of a dump: an object by id, a string by id, a class object's
 * class, a primitive array's elements, a class's Java name, an instance's field by name;
 * the records' parts the building files read (statics, fields, instance data); and the
 * dump's pages let go once a pass has read them.
 */
#include <string.h>
#include <sys/mman.h>

#include "analyze.h"
#include "analyze_lookup.h"
#include "analyze_read.h"

uint32_t an_find(const struct an_heap *h, uint64_t id)
{
    /* the run of the high half (runs are few), then the low half in it */
    uint32_t lo = 0, hi = h->nruns, want = (uint32_t)id;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->run_hi[mid] < id >> 32)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == h->nruns || h->run_hi[lo] != id >> 32) return AN_NONE;
    uint32_t end = h->run_at[lo + 1];
    lo = h->run_at[lo];
    hi = end;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->id_lo[mid] < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end && h->id_lo[lo] == want ? lo : AN_NONE;
}

uint64_t an_id(const struct an_heap *h, uint32_t o)
{
    /* the run holding o: the last that starts at or before it */
    uint32_t lo = 0, hi = h->nruns;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->run_at[mid] <= o)
            lo = mid;
        else
            hi = mid;
    }
    return h->run_hi[lo] << 32 | h->id_lo[o];
}

const uint8_t *an_string(const struct an_heap *h, uint64_t sid, size_t *len)
{
    uint64_t off;
    if (!sid || !idmap_get(&h->strings, sid, &off)) return NULL;
    uint64_t rl = be(h->p + off + 5, 4);
    if (off + 9 + rl > h->size) rl = h->size - off - 9;
    *len = (size_t)(rl - (uint64_t)h->idsize);
    return h->p + off + 9 + h->idsize;
}

struct cur an_statics_at(const struct an_heap *h, uint64_t off)
{
    int ids = h->idsize;
    struct cur c = {h->p, off + 1 + (uint64_t)ids + 4 + 6 * (uint64_t)ids + 4, h->size, false};
    uint64_t n = rd(&c, 2);
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        skip(&c, 2);
        skip(&c, (uint64_t)vsize((int)rd(&c, 1), ids));
    }
    return c;
}

struct cur an_fields_at(const struct an_heap *h, uint64_t off)
{
    struct cur c = an_statics_at(h, off);
    uint64_t n = rd(&c, 2);
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        skip(&c, (uint64_t)h->idsize);
        skip(&c, (uint64_t)vsize((int)rd(&c, 1), h->idsize));
    }
    return c;
}

const uint8_t *an_instance_data(const struct an_heap *h, uint32_t o, uint32_t *len)
{
    uint64_t off = an_off(h, o);
    if (h->p[off] != 0x21) return NULL;
    uint64_t at = off + 1 + 2 * (uint64_t)h->idsize + 4;
    *len = (uint32_t)be(h->p + at, 4);
    return h->p + at + 4;
}

uint32_t an_class_of_object(const struct an_heap *h, uint32_t o)
{
    uint64_t v;
    return AN_KIND(h, o) == AN_CLASSOBJ && idmap_get(&h->class_by_id, an_id(h, o), &v) ? (uint32_t)v : AN_NONE;
}

const uint8_t *an_prim_array(const struct an_heap *h, uint32_t o, int *type, uint32_t *count)
{
    uint64_t off = an_off(h, o);
    if (h->p[off] != 0x23) return NULL;
    const uint8_t *p = h->p + off + 1 + h->idsize + 4;
    *count = (uint32_t)be(p, 4);
    *type = p[4];
    return p + 5;
}

void an_class_name(const struct an_heap *h, uint32_t cls, struct buf *b)
{
    size_t n = 0;
    const uint8_t *s = cls != AN_NONE ? an_string(h, h->classes[cls].name_sid, &n) : NULL;
    if (!s) {
        if (cls == AN_NONE)
            buf_put(b, "?", strlen("?"));
        else
            buf_printf(b, "class#0x%llx", (unsigned long long)h->classes[cls].id);
        return;
    }
    size_t dims = 0;
    while (dims < n && s[dims] == '[') dims++;
    const uint8_t *e = s + dims;
    size_t en = n - dims;
    if (dims && en == 1) {
        static const char *const P[] = {"Z", "boolean", "B", "byte", "C", "char",  "S", "short",
                                        "I", "int",     "J", "long", "F", "float", "D", "double"};
        for (size_t i = 0; i < 16; i += 2)
            if (*e == P[i][0]) buf_put(b, P[i + 1], strlen(P[i + 1]));
    } else {
        if (dims && en >= 2 && *e == 'L') e++, en -= 2; /* "[Ljava/lang/Object;" */
        for (size_t i = 0; i < en; i++) buf_u1(b, (uint8_t)(e[i] == '/' ? '.' : (char)e[i]));
    }
    for (size_t i = 0; i < dims; i++) buf_put(b, "[]", strlen("[]"));
}

const uint8_t *an_field(const struct an_heap *h, uint32_t o, uint64_t name_sid, int *type)
{
    uint32_t len, k = h->cls[o];
    const uint8_t *data = an_instance_data(h, o, &len);
    if (!data || !name_sid || k == AN_NONE || h->classes[k].bad || len != h->classes[k].total) return NULL;
    uint32_t base = 0;
    /* walks the chain of supers (bounded by the instance's bytes: each class adds some, or
     * the loop ends at the first class with no fields left to look in) */
    for (uint32_t guard = 0; guard <= h->nclasses; guard++) {
        const struct an_class *c = &h->classes[k];
        struct cur cu = an_fields_at(h, c->off);
        uint64_t m = rd(&cu, 2);
        uint32_t at = base;
        for (uint64_t i = 0; i < m && !cu.bad; i++) {
            uint64_t name = rd(&cu, h->idsize);
            int t = (int)rd(&cu, 1);
            if (name == name_sid) { /* classes that disagree with the record read nothing past it */
                if ((uint64_t)at + (uint64_t)vsize(t, h->idsize) > len) return NULL;
                *type = t;
                return data + at;
            }
            at += (uint32_t)vsize(t, h->idsize);
        }
        base += c->own_bytes;
        uint64_t v;
        if (!c->super || !idmap_get(&h->class_by_id, c->super, &v)) break;
        k = (uint32_t)v;
    }
    return NULL;
}

void an_pages_done(const struct an_heap *h, uint64_t i)
{
    if (h->drop_pages && !(i & ((1u << 16) - 1))) madvise((void *)h->p, (size_t)h->size, MADV_DONTNEED);
}
