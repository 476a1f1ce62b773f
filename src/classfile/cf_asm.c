/* SPDX-License-Identifier: Apache-2.0 */
/* A small class-file assembler for tests and tools: builds a class from constant-pool
 * entries, raw attributes and code bytes. No validation beyond overflow checks. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_internal.h"

struct cf_asm {
    unsigned major, minor, access, this_idx, super_idx;
    struct buf cp, fields, methods, cattrs;
    unsigned cp_count, nfields, nmethods, ncattrs;
    int bad;
};

cf_asm *cfa_new(unsigned major, unsigned minor, unsigned access, const char *this_name, const char *super_name)
{
    cf_asm *a = calloc(1, sizeof(*a));
    if (!a) return NULL;
    a->major = major;
    a->minor = minor;
    a->access = access;
    a->cp_count = 1;
    buf_init_limited(&a->cp, 1u << 26);
    buf_init_limited(&a->fields, 1u << 26);
    buf_init_limited(&a->methods, 1u << 26);
    buf_init_limited(&a->cattrs, 1u << 26);
    a->this_idx = cfa_class(a, this_name);
    a->super_idx = super_name ? cfa_class(a, super_name) : 0;
    return a;
}

void cfa_free(cf_asm *a)
{
    if (!a) return;
    buf_free(&a->cp);
    buf_free(&a->fields);
    buf_free(&a->methods);
    buf_free(&a->cattrs);
    free(a);
}

static unsigned entry(cf_asm *a, unsigned tag, const void *p, size_t n, unsigned slots)
{
    if (a->cp_count + slots > 0xFFFF) {
        a->bad = 1;
        return 0;
    }
    buf_u1(&a->cp, tag);
    buf_put(&a->cp, p, n);
    unsigned i = a->cp_count;
    a->cp_count += slots;
    return i;
}

unsigned cfa_utf8(cf_asm *a, const char *s)
{
    size_t n = strlen(s);
    if (n > 0xFFFF) {
        a->bad = 1;
        return 0;
    }
    uint8_t l[2];
    be_store_u2(l, (uint32_t)n);
    if (a->cp_count >= 0xFFFF) {
        a->bad = 1;
        return 0;
    }
    buf_u1(&a->cp, CP_UTF8);
    buf_put(&a->cp, l, 2);
    buf_put(&a->cp, s, n);
    return a->cp_count++;
}

static unsigned ref1(cf_asm *a, unsigned tag, unsigned x)
{
    uint8_t p[2];
    be_store_u2(p, x);
    return entry(a, tag, p, 2, 1);
}
static unsigned ref2(cf_asm *a, unsigned tag, unsigned x, unsigned y)
{
    uint8_t p[4];
    be_store_u2(p, x);
    be_store_u2(p + 2, y);
    return entry(a, tag, p, 4, 1);
}

unsigned cfa_class(cf_asm *a, const char *name) { return ref1(a, CP_CLASS, cfa_utf8(a, name)); }
unsigned cfa_string(cf_asm *a, const char *s) { return ref1(a, CP_STRING, cfa_utf8(a, s)); }
unsigned cfa_int(cf_asm *a, int32_t v)
{
    uint8_t p[4];
    be_store_u4(p, (uint32_t)v);
    return entry(a, CP_INTEGER, p, 4, 1);
}
unsigned cfa_float_bits(cf_asm *a, uint32_t bits)
{
    uint8_t p[4];
    be_store_u4(p, bits);
    return entry(a, CP_FLOAT, p, 4, 1);
}
unsigned cfa_long(cf_asm *a, int64_t v)
{
    uint8_t p[8];
    be_store_u4(p, (uint32_t)((uint64_t)v >> 32));
    be_store_u4(p + 4, (uint32_t)v);
    return entry(a, CP_LONG, p, 8, 2);
}
unsigned cfa_double_bits(cf_asm *a, uint64_t bits)
{
    uint8_t p[8];
    be_store_u4(p, (uint32_t)(bits >> 32));
    be_store_u4(p + 4, (uint32_t)bits);
    return entry(a, CP_DOUBLE, p, 8, 2);
}
unsigned cfa_nat(cf_asm *a, const char *name, const char *desc)
{
    unsigned n = cfa_utf8(a, name), d = cfa_utf8(a, desc);
    return ref2(a, CP_NAMEANDTYPE, n, d);
}
static unsigned memberref(cf_asm *a, unsigned tag, const char *cls, const char *name, const char *desc)
{
    unsigned c = cfa_class(a, cls), nt = cfa_nat(a, name, desc);
    return ref2(a, tag, c, nt);
}
unsigned cfa_fieldref(cf_asm *a, const char *cls, const char *name, const char *desc)
{
    return memberref(a, CP_FIELDREF, cls, name, desc);
}
unsigned cfa_methodref(cf_asm *a, const char *cls, const char *name, const char *desc)
{
    return memberref(a, CP_METHODREF, cls, name, desc);
}
unsigned cfa_imethodref(cf_asm *a, const char *cls, const char *name, const char *desc)
{
    return memberref(a, CP_IMETHODREF, cls, name, desc);
}
unsigned cfa_method_handle(cf_asm *a, unsigned kind, unsigned ref_index)
{
    uint8_t p[3];
    p[0] = (uint8_t)kind;
    be_store_u2(p + 1, ref_index);
    return entry(a, CP_METHODHANDLE, p, 3, 1);
}
unsigned cfa_method_type(cf_asm *a, const char *desc) { return ref1(a, CP_METHODTYPE, cfa_utf8(a, desc)); }
unsigned cfa_dynamic(cf_asm *a, unsigned tag, unsigned bsm, const char *name, const char *desc)
{
    unsigned nt = cfa_nat(a, name, desc);
    return ref2(a, tag, bsm, nt);
}
unsigned cfa_module(cf_asm *a, const char *name) { return ref1(a, CP_MODULE, cfa_utf8(a, name)); }
unsigned cfa_package(cf_asm *a, const char *name) { return ref1(a, CP_PACKAGE, cfa_utf8(a, name)); }

static void list_grow(cf_asm *a, cfa_attrs *l, const void *p, size_t n)
{
    /* the list seen as a buffer for this one write; its capacity grows by buf.c's policy */
    struct buf b = {.data = l->p, .len = l->len, .cap = l->cap, .limit = (size_t)1 << 28};
    buf_put(&b, p, n);
    if (b.oom) a->bad = 1;
    l->p = b.data;
    l->len = b.len;
    l->cap = b.cap;
}

