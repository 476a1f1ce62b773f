/* Class-file parsing, writing, constant pool, and the cf_instrument driver. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_internal.h"

/* ---- Arena ---------------------------------------------------------------------------- */

struct cf_block {
    cf_block *next;
    size_t size, used;
    max_align_t data[];
};

#define ARENA_BLOCK (64u * 1024u)

void cf_arena_init(cf_arena *a, size_t input_len) {
    a->head = NULL;
    a->total = 0;
    a->failed = 0;
    /* Decoding needs a few dozen bytes per code byte at most; be generous but bounded. */
    size_t lim = (size_t)1 << 40;
    if (input_len < lim / 512) lim = input_len * 256 + ((size_t)8 << 20);
    a->limit = lim;
}

void *cf_arena_alloc(cf_arena *a, size_t n) {
    if (a->failed) return NULL;
    if (n == 0) n = 1;
    n = (n + 15) & ~(size_t)15;
    if (n > a->limit) { a->failed = 1; return NULL; }
    cf_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t sz = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        if (a->total + sz > a->limit) { a->failed = 1; return NULL; }
        b = malloc(sizeof(cf_block) + sz);
        if (!b) { a->failed = 1; return NULL; }
        b->size = sz;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total += sz;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void *cf_arena_array(cf_arena *a, size_t count, size_t size) {
    if (size && count > ((size_t)-1 >> 2) / size) { a->failed = 1; return NULL; }
    return cf_arena_alloc(a, count * size);
}

void cf_arena_release(cf_arena *a) {
    cf_block *b = a->head;
    while (b) {
        cf_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}

/* ---- Output buffer -------------------------------------------------------------------- */

void buf_init(cf_buf *b, size_t limit) { b->p = NULL; b->len = b->cap = 0; b->limit = limit; b->bad = 0; }
void buf_free(cf_buf *b) { free(b->p); b->p = NULL; b->len = b->cap = 0; }

void buf_bytes(cf_buf *b, const void *p, size_t n) {
    if (b->bad) return;
    if (n > b->limit || b->len > b->limit - n) { b->bad = 1; return; }
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n) nc *= 2;
        uint8_t *q = realloc(b->p, nc);
        if (!q) { b->bad = 1; return; }
        b->p = q;
        b->cap = nc;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}
void buf_u1(cf_buf *b, uint32_t v) { uint8_t x = (uint8_t)v; buf_bytes(b, &x, 1); }
void buf_u2(cf_buf *b, uint32_t v) { uint8_t x[2]; put_u2(x, v); buf_bytes(b, x, 2); }
void buf_u4(cf_buf *b, uint32_t v) { uint8_t x[4]; put_u4(x, v); buf_bytes(b, x, 4); }

/* ---- Errors --------------------------------------------------------------------------- */

const char *cf_strerror(int rc) {
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

/* ---- Constant pool -------------------------------------------------------------------- */

int cp_is(const cf_class *c, uint32_t i, unsigned tag) {
    return i > 0 && i < c->cp_count && c->cp[i].raw && c->cp[i].raw[0] == tag;
}

int cp_utf8_eq(const cf_class *c, uint32_t i, const char *s) {
    if (!cp_is(c, i, 1)) return 0;
    size_t n = strlen(s);
    return c->cp[i].len - 3 == n && memcmp(c->cp[i].raw + 3, s, n) == 0;
}

const char *cp_utf8_dup(cf_class *c, uint32_t i) {
    if (!cp_is(c, i, 1)) return NULL;
    uint32_t n = c->cp[i].len - 3;
    char *s = cf_arena_alloc(&c->ar, (size_t)n + 1);
    if (!s) return NULL;
    memcpy(s, c->cp[i].raw + 3, n);
    s[n] = 0;
    return s;
}

static uint32_t raw_hash(const uint8_t *p, uint32_t n) {
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void hash_put(cf_class *c, uint32_t i) {
    uint32_t k = raw_hash(c->cp[i].raw, c->cp[i].len) & c->hash_mask;
    while (c->hash[k]) k = (k + 1) & c->hash_mask;
    c->hash[k] = i;
}

/* (Re)builds the lookup index so that it holds room for at least `want` entries. */
static int hash_build(cf_class *c, uint32_t want) {
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

uint32_t cp_add(cf_class *c, const uint8_t *raw, uint32_t len) {
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

static uint32_t cp_find_raw(cf_class *c, const uint8_t *raw, uint32_t len) {
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

static uint32_t cp_find_or_add_raw(cf_class *c, const uint8_t *raw, uint32_t len) {
    uint32_t i = cp_find_raw(c, raw, len);
    return i ? i : cp_add(c, raw, len);
}

static uint32_t cp_utf8_n(cf_class *c, const char *s, size_t n) {
    if (n > 0xFFFF) return 0;
    uint8_t *raw = cf_arena_alloc(&c->ar, n + 3);
    if (!raw) return 0;
    raw[0] = 1;
    put_u2(raw + 1, (uint32_t)n);
    memcpy(raw + 3, s, n);
    return cp_find_or_add_raw(c, raw, (uint32_t)n + 3);
}

uint32_t cp_find_or_add_utf8(cf_class *c, const char *s) { return cp_utf8_n(c, s, strlen(s)); }

static uint32_t cp_ref2(cf_class *c, unsigned tag, uint32_t a, uint32_t b, int two) {
    uint8_t raw[5];
    raw[0] = (uint8_t)tag;
    put_u2(raw + 1, a);
    if (two) put_u2(raw + 3, b);
    return cp_find_or_add_raw(c, raw, two ? 5 : 3);
}

uint32_t cp_find_or_add_class(cf_class *c, const char *name, size_t name_len) {
    uint32_t u = cp_utf8_n(c, name, name_len);
    return u ? cp_ref2(c, 7, u, 0, 0) : 0;
}

uint32_t cp_find_or_add_int(cf_class *c, int32_t v) {
    uint8_t raw[5];
    raw[0] = 3;
    put_u4(raw + 1, (uint32_t)v);
    return cp_find_or_add_raw(c, raw, 5);
}

uint32_t cp_find_or_add_methodref(cf_class *c, const char *cls, const char *name, const char *desc) {
    uint32_t k = cp_find_or_add_class(c, cls, strlen(cls));
    uint32_t n = cp_find_or_add_utf8(c, name);
    uint32_t d = cp_find_or_add_utf8(c, desc);
    if (!k || !n || !d) return 0;
    uint32_t nat = cp_ref2(c, 12, n, d, 1);
    return nat ? cp_ref2(c, 10, k, nat, 1) : 0;
}

uint32_t cp_ref_class_name(const cf_class *c, uint32_t ref) {
    if (!cp_is(c, ref, 10)) return 0;
    uint32_t cls = get_u2(c->cp[ref].raw + 1);
    return cp_is(c, cls, 7) ? get_u2(c->cp[cls].raw + 1) : 0;
}

int cp_ref_is(const cf_class *c, uint32_t ref, const char *name, const char *desc) {
    if (!cp_is(c, ref, 10)) return 0;
    uint32_t nat = get_u2(c->cp[ref].raw + 3);
    return cp_is(c, nat, 12) && cp_utf8_eq(c, get_u2(c->cp[nat].raw + 1), name) &&
           cp_utf8_eq(c, get_u2(c->cp[nat].raw + 3), desc);
}

uint32_t cp_ref_name(const cf_class *c, uint32_t ref) {
    if (!cp_is(c, ref, 10) && !cp_is(c, ref, 11) && !cp_is(c, ref, 9)) return 0;
    uint32_t nat = get_u2(c->cp[ref].raw + 3);
    if (!cp_is(c, nat, 12)) return 0;
    return get_u2(c->cp[nat].raw + 1);
}

/* ---- Parsing -------------------------------------------------------------------------- */

static int parse_cp(cf_class *c, cf_rd *r) {
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
        case 1: k = rd_u2(r); break;
        case 3: case 4: k = 4; break;
        case 5: case 6: k = 8; break;
        case 7: case 8: case 16: case 19: case 20: k = 2; break;
        case 9: case 10: case 11: case 12: case 17: case 18: k = 4; break;
        case 15: k = 3; break;
        default: return CF_BAD;
        }
        if (!rd_skip(r, k)) return CF_BAD;
        c->cp[i].raw = r->p + at;
        c->cp[i].len = (uint32_t)(r->i - at);
        if (tag == 5 || tag == 6) {
            if (++i >= n) return CF_BAD;
        }
    }
    /* Cross references. */
    for (uint32_t i = 1; i < n; i++) {
        const uint8_t *p = c->cp[i].raw;
        if (!p) continue;
        switch (p[0]) {
        case 7: case 8: case 16: case 19: case 20:
            if (!cp_is(c, get_u2(p + 1), 1)) return CF_BAD;
            break;
        case 9: case 10: case 11:
            if (!cp_is(c, get_u2(p + 1), 7) || !cp_is(c, get_u2(p + 3), 12)) return CF_BAD;
            break;
        case 12:
            if (!cp_is(c, get_u2(p + 1), 1) || !cp_is(c, get_u2(p + 3), 1)) return CF_BAD;
            break;
        case 15: {
            uint32_t kind = p[1], ref = get_u2(p + 2);
            if (kind < 1 || kind > 9) return CF_BAD;
            if (!cp_is(c, ref, 9) && !cp_is(c, ref, 10) && !cp_is(c, ref, 11)) return CF_BAD;
            break;
        }
        case 17: case 18:
            if (!cp_is(c, get_u2(p + 3), 12)) return CF_BAD;
            break;
        default: break;
        }
    }
    return CF_OK;
}

static int parse_attrs_raw(cf_rd *r) {
    uint32_t n = rd_u2(r);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        rd_u2(r);
        uint32_t len = rd_u4(r);
        rd_skip(r, len);
    }
    return r->bad ? CF_ERR_FORMAT : CF_OK;
}

static int parse_methods(cf_class *c, cf_rd *r) {
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
        if (r->bad || !cp_is(c, m->name, 1) || !cp_is(c, m->desc, 1)) return CF_BAD;
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

int cf_parse(const uint8_t *buf, size_t len, unsigned flags, cf_class **out) {
    if (!out) return CF_ERR_ARG;
    *out = NULL;
    if (!buf) return CF_ERR_ARG;
    if (len > 0x7FFFFFFF) return CF_ERR_LIMIT;
    cf_arena ar;
    cf_arena_init(&ar, len);
    cf_class *c = cf_arena_alloc(&ar, sizeof(cf_class));
    if (!c) { cf_arena_release(&ar); return CF_ERR_NOMEM; }
    c->ar = ar;
    c->in = buf;
    c->in_len = len;
    int rc;
    cf_rd r;
    rd_init(&r, buf, len);
    if (rd_u4(&r) != 0xCAFEBABEu) { rc = CF_BAD; goto fail; }
    c->minor = (uint16_t)rd_u2(&r);
    c->major = (uint16_t)rd_u2(&r);
    if (r.bad) { rc = CF_BAD; goto fail; }
    if (c->major < CF_MAJOR_MIN || c->major > CF_MAJOR_MAX) { rc = CF_ERR_VERSION; goto fail; }
    if ((rc = parse_cp(c, &r)) != CF_OK) goto fail;
    c->access = (uint16_t)rd_u2(&r);
    c->this_idx = (uint16_t)rd_u2(&r);
    c->super_idx = (uint16_t)rd_u2(&r);
    rc = CF_ERR_FORMAT;
    if (r.bad || !cp_is(c, c->this_idx, 7)) goto fail;
    if (c->super_idx && !cp_is(c, c->super_idx, 7)) goto fail;
    c->middle = r.p + r.i;
    {
        size_t start = r.i;
        uint32_t ni = rd_u2(&r);
        for (uint32_t i = 0; i < ni && !r.bad; i++)
            if (!cp_is(c, rd_u2(&r), 7)) goto fail;
        uint32_t nf = rd_u2(&r);
        for (uint32_t i = 0; i < nf && !r.bad; i++) {
            rd_u2(&r);
            if (!cp_is(c, rd_u2(&r), 1) || !cp_is(c, rd_u2(&r), 1)) goto fail;
            if (parse_attrs_raw(&r) != CF_OK) goto fail;
        }
        if (r.bad) goto fail;
        c->middle_len = r.i - start;
    }
    if ((rc = parse_methods(c, &r)) != CF_OK) goto fail;
    c->tail = r.p + r.i;
    {
        size_t start = r.i;
        if ((rc = parse_attrs_raw(&r)) != CF_OK) goto fail;
        c->tail_len = r.i - start;
    }
    rc = CF_ERR_FORMAT;
    if (r.i != len) goto fail; /* trailing bytes */
    c->name = cp_utf8_dup(c, get_u2(c->cp[c->this_idx].raw + 1));
    c->super_name = c->super_idx ? cp_utf8_dup(c, get_u2(c->cp[c->super_idx].raw + 1)) : NULL;
    if (!c->name || (c->super_idx && !c->super_name)) { rc = CF_ERR_NOMEM; goto fail; }
    if (flags & CF_PARSE_DEEP) {
        for (unsigned i = 0; i < c->nmethods; i++) {
            if (c->methods[i].code < 0) continue;
            if ((rc = cf_check_code(c, i)) != CF_OK) goto fail;
        }
    }
    *out = c;
    return CF_OK;
fail:
    if (c->ar.failed && rc == CF_ERR_FORMAT) rc = CF_ERR_NOMEM;
    ar = c->ar;
    cf_arena_release(&ar);
    return rc;
}

void cf_free(cf_class *c) {
    if (!c) return;
    cf_arena ar = c->ar;
    cf_arena_release(&ar);
}

/* ---- Writing -------------------------------------------------------------------------- */

int cf_write(const cf_class *c, uint8_t **out, size_t *out_len) {
    if (!c || !out || !out_len) return CF_ERR_ARG;
    *out = NULL;
    *out_len = 0;
    cf_buf b;
    buf_init(&b, 0x7FFFFFFF);
    buf_u4(&b, 0xCAFEBABEu);
    buf_u2(&b, c->minor);
    buf_u2(&b, c->major);
    buf_u2(&b, c->cp_count);
    for (uint32_t i = 1; i < c->cp_count; i++)
        if (c->cp[i].raw) buf_bytes(&b, c->cp[i].raw, c->cp[i].len);
    buf_u2(&b, c->access);
    buf_u2(&b, c->this_idx);
    buf_u2(&b, c->super_idx);
    buf_bytes(&b, c->middle, c->middle_len);
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
            buf_bytes(&b, m->attrs[j].data, m->attrs[j].len);
        }
    }
    buf_bytes(&b, c->tail, c->tail_len);
    if (b.bad) { buf_free(&b); return CF_ERR_NOMEM; }
    *out = b.p;
    *out_len = b.len;
    return CF_OK;
}

/* ---- Accessors ------------------------------------------------------------------------ */

const char *cf_class_name(const cf_class *c) { return c ? c->name : NULL; }
const char *cf_super_name(const cf_class *c) { return c ? c->super_name : NULL; }
unsigned cf_major(const cf_class *c) { return c ? c->major : 0; }
unsigned cf_minor(const cf_class *c) { return c ? c->minor : 0; }
unsigned cf_cp_count(const cf_class *c) { return c ? c->cp_count : 0; }
unsigned cf_cp_tag(const cf_class *c, unsigned i) {
    return (c && i > 0 && i < c->cp_count && c->cp[i].raw) ? c->cp[i].raw[0] : 0;
}
unsigned cf_method_count(const cf_class *c) { return c ? c->nmethods : 0; }
const char *cf_method_name(const cf_class *c, unsigned i) {
    return (c && i < c->nmethods) ? c->methods[i].sname : NULL;
}
const char *cf_method_desc(const cf_class *c, unsigned i) {
    return (c && i < c->nmethods) ? c->methods[i].sdesc : NULL;
}
unsigned cf_method_access(const cf_class *c, unsigned i) {
    return (c && i < c->nmethods) ? c->methods[i].access : 0;
}
long cf_method_code_length(const cf_class *c, unsigned i) {
    if (!c || i >= c->nmethods || c->methods[i].code < 0) return -1;
    const cf_attr *a = &c->methods[i].attrs[c->methods[i].code];
    return a->len >= 8 ? (long)get_u4(a->data + 4) : -1;
}

/* ---- Instrumentation driver ----------------------------------------------------------- */

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void cf_result_free(cf_result *res) {
    if (!res) return;
    free(res->data);
    free(res->class_name);
    if (res->methods) {
        for (unsigned i = 0; i < res->method_count; i++) {
            free(res->methods[i].name);
            free(res->methods[i].desc);
        }
        free(res->methods);
    }
    memset(res, 0, sizeof(*res));
}

int cf_instrument(const uint8_t *buf, size_t len, const cf_inject_spec *spec, cf_result *res) {
    if (!res) return CF_ERR_ARG;
    memset(res, 0, sizeof(*res));
    if (!buf || !spec || !spec->tracker_class) return CF_ERR_ARG;
    cf_class *c = NULL;
    int rc = cf_parse(buf, len, 0, &c);
    if (rc != CF_OK) return rc;

    res->class_name = xstrdup(c->name);
    res->methods = calloc(c->nmethods ? c->nmethods : 1, sizeof(cf_method_info));
    if (!res->class_name || !res->methods) { rc = CF_ERR_NOMEM; goto done; }
    res->method_count = c->nmethods;
    for (unsigned i = 0; i < c->nmethods; i++) {
        res->methods[i].name = xstrdup(c->methods[i].sname);
        res->methods[i].desc = xstrdup(c->methods[i].sdesc);
        res->methods[i].access = c->methods[i].access;
        if (!res->methods[i].name || !res->methods[i].desc) { rc = CF_ERR_NOMEM; goto done; }
    }

    /* Which hooks exist, and their Methodrefs (added lazily below). */
    unsigned avail = 0;
    if (spec->entry_name && spec->entry_desc) avail |= CF_INJ_ENTRY;
    if (spec->return_name && spec->return_desc) avail |= CF_INJ_RETURN;
    if (spec->objinit_name && spec->objinit_desc && strcmp(c->name, "java/lang/Object") == 0)
        avail |= CF_INJ_OBJINIT;
    if (spec->newarray_name && spec->newarray_desc) avail |= CF_INJ_NEWARRAY;
    if (spec->clone_name && spec->vclone_name) avail |= CF_INJ_CLONE;
    if (spec->exception_exit && (avail & CF_INJ_RETURN)) avail |= CF_INJ_EXC_EXIT;
    int is_tracker = strcmp(c->name, spec->tracker_class) == 0;

    uint32_t hooks[CF_HOOKS] = {0}; /* see CF_HOOKS */
    int changed = 0;
    for (unsigned i = 0; i < c->nmethods; i++) {
        cf_method *m = &c->methods[i];
        unsigned st;
        if (m->code < 0) {
            st = CF_M_NO_CODE;
        } else {
            unsigned mask = avail;
            /* An empty finalize() must stay empty: HotSpot registers a finalizer for every
             * instance of a class whose finalize does something (Object.finalize too). */
            int empty_finalize = strcmp(m->sname, "finalize") == 0 && strcmp(m->sdesc, "()V") == 0 &&
                                 cf_method_code_length(c, i) == 1;
            if (is_tracker || empty_finalize) mask = 0;
            else if (spec->filter)
                mask &= spec->filter(spec->filter_ctx, c->name, m->sname, m->sdesc, m->access, i);
            if (!mask) {
                st = CF_M_FILTERED;
            } else {
                if (!hooks[0] && !hooks[1] && !hooks[2] && !hooks[3]) {
                    if (avail & CF_INJ_ENTRY)
                        hooks[0] = cp_find_or_add_methodref(c, spec->tracker_class, spec->entry_name, spec->entry_desc);
                    if (avail & CF_INJ_RETURN)
                        hooks[1] = cp_find_or_add_methodref(c, spec->tracker_class, spec->return_name, spec->return_desc);
                    if (avail & CF_INJ_OBJINIT)
                        hooks[2] = cp_find_or_add_methodref(c, spec->tracker_class, spec->objinit_name, spec->objinit_desc);
                    if (avail & CF_INJ_NEWARRAY)
                        hooks[3] = cp_find_or_add_methodref(c, spec->tracker_class, spec->newarray_name, spec->newarray_desc);
                    if (avail & CF_INJ_CLONE) {
                        hooks[5] = cp_find_or_add_methodref(c, spec->tracker_class, spec->clone_name, "(Ljava/lang/Object;)V");
                        hooks[6] = cp_find_or_add_methodref(c, spec->tracker_class, spec->vclone_name, "(Ljava/lang/Object;)V");
                    }
                    int32_t cn = (int32_t)spec->cnum;
                    if (cn < -32768 || cn > 32767) hooks[4] = cp_find_or_add_int(c, cn);
                    if (((avail & CF_INJ_ENTRY) && !hooks[0]) || ((avail & CF_INJ_RETURN) && !hooks[1]) ||
                        ((avail & CF_INJ_OBJINIT) && !hooks[2]) || ((avail & CF_INJ_NEWARRAY) && !hooks[3]) ||
                        ((avail & CF_INJ_CLONE) && (!hooks[5] || !hooks[6])) ||
                        ((cn < -32768 || cn > 32767) && !hooks[4])) {
                        rc = c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
                        goto done;
                    }
                }
                int r2 = cf_rewrite_method(c, i, mask, spec, hooks, res);
                if (r2 < 0) { rc = r2; goto done; }
                st = (unsigned)r2;
                if (st == CF_M_INSTRUMENTED) changed = 1;
            }
        }
        res->methods[i].status = st;
        switch (st) {
        case CF_M_INSTRUMENTED: res->instrumented++; break;
        case CF_M_NO_CODE: res->no_code++; break;
        case CF_M_FILTERED: res->filtered++; break;
        case CF_M_NOTHING: res->nothing++; break;
        case CF_M_TOO_BIG: res->too_big++; break;
        default: res->unrewritable++; break;
        }
    }
    if (!changed) { rc = CF_UNCHANGED; goto done; }
    rc = cf_write(c, &res->data, &res->len);
done:
    if (rc < 0) {
        /* keep the names for diagnostics, drop everything else */
        char *name = res->class_name;
        res->class_name = NULL;
        cf_result_free(res);
        res->class_name = name;
    }
    cf_free(c);
    return rc;
}
