/* SPDX-License-Identifier: Apache-2.0 */
/* Class files: parsing (shallow, or deep through the code layer), writing, accessors. */
#include <string.h>

#include "classfile/cf_internal.h"

/* ---- Errors --------------------------------------------------------------------------- */

const char *cf_strerror(int rc)
{
    switch (rc) {
    case CF_OK: return "ok";
    case CF_UNCHANGED: return "unchanged";
    case CF_ERR_FORMAT: return "malformed class file";
    case CF_ERR_VERSION: return "unsupported class-file version";
    case CF_ERR_LIMIT: return "class-file limit exceeded";
    case CF_ERR_NOMEM: return "out of memory";
    case CF_ERR_ARG: return "bad argument";
    default: return "unknown error";
    }
}

/* ---- Parsing -------------------------------------------------------------------------- */

static int parse_cp(cf_class *c, cf_rd *r)
{
    uint32_t n = rd_u2(r);
    if (r->bad || n == 0) return CF_BAD;
    c->cp_count = n;
    c->cp_cap = n + 16;
    c->cp = cf_arena_array(&c->ar, c->cp_cap, sizeof(cf_cpe));
    if (!c->cp) return CF_ERR_NOMEM;
    for (uint32_t i = 1; i < n; i++) {
        size_t at = r->i;
        uint32_t tag = rd_u1(r), k;
        switch (tag) {
        case CP_UTF8: k = rd_u2(r); break;
        case CP_INTEGER:
        case CP_FLOAT: k = 4; break;
        case CP_LONG:
        case CP_DOUBLE: k = 8; break;
        case CP_CLASS:
        case CP_STRING:
        case CP_METHODTYPE:
        case CP_MODULE:
        case CP_PACKAGE: k = 2; break;
        case CP_FIELDREF:
        case CP_METHODREF:
        case CP_IMETHODREF:
        case CP_NAMEANDTYPE:
        case CP_DYNAMIC:
        case CP_INVOKEDYNAMIC: k = 4; break;
        case CP_METHODHANDLE: k = 3; break;
        default: return CF_BAD;
        }
        if (!rd_skip(r, k)) return CF_BAD;
        c->cp[i].raw = r->p + at;
        c->cp[i].len = (uint32_t)(r->i - at);
        if (tag == CP_LONG || tag == CP_DOUBLE) {
            if (++i >= n) return CF_BAD; /* they take two slots */
        }
    }
    /* Cross references. */
    for (uint32_t i = 1; i < n; i++) {
        const uint8_t *p = c->cp[i].raw;
        if (!p) continue;
        switch (p[0]) {
        case CP_CLASS:
        case CP_STRING:
        case CP_METHODTYPE:
        case CP_MODULE:
        case CP_PACKAGE:
            if (!cp_is(c, be_load_u2(p + 1), CP_UTF8)) return CF_BAD;
            break;
        case CP_FIELDREF:
        case CP_METHODREF:
        case CP_IMETHODREF:
            if (!cp_is(c, be_load_u2(p + 1), CP_CLASS) || !cp_is(c, be_load_u2(p + 3), CP_NAMEANDTYPE)) return CF_BAD;
            break;
        case CP_NAMEANDTYPE:
            if (!cp_is(c, be_load_u2(p + 1), CP_UTF8) || !cp_is(c, be_load_u2(p + 3), CP_UTF8)) return CF_BAD;
            break;
        case CP_METHODHANDLE: {
            uint32_t kind = p[1], ref = be_load_u2(p + 2);
            if (kind < 1 || kind > 9) return CF_BAD; /* REF_getField .. REF_invokeInterface */
            if (!cp_is(c, ref, CP_FIELDREF) && !cp_is(c, ref, CP_METHODREF) && !cp_is(c, ref, CP_IMETHODREF))
                return CF_BAD;
            break;
        }
        case CP_DYNAMIC:
        case CP_INVOKEDYNAMIC:
            if (!cp_is(c, be_load_u2(p + 3), CP_NAMEANDTYPE)) return CF_BAD;
            break;
        default: break;
        }
    }
    return CF_OK;
}

static int parse_attrs_raw(cf_rd *r)
{
    uint32_t n = rd_u2(r);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        rd_u2(r);
        uint32_t len = rd_u4(r);
        rd_skip(r, len);
    }
    return r->bad ? CF_ERR_FORMAT : CF_OK;
}