void cfa_attr(cf_asm *a, cfa_attrs *list, const char *name, const void *body, size_t len)
{
    uint8_t h[6];
    be_store_u2(h, cfa_utf8(a, name));
    be_store_u4(h + 2, (uint32_t)len);
    list_grow(a, list, h, 6);
    list_grow(a, list, body, len);
    list->count++;
}

void cfa_attrs_free(cfa_attrs *list)
{
    free(list->p);
    memset(list, 0, sizeof(*list));
}

void cfa_code(cf_asm *a, cfa_attrs *list, unsigned max_stack, unsigned max_locals, const uint8_t *code, size_t code_len,
              const uint16_t *exc, unsigned n_exc, const cfa_attrs *code_attrs)
{
    struct buf b;
    buf_init_limited(&b, 1u << 26);
    buf_u2(&b, max_stack);
    buf_u2(&b, max_locals);
    buf_u4(&b, (uint32_t)code_len);
    buf_put(&b, code, code_len);
    buf_u2(&b, n_exc);
    for (unsigned i = 0; i < 4 * n_exc; i++) buf_u2(&b, exc[i]);
    buf_u2(&b, code_attrs ? code_attrs->count : 0);
    if (code_attrs) buf_put(&b, code_attrs->p, code_attrs->len);
    if (b.oom) a->bad = 1;
    cfa_attr(a, list, "Code", b.data, b.len);
    buf_free(&b);
}

static void member(cf_asm *a, struct buf *out, unsigned access, const char *name, const char *desc,
                   const cfa_attrs *attrs)
{
    unsigned n = cfa_utf8(a, name), d = cfa_utf8(a, desc);
    buf_u2(out, access);
    buf_u2(out, n);
    buf_u2(out, d);
    buf_u2(out, attrs ? attrs->count : 0);
    if (attrs) buf_put(out, attrs->p, attrs->len);
}

void cfa_field(cf_asm *a, unsigned access, const char *name, const char *desc, const cfa_attrs *attrs)
{
    member(a, &a->fields, access, name, desc, attrs);
    a->nfields++;
}

void cfa_method(cf_asm *a, unsigned access, const char *name, const char *desc, const cfa_attrs *attrs)
{
    member(a, &a->methods, access, name, desc, attrs);
    a->nmethods++;
}

void cfa_class_attrs(cf_asm *a, const cfa_attrs *attrs)
{
    buf_put(&a->cattrs, attrs->p, attrs->len);
    a->ncattrs += attrs->count;
}

int cfa_finish(cf_asm *a, uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (a->bad || a->cp.oom || a->fields.oom || a->methods.oom || a->cattrs.oom) return -1;
    struct buf b;
    buf_init_limited(&b, 1u << 28);
    buf_u4(&b, 0xCAFEBABEu);
    buf_u2(&b, a->minor);
    buf_u2(&b, a->major);
    buf_u2(&b, a->cp_count);
    buf_put(&b, a->cp.data, a->cp.len);
    buf_u2(&b, a->access);
    buf_u2(&b, a->this_idx);
    buf_u2(&b, a->super_idx);
    buf_u2(&b, 0); /* interfaces */
    buf_u2(&b, a->nfields);
    buf_put(&b, a->fields.data, a->fields.len);
    buf_u2(&b, a->nmethods);
    buf_put(&b, a->methods.data, a->methods.len);
    buf_u2(&b, a->ncattrs);
    buf_put(&b, a->cattrs.data, a->cattrs.len);
    if (b.oom) {
        buf_free(&b);
        return -1;
    }
    *out = b.data;
    *out_len = b.len;
    return 0;
}
