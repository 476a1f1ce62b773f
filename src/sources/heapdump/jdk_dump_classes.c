/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof's view of the JDK dump's classes (struct hd_class), made from their CLASS DUMP
 * records when pass 2 begins: fields in the order the caller gives (the JVM's
 * declaration order, as the JVMTI walk writes them), statics with their values, and for
 * each class the steps that turn one of its instances' values into hprof's (own fields
 * first, then the super's, references 4 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/jdk_dump_internal.h"
#include "sources/heapdump/jdk_dump_reader.h"
#include "tables/classes.h"
#include "util/buf.h"
#include "util/hprof_format.h"

/* perm[0..n): the names `have` in the order `want` gives, those it does not name after. */
static void order_names(char *const *have, uint32_t n, const char *const *want, uint32_t nwant, uint32_t *perm)
{
    uint8_t *taken = calloc(n ? n : 1, 1);
    uint32_t j = 0;
    for (uint32_t w = 0; taken && w < nwant; w++)
        for (uint32_t i = 0; i < n; i++)
            if (!taken[i] && strcmp(have[i], want[w]) == 0) {
                taken[i] = 1;
                perm[j++] = i;
                break;
            }
    for (uint32_t i = 0; i < n; i++)
        if (!taken || !taken[i]) perm[j++] = i;
    free(taken);
}

/* The descriptors of one list (statics or instance fields) of a CLASS DUMP. */
struct descs {
    uint32_t n;
    char **names;
    uint8_t *types;
    uint32_t *at, *perm;
};

static void descs_free(struct descs *d)
{
    for (uint32_t i = 0; d->names && i < d->n; i++) free(d->names[i]);
    free(d->names);
    free(d->types);
    free(d->at);
    free(d->perm);
}

/* Reads the list at p (u2 count, then descriptors, each with a value when `values`) and
 * orders it by `want`; returns its end, NULL when out of memory. d->at[i] is where the
 * value is: with values, from p + 2; without, among an instance's values. */
static const uint8_t *descs_read(const struct jdr *r, const uint8_t *p, bool values, const char *const *want,
                                 uint32_t nwant, struct descs *d)
{
    d->n = be_load_u2(p);
    size_t m = (size_t)d->n + 1;
    d->names = calloc(m, sizeof *d->names);
    d->types = malloc(m);
    d->at = malloc(m * sizeof *d->at);
    d->perm = malloc(m * sizeof *d->perm);
    if (!d->names || !d->types || !d->at || !d->perm) return NULL;
    const uint8_t *q = p + 2;
    uint32_t off = 0;
    for (uint32_t i = 0; i < d->n; i++) { /* name, type[, value] */
        if (!(d->names[i] = jd_string(r, be_load_u8(q)))) return NULL;
        d->types[i] = q[ID_BYTES];
        q += ID_BYTES + 1;
        d->at[i] = values ? (uint32_t)(q - (p + 2)) : off;
        off += jd_src_size(d->types[i]);
        if (values) q += jd_src_size(d->types[i]);
    }
    order_names(d->names, d->n, want, nwant, d->perm);
    return q;
}

/* Takes the names of d into hprof's fields, in d's order. */
static struct hd_field *fields_of(struct descs *d)
{
    struct hd_field *f = calloc((size_t)d->n + 1, sizeof *f);
    for (uint32_t j = 0; f && j < d->n; j++) {
        uint32_t i = d->perm[j];
        f[j].name = d->names[i];
        f[j].type = d->types[i];
        d->names[i] = NULL;
    }
    return f;
}

/* The statics of class o, from the list at p; returns the list's end (NULL: no memory). */
static const uint8_t *lay_out_statics(struct jdr *r, struct hd_class *o, const struct jdr_order *ord, const uint8_t *p)
{
    struct descs d = {0};
    const uint8_t *end = descs_read(r, p, true, ord ? ord->statics : NULL, ord ? ord->nstatics : 0, &d);
    if (end) {
        for (uint32_t j = 0; j < d.n; j++) o->static_bytes += hd_type_size(d.types[j]);
        o->static_values = calloc(o->static_bytes + 1, 1);
        o->statics = fields_of(&d);
        if (o->static_values && o->statics) {
            uint8_t *v = o->static_values;
            for (uint32_t j = 0; j < d.n; j++) v = jd_put_value(r, v, o->statics[j].type, p + 2 + d.at[d.perm[j]]);
            o->nstatics = d.n;
        } else {
            end = NULL;
        }
    }
    descs_free(&d);
    return end;
}

/* The own instance fields of class k, from the list at p. false: no memory. */
static bool lay_out_fields(struct jdr *r, uint32_t k, const uint8_t *p)
{
    struct cls *c = &r->cls[k];
    struct hd_class *o = &r->out[k];
    const struct jdr_order *ord = c->order;
    struct descs d = {0};
    bool ok = descs_read(r, p, false, ord ? ord->inst : NULL, ord ? ord->ninst : 0, &d) != NULL;
    if (ok) {
        c->own = malloc(((size_t)d.n + 1) * sizeof *c->own);
        for (uint32_t j = 0; c->own && j < d.n; j++) {
            uint32_t i = d.perm[j];
            c->own[j].src = d.at[i];
            c->own[j].type = d.types[i];
            o->own_bytes += hd_type_size(d.types[i]);
            c->own_src += jd_src_size(d.types[i]);
        }
        o->fields = c->own ? fields_of(&d) : NULL;
        ok = o->fields != NULL;
        if (ok) o->nfields = c->nown = d.n;
    }
    descs_free(&d);
    return ok;
}

/* hprof's view of class k from its CLASS DUMP. false: no memory. */
static bool lay_out(struct jdr *r, uint32_t k)
{
    struct cls *c = &r->cls[k];
    struct hd_class *o = &r->out[k];
    const char *sig = o->info->signature;
    o->is_array = sig && sig[0] == '[';
    if (o->is_array) o->elem_type = (uint8_t)hd_type_of(sig[1]);
    if (!c->dump) { /* array classes may have none */
        if (r->object_class >= 0 && r->object_class != k && r->out[r->object_class].info)
            o->super = &r->out[r->object_class];
        return true;
    }
    const uint8_t *p = c->dump + 4;
    c->super = jd_class_index(r, be_load_u8(p));
    if (c->super >= 0 && r->out[c->super].info) o->super = &r->out[c->super];
    o->loader_id = jd_map_ref(r, be_load_u8(p + ID_BYTES));
    o->signers_id = jd_map_ref(r, be_load_u8(p + 2 * ID_BYTES));
    o->domain_id = jd_map_ref(r, be_load_u8(p + 3 * ID_BYTES));
    p += 6 * ID_BYTES + 4;
    unsigned ncp = be_load_u2(p);
    p += 2;
    for (unsigned i = 0; i < ncp; i++) p += 3 + jd_src_size(p[2]);
    p = lay_out_statics(r, o, c->order, p);
    return p && lay_out_fields(r, k, p);
}

/* An instance's values, own class first, as steps (see struct op). */
void jd_build_ops(struct jdr *r, struct cls *c)
{
    uint32_t n = 0, depth = 0;
    c->ops_state = -1;
    for (int64_t x = c - r->cls; x >= 0; x = r->cls[x].super) {
        if (!r->out[x].info || ++depth > 1024) return;
        n += r->cls[x].nown;
    }
    c->ops = malloc(((size_t)n + 1) * sizeof *c->ops);
    if (!c->ops) return;
    uint32_t src = 0;
    for (int64_t x = c - r->cls; x >= 0; x = r->cls[x].super) {
        const struct cls *s = &r->cls[x];
        for (uint32_t j = 0; j < s->nown; j++) c->ops[c->nops++] = (struct op){src + s->own[j].src, s->own[j].type};
        src += s->own_src;
    }
    c->src_bytes = src;
    c->ops_state = 1;
}

void jd_lay_out_classes(struct jdr *r)
{
    for (uint32_t k = 0; k < r->ncls; k++)
        if (r->out[k].info && !lay_out(r, k)) r->out[k].info = NULL;
    for (uint32_t k = 0; k < r->ncls; k++) {
        struct hd_class *o = &r->out[k];
        uint32_t depth = 0;
        for (const struct hd_class *x = o; x && x->info && depth++ < 1024; x = x->super) o->inst_bytes += x->own_bytes;
    }
}
