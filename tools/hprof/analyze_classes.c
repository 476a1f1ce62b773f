/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The classes of a dump: every CLASS DUMP's own fields and strong reference offsets, the
 * layout along the chain of supers, VisualVM's instance sizes, the classes known by name
 * (String, ArrayList, HashMap, Reference, Class) and those of primitive arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_classes.h"
#include "analyze_lookup.h"
#include "analyze_read.h"

/* Whether a string is s, '/' and '.' alike: the JVM's dumps name classes
 * "java/lang/String", this agent's and the original HPROF's "java.lang.String". */
static bool name_is(const struct an_heap *h, uint64_t sid, const char *s)
{
    size_t n;
    const uint8_t *t = an_string(h, sid, &n);
    if (!t || n != strlen(s)) return false;
    for (size_t i = 0; i < n; i++)
        if (t[i] != (uint8_t)s[i] && !(t[i] == '.' && s[i] == '/')) return false;
    return true;
}

static uint64_t find_sid(const struct an_heap *h, const char *s)
{
    for (size_t i = 0; i < h->strings.cap; i++) {
        uint64_t k = h->strings.keys[i];
        if (k && name_is(h, k, s)) return k;
    }
    return 0;
}

/* A class's own fields from its CLASS DUMP: bytes, strong object-field offsets, and the
 * bytes VisualVM counts for them; with_ids: the oop size. */
static void own_fields(struct an_heap *h, struct an_class *k, uint64_t *vv, uint32_t **refs, size_t *cap)
{
    int ids = h->idsize;
    struct cur c = an_fields_at(h, k->off);
    uint64_t n = rd(&c, 2);
    uint64_t own = 0, v = 0;
    k->refs = (uint32_t)h->nrefoffs;
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        uint64_t name = rd(&c, ids);
        int t = (int)rd(&c, 1);
        if (!vsize(t, ids)) {
            k->bad = true;
            break;
        }
        if (t == HD_OBJECT && !(k->id == h->weak_class && name == h->sid_referent)) {
            if (h->nrefoffs == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                uint32_t *a = realloc(*refs, *cap * sizeof *a);
                if (!a) {
                    k->bad = true;
                    break;
                }
                *refs = a;
            }
            (*refs)[h->nrefoffs++] = (uint32_t)own;
        }
        if (t == HD_OBJECT && k->id == h->weak_class && name == h->sid_referent) h->weak_off = (uint32_t)own;
        own += (uint64_t)vsize(t, ids);
        v += t == HD_OBJECT ? (uint64_t)h->oopsize : (uint64_t)vsize(t, ids);
    }
    if (c.bad || own > UINT32_MAX / 2) k->bad = true;
    k->own_bytes = (uint32_t)own;
    k->nrefs = (uint32_t)(h->nrefoffs - k->refs);
    *vv = v;
}

static uint8_t kind_of(const struct an_heap *h, uint64_t sid)
{
    if (name_is(h, sid, "java/lang/String")) return AN_K_STRING;
    if (name_is(h, sid, "java/util/ArrayList")) return AN_K_ARRAYLIST;
    if (name_is(h, sid, "java/util/HashMap")) return AN_K_HASHMAP;
    return AN_K_PLAIN;
}

/* Lays out every class: total field bytes, the up link, VisualVM's instance size. Chains
 * of supers are walked with an explicit stack (a file decides how deep they are); a chain
 * that loops or ends at a class not in the dump leaves its classes bad. */
static int layout(struct an_heap *h, uint64_t *vv)
{
    enum { TODO, BUSY, DONE };
    uint8_t *state = calloc(h->nclasses ? h->nclasses : 1, 1);
    uint32_t *stack = malloc((h->nclasses ? h->nclasses : 1) * sizeof *stack);
    if (!state || !stack) return free(state), free(stack), -1;
    bool raw_sizes = false; /* java.lang.Object's CLASS DUMP gives a size: VisualVM then takes those */
    for (uint32_t i = 0; i < h->nclasses; i++) {
        struct an_class *k = &h->classes[i];
        if (!k->super && name_is(h, k->name_sid, "java/lang/Object")) {
            uint64_t raw = be(h->p + k->off + 1 + h->idsize + 4 + 6 * h->idsize, 4);
            raw_sizes = raw > 0 && raw < INT32_MAX;
        }
    }
    for (uint32_t i = 0; i < h->nclasses; i++) {
        uint32_t n = 0, top = i;
        while (state[top] == TODO) {
            state[top] = BUSY;
            stack[n++] = top;
            uint64_t sup = h->classes[top].super, v;
            if (!sup) break;
            if (!idmap_get(&h->class_by_id, sup, &v)) {
                h->classes[top].bad = true;
                break;
            }
            top = (uint32_t)v;
            if (state[top] == BUSY) { /* a loop */
                h->classes[top].bad = true;
                break;
            }
        }
        while (n) {
            uint32_t j = stack[--n];
            struct an_class *k = &h->classes[j];
            struct an_class *s = NULL;
            uint64_t v;
            if (k->super && idmap_get(&h->class_by_id, k->super, &v) && v != j && state[v] == DONE) s = &h->classes[v];
            if (k->super && !s) k->bad = true;
            if (s && s->bad) k->bad = true;
            uint64_t total = (uint64_t)k->own_bytes + (s ? s->total : 0);
            if (total > UINT32_MAX / 2) k->bad = true, total = 0;
            k->total = (uint32_t)total;
            vv[j] += s ? vv[s - h->classes] : 0;
            k->up = k->nrefs ? j + 1 : s ? s->up : 0;
            k->is_ref = k->id == h->weak_class || (s && s->is_ref);
            if (raw_sizes)
                k->shallow = be(h->p + k->off + 1 + h->idsize + 4 + 6 * h->idsize, 4);
            else
                k->shallow = align8((uint64_t)h->idsize + (uint64_t)h->oopsize + vv[j]);
            state[j] = DONE;
        }
    }
    free(state);
    free(stack);
    return 0;
}