static int parse_methods(cf_class *c, cf_rd *r)
{
    uint32_t n = rd_u2(r);
    if (r->bad) return CF_BAD;
    if (n > (r->n - r->i) / 8) return CF_BAD;
    c->nmethods = (uint16_t)n;
    c->methods = cf_arena_array(&c->ar, n ? n : 1, sizeof(cf_method));
    if (!c->methods) return CF_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        cf_method *m = &c->methods[i];
        m->access = (uint16_t)rd_u2(r);
        m->name = (uint16_t)rd_u2(r);
        m->desc = (uint16_t)rd_u2(r);
        m->nattr = (uint16_t)rd_u2(r);
        m->code = -1;
        if (r->bad || !cp_is(c, m->name, CP_UTF8) || !cp_is(c, m->desc, CP_UTF8)) return CF_BAD;
        if (m->nattr > (r->n - r->i) / 6) return CF_BAD;
        m->attrs = cf_arena_array(&c->ar, m->nattr ? m->nattr : 1, sizeof(cf_attr));
        if (!m->attrs) return CF_ERR_NOMEM;
        for (uint32_t j = 0; j < m->nattr; j++) {
            cf_attr *a = &m->attrs[j];
            a->name = (uint16_t)rd_u2(r);
            a->len = rd_u4(r);
            a->data = rd_skip(r, a->len);
            if (r->bad) return CF_BAD;
            if (cp_utf8_eq(c, a->name, "Code")) {
                if (m->code >= 0) return CF_BAD;
                m->code = (int)j;
            }
        }
        m->sname = cp_utf8_dup(c, m->name);
        m->sdesc = cp_utf8_dup(c, m->desc);
        if (!m->sname || !m->sdesc) return CF_ERR_NOMEM;
    }
    return CF_OK;
}

/* Interfaces and fields: checked, kept raw. */
static int parse_middle(cf_class *c, cf_rd *r)
{
    size_t start = r->i;
    c->middle = r->p + r->i;
    uint32_t ni = rd_u2(r);
    for (uint32_t i = 0; i < ni && !r->bad; i++)
        if (!cp_is(c, rd_u2(r), CP_CLASS)) return CF_BAD;
    uint32_t nf = rd_u2(r);
    for (uint32_t i = 0; i < nf && !r->bad; i++) {
        rd_u2(r);
        if (!cp_is(c, rd_u2(r), CP_UTF8) || !cp_is(c, rd_u2(r), CP_UTF8)) return CF_BAD;
        if (parse_attrs_raw(r) != CF_OK) return CF_BAD;
    }
    if (r->bad) return CF_BAD;
    c->middle_len = r->i - start;
    return CF_OK;
}

static int parse_class(cf_class *c, cf_rd *r, unsigned flags)
{
    int rc;
    if (rd_u4(r) != 0xCAFEBABEu) return CF_BAD;
    c->minor = (uint16_t)rd_u2(r);
    c->major = (uint16_t)rd_u2(r);
    if (r->bad) return CF_BAD;
    if (c->major < CF_MAJOR_MIN || c->major > CF_MAJOR_MAX) return CF_ERR_VERSION;
    if ((rc = parse_cp(c, r)) != CF_OK) return rc;
    c->access = (uint16_t)rd_u2(r);
    c->this_idx = (uint16_t)rd_u2(r);
    c->super_idx = (uint16_t)rd_u2(r);
    if (r->bad || !cp_is(c, c->this_idx, CP_CLASS)) return CF_BAD;
    if (c->super_idx && !cp_is(c, c->super_idx, CP_CLASS)) return CF_BAD;
    if ((rc = parse_middle(c, r)) != CF_OK || (rc = parse_methods(c, r)) != CF_OK) return rc;
    size_t start = r->i;
    c->tail = r->p + r->i;
    if ((rc = parse_attrs_raw(r)) != CF_OK) return rc;
    c->tail_len = r->i - start;
    if (r->i != r->n) return CF_BAD; /* trailing bytes */
    c->name = cp_utf8_dup(c, be_load_u2(c->cp[c->this_idx].raw + 1));
    c->super_name = c->super_idx ? cp_utf8_dup(c, be_load_u2(c->cp[c->super_idx].raw + 1)) : NULL;
    if (!c->name || (c->super_idx && !c->super_name)) return CF_ERR_NOMEM;
    if (flags & CF_PARSE_DEEP) {
        for (unsigned i = 0; i < c->nmethods; i++)
            if (c->methods[i].code >= 0 && (rc = cf_check_code(c, i)) != CF_OK) return rc;
    }
    return CF_OK;
}

int cf_parse(const uint8_t *buf, size_t len, unsigned flags, cf_class **out)
{
    if (!out) return CF_ERR_ARG;
    *out = NULL;
    if (!buf) return CF_ERR_ARG;
    if (len > 0x7FFFFFFF) return CF_ERR_LIMIT;
    cf_arena ar;
    cf_arena_init(&ar, len);
    cf_class *c = cf_arena_alloc(&ar, sizeof(cf_class));
    if (!c) {
        cf_arena_release(&ar);
        return CF_ERR_NOMEM;
    }
    c->ar = ar;
    cf_rd r;
    rd_init(&r, buf, len);
    int rc = parse_class(c, &r, flags);
    if (rc == CF_OK) {
        *out = c;
        return CF_OK;
    }
    if (c->ar.failed && rc == CF_ERR_FORMAT) rc = CF_ERR_NOMEM;
    ar = c->ar;
    cf_arena_release(&ar);
    return rc;
}

void cf_free(cf_class *c)
{
    if (!c) return;
    cf_arena ar = c->ar;
    cf_arena_release(&ar);
}

/* ---- Writing -------------------------------------------------------------------------- */

int cf_write(const cf_class *c, uint8_t **out, size_t *out_len)
{
    if (!c || !out || !out_len) return CF_ERR_ARG;
    *out = NULL;
    *out_len = 0;
    struct buf b;
    buf_init_limited(&b, 0x7FFFFFFF);
    buf_u4(&b, 0xCAFEBABEu);
    buf_u2(&b, c->minor);
    buf_u2(&b, c->major);
    buf_u2(&b, c->cp_count);
    for (uint32_t i = 1; i < c->cp_count; i++)
        if (c->cp[i].raw) buf_put(&b, c->cp[i].raw, c->cp[i].len);
    buf_u2(&b, c->access);
    buf_u2(&b, c->this_idx);
    buf_u2(&b, c->super_idx);
    buf_put(&b, c->middle, c->middle_len);
    buf_u2(&b, c->nmethods);
    for (unsigned i = 0; i < c->nmethods; i++) {
        const cf_method *m = &c->methods[i];
        buf_u2(&b, m->access);
        buf_u2(&b, m->name);
        buf_u2(&b, m->desc);
        buf_u2(&b, m->nattr);
        for (unsigned j = 0; j < m->nattr; j++) {
            buf_u2(&b, m->attrs[j].name);
            buf_u4(&b, m->attrs[j].len);
            buf_put(&b, m->attrs[j].data, m->attrs[j].len);
        }
    }
    buf_put(&b, c->tail, c->tail_len);
    if (b.oom) {
        buf_free(&b);
        return CF_ERR_NOMEM;
    }
    *out = b.data;
    *out_len = b.len;
    return CF_OK;
}

/* ---- Accessors ------------------------------------------------------------------------ */

const char *cf_class_name(const cf_class *c) { return c ? c->name : NULL; }
unsigned cf_major(const cf_class *c) { return c ? c->major : 0; }
unsigned cf_cp_tag(const cf_class *c, unsigned i)
{
    return (c && i > 0 && i < c->cp_count && c->cp[i].raw) ? c->cp[i].raw[0] : 0;
}
unsigned cf_method_count(const cf_class *c) { return c ? c->nmethods : 0; }
const char *cf_method_name(const cf_class *c, unsigned i)
{
    return (c && i < c->nmethods) ? c->methods[i].sname : NULL;
}
const char *cf_method_desc(const cf_class *c, unsigned i)
{
    return (c && i < c->nmethods) ? c->methods[i].sdesc : NULL;
}
long cf_method_code_length(const cf_class *c, unsigned i)
{
    if (!c || i >= c->nmethods || c->methods[i].code < 0) return -1;
    const cf_attr *a = &c->methods[i].attrs[c->methods[i].code];
    return a->len >= 8 ? (long)be_load_u4(a->data + 4) : -1;
}