int an_classes_index(struct an_heap *h, const uint32_t *objs, uint32_t nobjs)
{
    h->java_lang_class = AN_NONE;
    for (uint32_t x = 0; x < nobjs; x++)
        if (h->p[an_off(h, objs[x])] == 0x20) h->nclasses++;
    h->classes = calloc(h->nclasses ? h->nclasses : 1, sizeof *h->classes);
    uint64_t *vv = calloc(h->nclasses ? h->nclasses : 1, sizeof *vv);
    if (!h->classes || !vv) return free(vv), -1;
    uint32_t j = 0;
    for (uint32_t x = 0; x < nobjs; x++) {
        uint32_t i = objs[x];
        if (h->p[an_off(h, i)] != 0x20) continue;
        struct an_class *k = &h->classes[j];
        struct cur c = {h->p, an_off(h, i) + 1, h->size, false};
        k->id = rd(&c, h->idsize);
        rd(&c, 4);
        k->super = rd(&c, h->idsize);
        k->loader = rd(&c, h->idsize);
        k->off = an_off(h, i);
        k->obj = i;
        uint64_t sid = 0;
        idmap_get(&h->class_names, k->id, &sid);
        k->name_sid = sid;
        k->kind = kind_of(h, sid);
        if (name_is(h, sid, "java/lang/ref/Reference")) h->weak_class = k->id, h->weak_index = j;
        if (name_is(h, sid, "java/lang/Class")) h->java_lang_class = j;
        if (!put(&h->class_by_id, k->id, j)) return free(vv), -1;
        j++;
    }
    for (uint32_t i = 0; i < h->nclasses; i++)
        if (h->classes[i].kind == AN_K_PLAIN && h->classes[i].id == h->weak_class) h->classes[i].kind = AN_K_REFERENCE;
    h->sid_referent = h->weak_class ? find_sid(h, "referent") : 0;
    h->sid_value = find_sid(h, "value");
    h->sid_size = find_sid(h, "size");
    h->sid_elements = find_sid(h, "elementData");
    h->sid_table = find_sid(h, "table");
    size_t cap = 0;
    h->weak_off = UINT32_MAX;
    for (uint32_t i = 0; i < h->nclasses; i++) own_fields(h, &h->classes[i], &vv[i], &h->refoffs, &cap);
    if (h->weak_off == UINT32_MAX) h->weak_class = 0; /* no referent field: no Reference is special */
    int rc = layout(h, vv);
    free(vv);
    return rc;
}

void an_prim_classes(struct an_heap *h)
{
    static const struct {
        int type;
        const char *name, *java;
    } P[] = {{HD_BOOLEAN, "[Z", "boolean[]"}, {HD_CHAR, "[C", "char[]"}, {HD_FLOAT, "[F", "float[]"},
             {HD_DOUBLE, "[D", "double[]"},   {HD_BYTE, "[B", "byte[]"}, {HD_SHORT, "[S", "short[]"},
             {HD_INT, "[I", "int[]"},         {HD_LONG, "[J", "long[]"}};
    for (int t = 0; t < 16; t++) h->prim_class[t] = AN_NONE;
    for (uint32_t i = 0; i < h->nclasses; i++)
        for (size_t j = 0; j < sizeof P / sizeof P[0]; j++)
            if (h->prim_class[P[j].type] == AN_NONE &&
                (name_is(h, h->classes[i].name_sid, P[j].name) || name_is(h, h->classes[i].name_sid, P[j].java)))
                h->prim_class[P[j].type] = i;
}
