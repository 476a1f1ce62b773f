/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for src/classfile: hand-assembled class files (cf_asm), round trips, every
 * constant-pool tag, attribute passthrough, and the instrumenter. Rewritten code is checked
 * two ways: structurally (tables point at the same instructions as before) and by running
 * original and rewritten methods in a tiny interpreter for the int subset of the JVM
 * instruction set (branches, switches, jsr/ret, wide, newarray, the tracker calls), which
 * must give the same results, with the expected hook counts and never more stack than
 * max_stack. Set CF_TEST_DUMP=DIR to save every class built here (fuzz seeds). */
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "unit.h"
#include "../fuzz/fuzz_one.h"

/* ---- helpers -------------------------------------------------------------------------- */

static void dump(const char *name, const uint8_t *p, size_t n)
{
    const char *dir = getenv("CF_TEST_DUMP");
    if (!dir) return;
    char path[1024];
    snprintf(path, sizeof(path), "%s/unit-%s.class", dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(p, 1, n, f);
        fclose(f);
    }
}

static uint32_t u2(const uint8_t *p) { return ((uint32_t)p[0] << 8) | p[1]; }
static uint32_t u4(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static void w2(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void w4(uint8_t *p, uint32_t v)
{
    w2(p, v >> 16);
    w2(p + 2, v);
}

/* A growable code buffer. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} code_t;
static void emit(code_t *c, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 256;
            c->p = realloc(c->p, c->cap);
        }
        c->p[c->n++] = (uint8_t)va_arg(ap, int);
    }
    va_end(ap);
}

/* ---- a small independent class reader (test side) ------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n;
    uint32_t cpn;
    uint32_t *cpoff;
    size_t methods; /* offset of methods_count */
} tcls;

typedef struct {
    uint32_t max_stack, max_locals, code_len, nexc, nattr;
    const uint8_t *code, *exc, *attrs;
} tcode;

static size_t skip_attrs(const uint8_t *p, size_t i)
{
    uint32_t n = u2(p + i);
    i += 2;
    for (uint32_t k = 0; k < n; k++) i += 6 + u4(p + i + 2);
    return i;
}

static int tparse(tcls *t, const uint8_t *p, size_t n)
{
    t->p = p;
    t->n = n;
    t->cpn = u2(p + 8);
    t->cpoff = calloc(t->cpn + 1, sizeof(uint32_t));
    size_t i = 10;
    for (uint32_t k = 1; k < t->cpn; k++) {
        t->cpoff[k] = (uint32_t)i;
        switch (p[i]) {
        case 1: i += 3 + u2(p + i + 1); break;
        case 3:
        case 4: i += 5; break;
        case 5:
        case 6:
            i += 9;
            k++;
            break;
        case 7:
        case 8:
        case 16:
        case 19:
        case 20: i += 3; break;
        case 15: i += 4; break;
        default: i += 5; break;
        }
    }
    i += 6;
    i += 2 + 2 * u2(p + i);
    uint32_t nf = u2(p + i);
    i += 2;
    for (uint32_t k = 0; k < nf; k++) i = skip_attrs(p, i + 6);
    t->methods = i;
    return 0;
}
static void tfree(tcls *t) { free(t->cpoff); }

static int tutf8(const tcls *t, uint32_t idx, const char *s)
{
    const uint8_t *e = t->p + t->cpoff[idx];
    return e[0] == 1 && u2(e + 1) == strlen(s) && memcmp(e + 3, s, strlen(s)) == 0;
}

static const char *tref_name(const tcls *t, uint32_t ref, char *buf, size_t cap)
{
    const uint8_t *e = t->p + t->cpoff[ref];
    const uint8_t *nat = t->p + t->cpoff[u2(e + 3)];
    const uint8_t *u = t->p + t->cpoff[u2(nat + 1)];
    size_t l = u2(u + 1);
    if (l >= cap) l = cap - 1;
    memcpy(buf, u + 3, l);
    buf[l] = 0;
    return buf;
}

static int tcode_of(const tcls *t, const char *name, tcode *c)
{
    size_t i = t->methods;
    uint32_t nm = u2(t->p + i);
    i += 2;
    for (uint32_t k = 0; k < nm; k++) {
        uint32_t mname = u2(t->p + i + 2), na = u2(t->p + i + 6);
        size_t a = i + 8;
        for (uint32_t j = 0; j < na; j++) {
            uint32_t an = u2(t->p + a), al = u4(t->p + a + 2);
            if (tutf8(t, mname, name) && tutf8(t, an, "Code")) {
                const uint8_t *q = t->p + a + 6;
                c->max_stack = u2(q);
                c->max_locals = u2(q + 2);
                c->code_len = u4(q + 4);
                c->code = q + 8;
                c->nexc = u2(q + 8 + c->code_len);
                c->exc = q + 10 + c->code_len;
                c->nattr = u2(c->exc + 8 * c->nexc);
                c->attrs = c->exc + 8 * c->nexc + 2;
                return 1;
            }
            a += 6 + al;
        }
        i = a;
    }
    return 0;
}

static const uint8_t *tcode_attr(const tcls *t, const tcode *c, const char *name, uint32_t *len)
{
    const uint8_t *a = c->attrs;
    for (uint32_t j = 0; j < c->nattr; j++) {
        uint32_t l = u4(a + 2);
        if (tutf8(t, u2(a), name)) {
            *len = l;
            return a + 6;
        }
        a += 6 + l;
    }
    return NULL;
}

/* ---- a tiny interpreter for the int subset -------------------------------------------- */

typedef struct {
    long entries, returns, leaves, arrays, objinits, sites, maxsp;
    int bad;
} hooks_t;

static uint32_t pad4(uint32_t pc) { return (4 - ((pc + 1) & 3)) & 3; }

static int64_t run(const tcls *t, const tcode *c, int64_t arg, hooks_t *h)
{
    int64_t loc[1024] = {0}, st[1024];
    int sp = 0;
    uint32_t pc = 0;
    long steps = 0;
    loc[0] = arg;
#define PUSH(v)                                    \
    do {                                           \
        st[sp++] = (v);                            \
        if (sp > h->maxsp) h->maxsp = sp;          \
        if (sp > (int)c->max_stack || sp > 1000) { \
            h->bad = 1;                            \
            return -1;                             \
        }                                          \
    } while (0)
#define POP() (sp > 0 ? st[--sp] : (h->bad = 1, 0))
    while (pc < c->code_len && steps++ < 50000000) {
        const uint8_t *q = c->code + pc;
        uint32_t op = q[0];
        int64_t a, b;
        switch (op) {
        case 0: pc += 1; break;
        case 2:
        case 3:
        case 4:
        case 5:
        case 6:
        case 7:
        case 8:
            PUSH((int64_t)op - 3);
            pc += 1;
            break;
        case 16:
            PUSH((int8_t)q[1]);
            pc += 2;
            break;
        case 17:
            PUSH((int16_t)u2(q + 1));
            pc += 3;
            break;
        case 19: {
            const uint8_t *e = t->p + t->cpoff[u2(q + 1)];
            PUSH((int32_t)u4(e + 1));
            pc += 3;
            break;
        }
        case 21:
        case 25:
            PUSH(loc[q[1]]);
            pc += 2;
            break;
        case 26:
        case 27:
        case 28:
        case 29:
            PUSH(loc[op - 26]);
            pc += 1;
            break;
        case 42:
        case 43:
        case 44:
        case 45:
            PUSH(loc[op - 42]);
            pc += 1;
            break;
        case 54:
        case 58:
            loc[q[1]] = POP();
            pc += 2;
            break;
        case 59:
        case 60:
        case 61:
        case 62:
            loc[op - 59] = POP();
            pc += 1;
            break;
        case 75:
        case 76:
        case 77:
        case 78:
            loc[op - 75] = POP();
            pc += 1;
            break;
        case 87:
            POP();
            pc += 1;
            break;
        case 89:
            a = POP();
            PUSH(a);
            PUSH(a);
            pc += 1;
            break;
        case 96:
            b = POP();
            a = POP();
            PUSH((int32_t)(a + b));
            pc += 1;
            break;
        case 100:
            b = POP();
            a = POP();
            PUSH((int32_t)(a - b));
            pc += 1;
            break;
        case 104:
            b = POP();
            a = POP();
            PUSH((int32_t)(a * b));
            pc += 1;
            break;
        case 132:
            loc[q[1]] += (int8_t)q[2];
            pc += 3;
            break;
        case 153:
        case 154:
        case 155:
        case 156:
        case 157:
        case 158:
        case 159:
        case 160:
        case 161:
        case 162:
        case 163:
        case 164: {
            if (op >= 159) {
                b = POP();
                a = POP();
            } else {
                a = POP();
                b = 0;
            }
            int k = (int)(op >= 159 ? op - 159 : op - 153), take;
            switch (k) {
            case 0: take = a == b; break;
            case 1: take = a != b; break;
            case 2: take = a < b; break;
            case 3: take = a >= b; break;
            case 4: take = a > b; break;
            default: take = a <= b; break;
            }
            pc = take ? pc + (uint32_t)(int16_t)u2(q + 1) : pc + 3;
            break;
        }
        case 167: pc += (uint32_t)(int16_t)u2(q + 1); break;
        case 200: pc += u4(q + 1); break;
        case 168:
            PUSH(pc + 3);
            pc += (uint32_t)(int16_t)u2(q + 1);
            break;
        case 201:
            PUSH(pc + 5);
            pc += u4(q + 1);
            break;
        case 169: pc = (uint32_t)loc[q[1]]; break;
        case 170:
        case 171: {
            uint32_t base = pc + 1 + pad4(pc);
            int32_t key = (int32_t)POP(), def = (int32_t)u4(c->code + base), off = def;
            if (op == 170) {
                int32_t lo = (int32_t)u4(c->code + base + 4), hi = (int32_t)u4(c->code + base + 8);
                if (key >= lo && key <= hi) off = (int32_t)u4(c->code + base + 12 + 4 * (uint32_t)(key - lo));
            } else {
                uint32_t np = u4(c->code + base + 4);
                for (uint32_t j = 0; j < np; j++)
                    if ((int32_t)u4(c->code + base + 8 + 8 * j) == key) off = (int32_t)u4(c->code + base + 12 + 8 * j);
            }
            pc += (uint32_t)off;
            break;
        }
        case 172: return POP();
        case 177: return 0;
        case 184: {
            char nm[64];
            tref_name(t, u2(q + 1), nm, sizeof(nm));
            if (!strcmp(nm, "CallSite")) {
                POP();
                POP();
                h->entries++;
            } else if (!strcmp(nm, "ReturnSite")) {
                POP();
                POP();
                h->returns++;
            } else if (!strcmp(nm, "LeafSite")) {
                POP();
                POP();
                h->leaves++;
            } else if (!strcmp(nm, "NewArray")) {
                POP();
                h->arrays++;
            } else if (!strcmp(nm, "ObjectInit")) {
                POP();
                h->objinits++;
            } else if (!strcmp(nm, "ArraySite")) { /* length, number, element code */
                POP();
                POP();
                if (POP() < 0) h->bad = 1;
                h->sites++;
            } else {
                h->bad = 1;
                return -1;
            }
            pc += 3;
            break;
        }
        case 188:
            a = POP();
            PUSH(a + 1000000);
            pc += 2;
            break; /* an "array" of length a */
        case 189:
            a = POP();
            PUSH(a + 1000000);
            pc += 3;
            break;
        case 190:
            a = POP();
            PUSH(a - 1000000);
            pc += 1;
            break;
        case 196:
            switch (q[1]) {
            case 21:
                PUSH(loc[u2(q + 2)]);
                pc += 4;
                break;
            case 54:
            case 58:
                loc[u2(q + 2)] = POP();
                pc += 4;
                break;
            case 132:
                loc[u2(q + 2)] += (int16_t)u2(q + 4);
                pc += 6;
                break;
            case 169: pc = (uint32_t)loc[u2(q + 2)]; break;
            default: h->bad = 1; return -1;
            }
            break;
        default: h->bad = 1; return -1;
        }
    }
    h->bad = 1;
    return -1;
#undef PUSH
#undef POP
}

/* ---- building classes ----------------------------------------------------------------- */

static cf_inject_spec all_hooks(unsigned cnum)
{
    cf_inject_spec s;
    memset(&s, 0, sizeof(s));
    s.tracker_class = "hprof/Tracker";
    s.entry_name = "CallSite";
    s.entry_desc = "(II)V";
    s.return_name = "ReturnSite";
    s.return_desc = "(II)V";
    s.objinit_name = "ObjectInit";
    s.objinit_desc = "(Ljava/lang/Object;)V";
    s.newarray_name = "NewArray";
    s.newarray_desc = "(Ljava/lang/Object;)V";
    s.exception_exit = 1;
    s.cnum = cnum;
    return s;
}

/* One static method "f" (or name) with the given code in a class of the given version. */
static uint8_t *one_method(unsigned major, const char *name, const char *desc, const code_t *code, unsigned max_stack,
                           unsigned max_locals, const uint16_t *exc, unsigned nexc, cfa_attrs *code_attrs, size_t *len,
                           cf_asm **keep)
{
    cf_asm *a = keep && *keep ? *keep : cfa_new(major, 0, 0x21, "t/T", "java/lang/Object");
    cfa_attrs m = {0};
    cfa_code(a, &m, max_stack, max_locals, code->p, code->n, exc, nexc, code_attrs);
    cfa_method(a, 0x09, name, desc, &m);
    cfa_attrs_free(&m);
    uint8_t *out = NULL;
    int rc = cfa_finish(a, &out, len);
    if (!keep)
        cfa_free(a);
    else
        *keep = a;
    return rc == 0 ? out : NULL;
}

/* Runs method f of the original and of the instrumented class on each argument. */
static void same_results(const char *what, const uint8_t *orig, size_t olen, const uint8_t *inst, size_t ilen,
                         const char *mname, const int64_t *args, int nargs, long expect_arrays_per_call)
{
    tcls a, b;
    tparse(&a, orig, olen);
    tparse(&b, inst, ilen);
    tcode ca, cb;
    int found = tcode_of(&a, mname, &ca) && tcode_of(&b, mname, &cb);
    CHECK(found, "%s: method %s found in both", what, mname);
    if (found) {
        int same = 1, bad = 0, balanced = 1;
        long arrays = 0;
        for (int i = 0; i < nargs; i++) {
            hooks_t h1 = {0}, h2 = {0};
            int64_t r1 = run(&a, &ca, args[i], &h1), r2 = run(&b, &cb, args[i], &h2);
            if (r1 != r2) same = 0;
            if (h1.bad || h2.bad) bad = 1;
            if (h2.entries != 1 || h2.returns != 1) balanced = 0;
            arrays += h2.arrays;
            if (r1 != r2 || h2.bad)
                printf("#   arg %lld: %lld vs %lld (bad %d/%d)\n", (long long)args[i], (long long)r1, (long long)r2,
                       h1.bad, h2.bad);
        }
        CHECK(same && !bad, "%s: same results, within max_stack", what);
        CHECK(balanced, "%s: one entry and one return hook per call", what);
        if (expect_arrays_per_call >= 0)
            CHECK(arrays == expect_arrays_per_call, "%s: newarray hooks %ld (want %ld)", what, arrays,
                  expect_arrays_per_call);
    }
    tfree(&a);
    tfree(&b);
}

static int deep_ok(const uint8_t *p, size_t n)
{
    cf_class *c = NULL;
    int rc = cf_parse(p, n, CF_PARSE_DEEP, &c);
    cf_free(c);
    return rc == CF_OK;
}

static int roundtrip_ok(const uint8_t *p, size_t n)
{
    cf_class *c = NULL;
    if (cf_parse(p, n, CF_PARSE_DEEP, &c) != CF_OK) return 0;
    uint8_t *o = NULL;
    size_t on = 0;
    int ok = cf_write(c, &o, &on) == CF_OK && on == n && memcmp(o, p, n) == 0;
    free(o);
    cf_free(c);
    return ok;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_cp_tags(void)
{
    cf_asm *a = cfa_new(69, 0, 0x21, "t/AllTags", "java/lang/Object");
    unsigned idx[20] = {0};
    idx[1] = cfa_utf8(a, "hello");
    idx[3] = cfa_int(a, -42);
    idx[4] = cfa_float_bits(a, 0x3f800000u);
    idx[5] = cfa_long(a, 0x123456789abcdefLL);
    idx[6] = cfa_double_bits(a, 0x400921fb54442d18ULL);
    idx[7] = cfa_class(a, "java/lang/String");
    idx[8] = cfa_string(a, "str");
    idx[9] = cfa_fieldref(a, "t/AllTags", "x", "I");
    idx[10] = cfa_methodref(a, "t/AllTags", "m", "()V");
    idx[11] = cfa_imethodref(a, "java/lang/Runnable", "run", "()V");
    idx[12] = cfa_nat(a, "n", "()V");
    idx[15] = cfa_method_handle(a, 6, idx[10]);
    idx[16] = cfa_method_type(a, "(I)V");
    idx[17] = cfa_dynamic(a, 17, 0, "dyn", "I");
    idx[18] = cfa_dynamic(a, 18, 0, "indy", "()Ljava/lang/Runnable;");
    idx[19] = cfa_module(a, "java.base");
    unsigned pkg = cfa_package(a, "t");
    code_t c = {0};
    emit(&c, 1, 177);
    cfa_attrs m = {0};
    cfa_code(a, &m, 0, 0, c.p, c.n, NULL, 0, NULL);
    cfa_method(a, 0x09, "m", "()V", &m);
    cfa_attrs_free(&m);
    /* a BootstrapMethods attribute so the dynamic entries mean something */
    uint8_t bsm[6] = {0, 1, 0, 0, 0, 0};
    w2(bsm + 2, idx[15]);
    cfa_attrs ca = {0};
    cfa_attr(a, &ca, "BootstrapMethods", bsm, sizeof(bsm));
    cfa_class_attrs(a, &ca);
    cfa_attrs_free(&ca);
    uint8_t *p;
    size_t n;
    CHECK(cfa_finish(a, &p, &n) == 0, "cp tags: assembled");
    cfa_free(a);
    free(c.p);
    dump("cptags", p, n);
    cf_class *cls = NULL;
    CHECK(cf_parse(p, n, CF_PARSE_DEEP, &cls) == CF_OK, "cp tags: parses");
    if (cls) {
        int all = 1;
        static const unsigned tags[] = {1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19};
        for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
            if (cf_cp_tag(cls, idx[tags[i]]) != tags[i]) {
                all = 0;
                printf("# tag %u at %u: %u\n", tags[i], idx[tags[i]], cf_cp_tag(cls, idx[tags[i]]));
            }
        CHECK(all && cf_cp_tag(cls, pkg) == 20, "cp tags: all 17 tags read back");
        CHECK(cf_cp_tag(cls, idx[5] + 1) == 0 && cf_cp_tag(cls, idx[6] + 1) == 0,
              "cp tags: slot after Long/Double unusable");
        CHECK_STR(cf_class_name(cls), "t/AllTags", "cp tags: class name");
        CHECK(cf_major(cls) == 69, "cp tags: version 69");
        cf_free(cls);
    }
    CHECK(roundtrip_ok(p, n), "cp tags: byte-identical round trip");
    cf_inject_spec s = all_hooks(7);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && deep_ok(r.data, r.len), "cp tags: instrumented and re-parsed");
    cf_result_free(&r);
    free(p);
}

static void test_versions(void)
{
    for (unsigned major = 44; major <= 70; major++) {
        code_t c = {0};
        emit(&c, 3, 4, 172, 0); /* iconst_1 ireturn */
        c.n = 2;
        size_t n;
        uint8_t *p = one_method(major, "f", "(I)I", &c, 1, 1, NULL, 0, NULL, &n, NULL);
        cf_class *cls = NULL;
        int rc = cf_parse(p, n, 0, &cls);
        cf_free(cls);
        int want = (major >= 45 && major <= 69) ? CF_OK : CF_ERR_VERSION;
        if (major == 44 || major == 45 || major == 50 || major == 61 || major == 69 || major == 70) {
            CHECK(rc == want, "version %u: %s", major, want == CF_OK ? "accepted" : "rejected");
            if (want == CF_OK) {
                cf_inject_spec s = all_hooks(1);
                cf_result r;
                rc = cf_instrument(p, n, &s, &r);
                CHECK(rc == CF_OK && deep_ok(r.data, r.len), "version %u: instrumented", major);
                if (rc == CF_OK) same_results("version", p, n, r.data, r.len, "f", (int64_t[]){0}, 1, 0);
                cf_result_free(&r);
            }
        }
        free(p);
        free(c.p);
    }
    /* 45.0-45.2 use the ordinary Code layout (as HotSpot reads them) */
    cf_asm *a = cfa_new(45, 0, 0x21, "t/Old", "java/lang/Object");
    code_t c = {0};
    emit(&c, 4, 26, 4, 96, 172); /* iload_0 iconst_1 iadd ireturn */
    size_t n;
    uint8_t *p = one_method(45, "f", "(I)I", &c, 2, 1, NULL, 0, NULL, &n, &a);
    cfa_free(a);
    CHECK(p && p[4] == 0 && p[5] == 0 && roundtrip_ok(p, n), "45.0: parses and round-trips");
    cf_inject_spec s = all_hooks(1);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && deep_ok(r.data, r.len), "45.0: instrumented");
    if (rc == CF_OK) same_results("45.0", p, n, r.data, r.len, "f", (int64_t[]){0, 41}, 2, 0);
    cf_result_free(&r);
    free(p);
    free(c.p);
}

static void test_unknown_attrs(void)
{
    cf_asm *a = cfa_new(61, 0, 0x21, "t/Attrs", "java/lang/Object");
    static const uint8_t b1[] = "class-level \x01\x02\x03 body";
    static const uint8_t b2[] = "field-level \xff\xfe body";
    static const uint8_t b3[] = "method-level \x10\x20 body";
    static const uint8_t b4[] = "code-level \x7f\x00\x01 body";
    cfa_attrs fa = {0}, ma = {0}, cattr = {0}, cla = {0};
    cfa_attr(a, &fa, "XFieldThing", b2, sizeof(b2));
    cfa_attr(a, &fa, "Signature", "\0\1", 2);
    cfa_field(a, 0x02, "x", "I", &fa);
    cfa_attr(a, &cattr, "XCodeThing", b4, sizeof(b4));
    code_t c = {0};
    emit(&c, 5, 26, 188, 10, 190, 172); /* iload_0 newarray int arraylength ireturn */
    cfa_code(a, &ma, 1, 1, c.p, c.n, NULL, 0, &cattr);
    cfa_attr(a, &ma, "XMethodThing", b3, sizeof(b3));
    cfa_method(a, 0x09, "f", "(I)I", &ma);
    cfa_attr(a, &cla, "XClassThing", b1, sizeof(b1));
    cfa_attr(a, &cla, "SourceFile", "\0\1", 2);
    cfa_class_attrs(a, &cla);
    uint8_t *p;
    size_t n;
    cfa_finish(a, &p, &n);
    cfa_free(a);
    dump("attrs", p, n);
    CHECK(roundtrip_ok(p, n), "unknown attributes: byte-identical round trip");
    cf_inject_spec s = all_hooks(3);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK, "unknown attributes: instrumented");
    if (rc == CF_OK) {
        CHECK(memmem(r.data, r.len, b1, sizeof(b1)) && memmem(r.data, r.len, b2, sizeof(b2)) &&
                  memmem(r.data, r.len, b3, sizeof(b3)) && memmem(r.data, r.len, b4, sizeof(b4)),
              "unknown attributes: class, field, method and code attributes kept byte for byte");
        same_results("newarray", p, n, r.data, r.len, "f", (int64_t[]){0, 5}, 2, 2);
    }
    cf_result_free(&r);
    cfa_attrs_free(&fa);
    cfa_attrs_free(&ma);
    cfa_attrs_free(&cattr);
    cfa_attrs_free(&cla);
    free(c.p);
    free(p);
}

/* f(n): if (n == 0) return 2; <K blocks of 'iconst_1 newarray int arraylength pop'>; return 1.
 * The ifeq spans the blocks: it fits before injection and not after. Version 49 (no
 * StackMapTable): conditional becomes an inverted branch over a goto_w. */
static void test_widen_noframes(void)
{
    code_t c = {0};
    const int K = 6000;
    emit(&c, 4, 26, 153, 0, 0); /* iload_0 ifeq L */
    for (int i = 0; i < K; i++) emit(&c, 5, 4, 188, 10, 190, 87);
    emit(&c, 2, 4, 172); /* iconst_1 ireturn */
    uint32_t L = (uint32_t)c.n;
    emit(&c, 2, 5, 172); /* L: iconst_2 ireturn */
    w2(c.p + 2, L - 1);
    /* plus a backward goto over the same distance: g(n) loops n times */
    size_t n;
    uint8_t *p = one_method(49, "f", "(I)I", &c, 2, 1, NULL, 0, NULL, &n, NULL);
    dump("widen49", p, n);
    CHECK(roundtrip_ok(p, n), "widen (v49): round trip");
    cf_inject_spec s = all_hooks(1);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.widened >= 1, "widen (v49): conditional branch widened (%u)", r.widened);
    if (rc == CF_OK) {
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        tcode_of(&t, "f", &tc);
        /* entry hook = iconst_1 iconst_0 invokestatic (5 bytes), then iload_0, ifne +8, goto_w */
        CHECK(tc.code[5] == 26 && tc.code[6] == 154 && u2(tc.code + 7) == 8 && tc.code[9] == 200,
              "widen (v49): ifeq became ifne +8; goto_w");
        CHECK(tc.code_len > 32767 + 6, "widen (v49): code grew past 32 KiB (%u)", tc.code_len);
        tfree(&t);
        CHECK(deep_ok(r.data, r.len), "widen (v49): re-parses");
        same_results("widen (v49)", p, n, r.data, r.len, "f", (int64_t[]){0, 1}, 2, K);
    }
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* With a StackMapTable (version 52): a loop whose exit test and back edge both grow past
 * 32 KiB. The back edge becomes goto_w; the exit test jumps to a trampoline island placed
 * before the loop head. */
static void test_widen_frames(void)
{
    cf_asm *a = cfa_new(52, 0, 0x21, "t/W", "java/lang/Object");
    code_t c = {0};
    const int K = 5500;
    emit(&c, 2, 3, 60);          /* 0: iconst_0 istore_1 */
    emit(&c, 4, 27, 26, 162, 0); /* 2: LOOP iload_1 iload_0 if_icmpge END */
    emit(&c, 1, 0);
    for (int i = 0; i < K; i++) emit(&c, 5, 4, 188, 10, 190, 87);
    emit(&c, 3, 132, 1, 1); /* iinc 1 1 */
    uint32_t g = (uint32_t)c.n;
    emit(&c, 3, 167, 0, 0); /* goto LOOP */
    uint32_t end = (uint32_t)c.n;
    emit(&c, 2, 27, 172); /* END: iload_1 ireturn */
    w2(c.p + 5, end - 4);
    w2(c.p + g + 1, (uint32_t)(2 - (int)g));
    /* frames: at 2 append [int]; at END same */
    uint8_t smt[2 + 4 + 3];
    size_t k = 0;
    w2(smt, 2);
    k = 2;
    smt[k++] = 252;
    w2(smt + k, 2);
    k += 2;
    smt[k++] = 1; /* append_frame delta 2 [Integer] */
    smt[k++] = 251;
    w2(smt + k, end - 2 - 1);
    k += 2; /* same_frame_extended */
    cfa_attrs ca = {0};
    cfa_attr(a, &ca, "StackMapTable", smt, k);
    size_t n;
    uint8_t *p = one_method(52, "f", "(I)I", &c, 2, 2, NULL, 0, &ca, &n, &a);
    cfa_free(a);
    cfa_attrs_free(&ca);
    dump("widen52", p, n);
    CHECK(deep_ok(p, n) && roundtrip_ok(p, n), "widen (v52): round trip");
    cf_inject_spec s = all_hooks(2);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.widened == 2 && r.unrewritable == 0, "widen (v52): back edge and exit test widened (%u)",
          r.widened);
    if (rc == CF_OK) {
        CHECK(deep_ok(r.data, r.len), "widen (v52): re-parses with the new frames");
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        tcode_of(&t, "f", &tc);
        /* island before the loop head: goto_w over it, then goto_w END */
        CHECK(tc.code[7] == 200 && tc.code[12] == 200, "widen (v52): trampoline island before the loop head");
        uint32_t sl;
        const uint8_t *sm = tcode_attr(&t, &tc, "StackMapTable", &sl);
        CHECK(sm && u2(sm) == 4, "widen (v52): frames for the trampoline and the handler added (%u)", sm ? u2(sm) : 0);
        tfree(&t);
        same_results("widen (v52)", p, n, r.data, r.len, "f", (int64_t[]){0, 1, 3}, 3, 4 * K);
    }
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* tableswitch + lookupswitch behind prologues of 5..10 bytes: all four paddings. */
static void test_switches(void)
{
    code_t c = {0};
    emit(&c, 1, 26);  /* 0: iload_0 */
    emit(&c, 1, 170); /* 1: tableswitch, pad 2 */
    emit(&c, 2, 0, 0);
    uint32_t base = 4;
    for (int i = 0; i < 3 + 4; i++) emit(&c, 4, 0, 0, 0, 0);
    w4(c.p + base + 4, (uint32_t)-1); /* low -1 */
    w4(c.p + base + 8, 2);            /* high 2 */
    uint32_t after_t = (uint32_t)c.n; /* 32 */
    uint32_t cases[5];
    for (int i = 0; i < 5; i++) {
        cases[i] = (uint32_t)c.n;
        emit(&c, 6, 16, 10 + i, 60, 167, 0, 0);
    }
    uint32_t look = (uint32_t)c.n;
    /* L: iload_0 iconst_3 imul lookupswitch */
    emit(&c, 3, 26, 6, 104);
    uint32_t ls = (uint32_t)c.n;
    emit(&c, 1, 171);
    while ((c.n & 3) != 0) emit(&c, 1, 0);
    uint32_t lbase = (uint32_t)c.n;
    for (int i = 0; i < 2 + 2 * 3; i++) emit(&c, 4, 0, 0, 0, 0);
    uint32_t lcases[4];
    for (int i = 0; i < 4; i++) {
        lcases[i] = (uint32_t)c.n;
        emit(&c, 3, 27, 16, 100 * (i + 1));
        emit(&c, 2, 96, 172);
    }
    /* fill the tableswitch: default -> cases[4], -1..2 -> cases[0..3] */
    w4(c.p + base, cases[4] - 1);
    for (int i = 0; i < 4; i++) w4(c.p + base + 12 + 4 * i, cases[i] - 1);
    (void)after_t;
    /* each case: bipush v; istore_1; goto look */
    for (int i = 0; i < 5; i++) w2(c.p + cases[i] + 4, look - (cases[i] + 3));
    /* lookupswitch keys -3, 0, 6 (sorted), default */
    w4(c.p + lbase, lcases[3] - ls);
    w4(c.p + lbase + 4, 3);
    int32_t keys[3] = {-3, 0, 6};
    for (int i = 0; i < 3; i++) {
        w4(c.p + lbase + 8 + 8 * i, (uint32_t)keys[i]);
        w4(c.p + lbase + 12 + 8 * i, lcases[i] - ls);
    }
    size_t n;
    uint8_t *p = one_method(49, "f", "(I)I", &c, 3, 2, NULL, 0, NULL, &n, NULL);
    dump("switch", p, n);
    CHECK(deep_ok(p, n) && roundtrip_ok(p, n), "switches: parse and round trip");
    static const unsigned cnums[] = {1, 100, 1000, 100000, 5, 120, 7, 8};
    int64_t args[] = {-2, -1, 0, 1, 2, 3, 7};
    for (size_t i = 0; i < sizeof(cnums) / sizeof(cnums[0]); i++) {
        cf_inject_spec s = all_hooks(cnums[i]);
        if (i >= 6) s.debug = CF_DEBUG_WIDEN_ALL; /* every goto and if widened too */
        cf_result r;
        int rc = cf_instrument(p, n, &s, &r);
        char what[64];
        snprintf(what, sizeof(what), "switches (cnum %u)", cnums[i]);
        CHECK(rc == CF_OK && deep_ok(r.data, r.len), "%s: instrumented", what);
        if (rc == CF_OK) same_results(what, p, n, r.data, r.len, "f", args, 7, 0);
        cf_result_free(&r);
    }
    free(p);
    free(c.p);
}

/* Hook calls of method mname of inst on argument arg; its result the same as in orig. */
static hooks_t hooks_of(const uint8_t *orig, size_t olen, const uint8_t *inst, size_t ilen, const char *mname,
                        int64_t arg)
{
    tcls a, b;
    tcode ca, cb;
    hooks_t h = {0}, h0 = {0};
    tparse(&a, orig, olen);
    tparse(&b, inst, ilen);
    if (!tcode_of(&a, mname, &ca) || !tcode_of(&b, mname, &cb) || run(&a, &ca, arg, &h0) != run(&b, &cb, arg, &h))
        h.bad = 1;
    tfree(&a);
    tfree(&b);
    return h;
}

/* Trivial methods (cf_method_trivial) get the one leaf hook at entry, no exit hooks; a
 * method that loops, is too long or synchronized gets entry and return hooks as before. */
static void test_leaf(void)
{
    cf_asm *a = NULL;
    size_t n;
    code_t triv = {0}, loop = {0}, big = {0};
    emit(&triv, 6, 26, 6, 104, 4, 96, 172);  /* iload_0 iconst_3 imul iconst_1 iadd ireturn */
    emit(&loop, 4, 132, 0, 1, 26);           /* 0: iinc 0 1; 3: iload_0 */
    emit(&loop, 5, 16, 10, 161, 0xff, 0xfa); /* 4: bipush 10; 6: if_icmplt -6 (to 0) */
    emit(&loop, 2, 26, 172);                 /* 9: iload_0 ireturn */
    for (int i = 0; i < (int)CF_TRIVIAL_MAX_CODE; i++) emit(&big, 1, 0);
    emit(&big, 2, 26, 172);
    free(one_method(49, "triv", "(I)I", &triv, 2, 1, NULL, 0, NULL, &n, &a));
    free(one_method(49, "loop", "(I)I", &loop, 2, 1, NULL, 0, NULL, &n, &a));
    free(one_method(49, "big", "(I)I", &big, 2, 1, NULL, 0, NULL, &n, &a));
    cfa_attrs m = {0};
    cfa_code(a, &m, 2, 1, triv.p, triv.n, NULL, 0, NULL);
    cfa_method(a, 0x29, "sync", "(I)I", &m); /* public static synchronized */
    cfa_attrs_free(&m);
    uint8_t *p = NULL;
    int built = cfa_finish(a, &p, &n) == 0;
    cfa_free(a);
    CHECK(built && deep_ok(p, n), "leaf: the class builds");
    cf_inject_spec s = all_hooks(7);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.leaf_sites == 0 && r.entry_sites == 4, "leaf: without a leaf hook, every method gets entry");
    cf_result_free(&r);
    s.leaf_name = "LeafSite";
    rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && deep_ok(r.data, r.len) && r.leaf_sites == 1 && r.entry_sites == 3,
          "leaf: only the trivial method gets the leaf hook (%u leaf, %u entry)", r.leaf_sites, r.entry_sites);
    if (rc == CF_OK) {
        hooks_t t = hooks_of(p, n, r.data, r.len, "triv", 5), l = hooks_of(p, n, r.data, r.len, "loop", 0),
                b = hooks_of(p, n, r.data, r.len, "big", 3), y = hooks_of(p, n, r.data, r.len, "sync", 2);
        CHECK(!t.bad && t.leaves == 1 && t.entries == 0 && t.returns == 0,
              "leaf: triv calls the leaf hook once, no other");
        CHECK(!l.bad && !b.bad && !y.bad && l.leaves + b.leaves + y.leaves == 0 && l.entries == 1 && l.returns == 1 &&
                  b.entries == 1 && b.returns == 1 && y.entries == 1 && y.returns == 1,
              "leaf: a loop, 33 bytes, synchronized: entry and return hooks, same results");
    }
    cf_result_free(&r);
    free(p);
    free(triv.p);
    free(loop.p);
    free(big.p);
}

/* The entry hook of spec.entry_arg (monitor=y's on LockSupport's parks): its third
 * argument, pushed right before the call, is `this` in an instance method, null in a
 * constructor (not initialised yet), the first parameter of a static method when it is
 * a reference or an array, else null. */
static void test_entry_arg(void)
{
    cf_asm *a = cfa_new(52, 0, 0x21, "t/E", "java/lang/Object");
    unsigned sup = cfa_methodref(a, "java/lang/Object", "<init>", "()V");
    uint8_t ret[] = {177}, ctor[] = {42, 183, 0, 0, 177};
    w2(ctor + 2, sup);
    static const struct {
        unsigned access;
        const char *name, *desc;
        uint8_t want; /* the opcode pushing the hook's object */
    } ms[] = {
        {0x01, "inst", "(I)V", 42},                   /* aload_0: this */
        {0x01, "<init>", "()V", 1},                   /* aconst_null */
        {0x09, "sref", "(Ljava/lang/Object;I)V", 42}, /* aload_0: the first parameter */
        {0x09, "sarr", "([II)V", 42},
        {0x09, "sint", "(ILjava/lang/Object;)V", 1},
        {0x09, "snone", "()V", 1},
    };
    const int nms = (int)(sizeof ms / sizeof ms[0]);
    for (int i = 0; i < nms; i++) {
        cfa_attrs m = {0};
        int is_ctor = strcmp(ms[i].name, "<init>") == 0;
        cfa_code(a, &m, is_ctor ? 1 : 0, 3, is_ctor ? ctor : ret, is_ctor ? sizeof ctor : sizeof ret, NULL, 0, NULL);
        cfa_method(a, ms[i].access, ms[i].name, ms[i].desc, &m);
        cfa_attrs_free(&m);
    }
    uint8_t *p = NULL;
    size_t n = 0;
    int built = cfa_finish(a, &p, &n) == 0;
    cfa_free(a);
    CHECK(built && deep_ok(p, n), "entry_arg: the class builds");
    cf_inject_spec s;
    memset(&s, 0, sizeof s);
    s.tracker_class = "hprof/Tracker";
    s.entry_name = "JucEntry";
    s.entry_desc = "(IILjava/lang/Object;)V";
    s.entry_arg = 1;
    s.return_name = "JucExit";
    s.return_desc = "(II)V";
    s.cnum = 3;
    cf_result r;
    int rc = built ? cf_instrument(p, n, &s, &r) : CF_ERR_FORMAT;
    CHECK(rc == CF_OK && deep_ok(r.data, r.len) && r.entry_sites == (unsigned)nms,
          "entry_arg: every method gets the entry hook (%u)", rc == CF_OK ? r.entry_sites : 0);
    if (rc == CF_OK) {
        tcls t;
        tparse(&t, r.data, r.len);
        for (int i = 0; i < nms; i++) {
            tcode tc;
            char name[64] = "";
            uint32_t at = 0;
            int found = tcode_of(&t, ms[i].name, &tc);
            while (found && at < tc.code_len && tc.code[at] != 184) at++; /* the first invokestatic */
            int called = found && at > 0 && at + 2 < tc.code_len;
            if (called) tref_name(&t, u2(tc.code + at + 1), name, sizeof name);
            CHECK(called && strcmp(name, "JucEntry") == 0 && tc.code[at - 1] == ms[i].want && tc.max_stack >= 3 &&
                      at == 3,
                  "entry_arg: %s%s calls JucEntry first with %s (opcode %d, want %d; max_stack %u)", ms[i].name,
                  ms[i].desc, ms[i].want == 42 ? "aload_0" : "null", called ? tc.code[at - 1] : -1, ms[i].want,
                  found ? tc.max_stack : 0);
        }
        tfree(&t);
    }
    if (rc == CF_OK) cf_result_free(&r);
    free(p);
}

/* jsr/ret (version 49) with wide locals: counter += subroutine calls in a loop. */
static void test_jsr_wide(void)
{
    code_t c = {0};
    emit(&c, 4, 3, 60, 3, 62);       /* 0 */
    emit(&c, 5, 29, 26, 162, 0, 15); /* 4: LOOP, if_icmpge -> 19 */
    emit(&c, 3, 168, 0, 0);          /* 9: jsr SUB */
    emit(&c, 3, 132, 3, 1);          /* 12 */
    emit(&c, 3, 167, 0xff, 0xf5);    /* 15: goto 4 */
    emit(&c, 1, 0);                  /* 18: nop */
    emit(&c, 4, 27, 196, 54, 1);
    emit(&c, 1, 44);                    /* 19: iload_1; wide istore 300 */
    emit(&c, 4, 196, 21, 1, 44);        /* 24: wide iload 300 */
    emit(&c, 1, 172);                   /* 28: ireturn */
    uint32_t sub = (uint32_t)c.n;       /* 29: SUB */
    emit(&c, 1, 77);                    /* astore_2 */
    emit(&c, 6, 196, 132, 0, 1, 0, 10); /* wide iinc 1 10 */
    emit(&c, 4, 196, 169, 0, 2);        /* wide ret 2 */
    w2(c.p + 10, sub - 9);
    w2(c.p + 7, 19 - 6);
    size_t n;
    uint8_t *p = one_method(49, "f", "(I)I", &c, 2, 301, NULL, 0, NULL, &n, NULL);
    dump("jsr", p, n);
    CHECK(deep_ok(p, n) && roundtrip_ok(p, n), "jsr/wide: parse and round trip");
    cf_inject_spec s = all_hooks(9);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && deep_ok(r.data, r.len), "jsr/wide: instrumented");
    if (rc == CF_OK) same_results("jsr/wide", p, n, r.data, r.len, "f", (int64_t[]){0, 1, 4}, 3, 0);
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* Exception table, LineNumberTable, LocalVariableTable, StackMapTable and a type annotation
 * must point at the same instructions after injection. */
static void test_tables(void)
{
    cf_asm *a = cfa_new(52, 0, 0x21, "t/Tables", "java/lang/Object");
    unsigned objinit = cfa_methodref(a, "java/lang/Object", "<init>", "()V");
    unsigned objcls = cfa_class(a, "java/lang/Object");
    unsigned exc = cfa_class(a, "java/lang/RuntimeException");
    code_t c = {0};
    emit(&c, 2, 26, 153);
    emit(&c, 2, 0, 0); /* 0: iload_0 ifeq RET0 (fixed below) */
    emit(&c, 1, 187);
    emit(&c, 2, objcls >> 8, objcls & 0xff); /* 4: new Object   (try start) */
    emit(&c, 2, 89, 183);
    emit(&c, 2, objinit >> 8, objinit & 0xff); /* 7: dup invokespecial */
    emit(&c, 1, 87);                           /* 11: pop */
    emit(&c, 3, 26, 188, 10);
    emit(&c, 1, 87);         /* 12: iload_0 newarray int pop  (try end 16) */
    emit(&c, 2, 4, 172);     /* 16: iconst_1 ireturn */
    emit(&c, 3, 87, 5, 172); /* 18: HANDLER pop iconst_2 ireturn */
    emit(&c, 2, 3, 172);     /* 21: RET0 iconst_0 ireturn */
    w2(c.p + 2, 21 - 1);
    uint16_t ex[4] = {4, 16, 18, (uint16_t)exc};
    cfa_attrs ca = {0};
    uint8_t lnt[2 + 4 * 4];
    w2(lnt, 4);
    uint16_t lines[4][2] = {{0, 10}, {4, 11}, {16, 12}, {21, 13}};
    for (int i = 0; i < 4; i++) {
        w2(lnt + 2 + 4 * i, lines[i][0]);
        w2(lnt + 4 + 4 * i, lines[i][1]);
    }
    cfa_attr(a, &ca, "LineNumberTable", lnt, sizeof(lnt));
    uint8_t lvt[2 + 10];
    w2(lvt, 1);
    w2(lvt + 2, 0);
    w2(lvt + 4, 23);
    w2(lvt + 6, cfa_utf8(a, "n"));
    w2(lvt + 8, cfa_utf8(a, "I"));
    w2(lvt + 10, 0);
    cfa_attr(a, &ca, "LocalVariableTable", lvt, sizeof(lvt));
    uint8_t smt[] = {0, 2, 64 + 18, 7, 0, 0, 2}; /* at 18: same_locals_1 [RuntimeException]; at 21: same */
    w2(smt + 4, exc);
    cfa_attr(a, &ca, "StackMapTable", smt, sizeof(smt));
    /* type annotation: new at 4 (offset_target 0x44), annotation type #, 0 pairs */
    uint8_t ta[2 + 1 + 2 + 1 + 2 + 2];
    w2(ta, 1);
    ta[2] = 0x44;
    w2(ta + 3, 4);
    ta[5] = 0;
    w2(ta + 6, cfa_utf8(a, "LAnno;"));
    w2(ta + 8, 0);
    cfa_attr(a, &ca, "RuntimeVisibleTypeAnnotations", ta, sizeof(ta));
    uint8_t crt[2 + 14] = {0, 1, 0, 4, 0, 15, 0, 0, 1, 0, 0, 0, 2, 0, 0, 1}; /* pc 4..15 */
    cfa_attr(a, &ca, "CharacterRangeTable", crt, sizeof(crt));
    size_t n;
    uint8_t *p = one_method(52, "f", "(I)I", &c, 2, 1, ex, 1, &ca, &n, &a);
    cfa_free(a);
    cfa_attrs_free(&ca);
    dump("tables", p, n);
    CHECK(deep_ok(p, n) && roundtrip_ok(p, n), "tables: parse and round trip");
    cf_inject_spec s = all_hooks(1);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && deep_ok(r.data, r.len), "tables: instrumented and re-parsed");
    if (rc != CF_OK) {
        cf_result_free(&r);
        free(p);
        free(c.p);
        return;
    }
    tcls t;
    tparse(&t, r.data, r.len);
    tcode tc;
    tcode_of(&t, "f", &tc);
    /* new offsets: prologue 5 bytes; ireturn at 17 gets a 5-byte pre-hook, newarray +4 */
    const uint32_t P = 5;
    CHECK(tc.nexc == 2, "tables: exception table has the catch-all appended");
    CHECK(u2(tc.exc) == 4 + P && u2(tc.exc + 2) == 16 + P + 4 && u2(tc.exc + 4) == 18 + P + 4 + 5 &&
              u2(tc.exc + 6) == exc,
          "tables: exception entry remapped (%u %u %u)", u2(tc.exc), u2(tc.exc + 2), u2(tc.exc + 4));
    CHECK(tc.code[u2(tc.exc)] == 187 && tc.code[u2(tc.exc + 4)] == 87, "tables: range starts at new, handler at pop");
    CHECK(u2(tc.exc + 8) == P && u2(tc.exc + 10) == u2(tc.exc + 12) && u2(tc.exc + 14) == 0 &&
              tc.code[tc.code_len - 1] == 191,
          "tables: catch-all covers the body, handler rethrows");
    uint32_t l;
    const uint8_t *ln = tcode_attr(&t, &tc, "LineNumberTable", &l);
    CHECK(ln && u2(ln + 2) == 0 && u2(ln + 6) == 4 + P && u2(ln + 10) == 16 + P + 4 &&
              u2(ln + 14) == 21 + P + 4 + 5 + 5,
          "tables: LineNumberTable remapped (0 stays 0)");
    const uint8_t *lv = tcode_attr(&t, &tc, "LocalVariableTable", &l);
    CHECK(lv && u2(lv + 2) == 0 && u2(lv + 4) == tc.code_len - 6,
          "tables: LocalVariableTable covers the whole body (%u)", lv ? u2(lv + 4) : 0);
    const uint8_t *sm = tcode_attr(&t, &tc, "StackMapTable", &l);
    int smok = 0;
    if (sm && u2(sm) == 3) {
        /* frame 1: same_locals_1 at handler; frame 2: same (251 ext or small) at RET0; frame 3 full at end */
        uint32_t off = 0, i = 2, ok = 1;
        uint32_t want[3] = {18 + P + 4 + 5, 21 + P + 4 + 5 + 5, tc.code_len - 6};
        for (int f = 0; f < 3; f++) {
            uint32_t ft = sm[i], d;
            if (ft < 64) {
                d = ft;
                i += 1;
            } else if (ft < 128) {
                d = ft - 64;
                i += 1 + (sm[i + 1] == 7 ? 3 : 1);
            } else if (ft == 251) {
                d = u2(sm + i + 1);
                i += 3;
            } else if (ft == 255) {
                d = u2(sm + i + 1);
                i += 3;
                i += 2;
                i += 2;
                i += 3;
            } else {
                ok = 0;
                break;
            }
            off = f == 0 ? d : off + d + 1;
            if (off != want[f]) ok = 0;
        }
        smok = ok;
    }
    CHECK(smok, "tables: StackMapTable frames moved with their instructions, handler frame added");
    const uint8_t *tav = tcode_attr(&t, &tc, "RuntimeVisibleTypeAnnotations", &l);
    CHECK(tav && u2(tav + 3) == 4 + P && tc.code[u2(tav + 3)] == 187, "tables: type annotation offset remapped");
    const uint8_t *cr = tcode_attr(&t, &tc, "CharacterRangeTable", &l);
    CHECK(cr && u2(cr + 2) == 4 + P && u2(cr + 4) == 15 + P + 4 && tc.code[u2(cr + 4)] == 87,
          "tables: CharacterRangeTable remapped (%u..%u)", cr ? u2(cr + 2) : 0, cr ? u2(cr + 4) : 0);
    tfree(&t);
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* Constructors: the catch-all starts after super(); odd constructors get none. */
static void test_constructors(void)
{
    cf_asm *a = cfa_new(52, 0, 0x21, "t/C", "java/lang/Object");
    unsigned sup = cfa_methodref(a, "java/lang/Object", "<init>", "()V");
    cfa_attrs m = {0};
    uint8_t c1[] = {42, 183, 0, 0, 177};
    w2(c1 + 2, sup);
    cfa_code(a, &m, 1, 1, c1, sizeof(c1), NULL, 0, NULL);
    cfa_method(a, 0x01, "<init>", "()V", &m);
    cfa_attrs_free(&m);
    /* two super() calls on two paths (iload_1 ifeq; aload_0 invokespecial; return; aload_0 invokespecial; return) */
    uint8_t c2[] = {27, 153, 0, 8, 42, 183, 0, 0, 177, 42, 183, 0, 0, 177};
    w2(c2 + 6, sup);
    w2(c2 + 11, sup);
    cfa_attrs ca = {0};
    uint8_t smt[] = {0, 1, 9}; /* same_frame at 9: locals [uninitializedThis, int] */
    cfa_attr(a, &ca, "StackMapTable", smt, sizeof(smt));
    cfa_code(a, &m, 1, 2, c2, sizeof(c2), NULL, 0, &ca);
    cfa_method(a, 0x01, "<init>", "(I)V", &m);
    cfa_attrs_free(&m);
    cfa_attrs_free(&ca);
    uint8_t *p;
    size_t n;
    cfa_finish(a, &p, &n);
    cfa_free(a);
    dump("ctor", p, n);
    CHECK(deep_ok(p, n), "constructors: parse");
    cf_inject_spec s = all_hooks(1);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.exc_exits == 1 && r.exc_exit_skipped == 1 && r.instrumented == 2,
          "constructors: catch-all in the simple one, skipped in the odd one");
    if (rc == CF_OK) {
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        tcode_of(&t, "<init>", &tc);
        /* entry 5 bytes, aload_0 invokespecial (4): range starts at 9, the return's pre-hook */
        CHECK(tc.code[0] == 4 && tc.code[5] == 42 && tc.code[6] == 183 && tc.nexc == 1 && u2(tc.exc) == 9,
              "constructors: entry hook before super(), catch-all from after it");
        tfree(&t);
        CHECK(deep_ok(r.data, r.len), "constructors: re-parse");
    }
    cf_result_free(&r);
    free(p);
}

/* Object.<init> with one `return`, built here. */
static uint8_t *object_class(size_t *n)
{
    cf_asm *a = cfa_new(61, 0, 0x21, "java/lang/Object", NULL);
    cfa_attrs m = {0};
    uint8_t c1[] = {177};
    cfa_code(a, &m, 0, 1, c1, 1, NULL, 0, NULL);
    cfa_method(a, 0x01, "<init>", "()V", &m);
    cfa_attrs_free(&m);
    uint8_t *p;
    cfa_finish(a, &p, n);
    cfa_free(a);
    return p;
}

/* Object.<init> instrumented by spec s into t and tc; 0 (said) when it was not. */
static int object_init_code(const uint8_t *p, size_t n, const cf_inject_spec *s, const char *what, cf_result *r,
                            tcls *t, tcode *tc)
{
    int rc = cf_instrument(p, n, s, r);
    CHECK(rc == CF_OK && r->objinit_sites == 1, "%s: objinit hook injected", what);
    if (rc != CF_OK) return 0;
    tparse(t, r->data, r->len);
    tcode_of(t, "<init>", tc);
    return 1;
}

static void test_object_init(void)
{
    size_t n;
    uint8_t *p = object_class(&n);
    dump("object", p, n);
    cf_inject_spec s = all_hooks(0);
    cf_result r;
    tcls t;
    tcode tc;
    char nm[64], gc[64];
    if (object_init_code(p, n, &s, "Object.<init>", &r, &t, &tc)) {
        CHECK(tc.code[5] == 42 && tc.code[6] == 184 &&
                  !strcmp(tref_name(&t, u2(tc.code + 7), nm, sizeof(nm)), "ObjectInit"),
              "Object.<init>: aload_0 + invokestatic ObjectInit after the entry hook");
        CHECK(tc.nexc == 0, "Object.<init>: no catch-all");
        hooks_t h = {0};
        run(&t, &tc, 0, &h);
        CHECK(!h.bad && h.objinits == 1 && h.entries == 1 && h.returns == 1, "Object.<init>: runs");
        tfree(&t);
    }
    cf_result_free(&r);
    /* With the class passed too: this, this.getClass(), then the hook; two more stack. */
    s.objinit_desc = CF_OBJINIT_WITH_CLASS;
    if (object_init_code(p, n, &s, "Object.<init>, class passed", &r, &t, &tc)) {
        CHECK(tc.code[5] == 42 && tc.code[6] == 89 && tc.code[7] == 182 &&
                  !strcmp(tref_name(&t, u2(tc.code + 8), gc, sizeof(gc)), "getClass") && tc.code[10] == 184 &&
                  !strcmp(tref_name(&t, u2(tc.code + 11), nm, sizeof(nm)), "ObjectInit") && tc.max_stack >= 2,
              "Object.<init>, class passed: aload_0, dup, invokevirtual getClass, invokestatic ObjectInit");
        tfree(&t);
    }
    cf_result_free(&r);
    free(p);
}

static void test_too_big(void)
{
    cf_asm *a = NULL;
    code_t c = {0};
    for (int i = 0; i < 12000; i++) emit(&c, 5, 4, 188, 10, 190, 87);
    emit(&c, 2, 4, 172);
    size_t n;
    code_t small = {0};
    emit(&small, 2, 4, 172);
    uint8_t *p0 = one_method(52, "g", "()I", &small, 1, 0, NULL, 0, NULL, &n, &a);
    free(p0);
    uint8_t *p = one_method(52, "f", "()I", &c, 2, 0, NULL, 0, NULL, &n, &a);
    cfa_free(a);
    cf_inject_spec s = all_hooks(1);
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.too_big == 1 && r.instrumented == 1 && r.method_count == 2 &&
              r.methods[1].status == CF_M_TOO_BIG && r.methods[0].status == CF_M_INSTRUMENTED,
          "64 KiB: the method that would pass 65535 bytes is left alone and counted");
    if (rc == CF_OK) {
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        CHECK(tcode_of(&t, "f", &tc) && tc.code_len == c.n && memcmp(tc.code, c.p, c.n) == 0,
              "64 KiB: its code is unchanged");
        tfree(&t);
    }
    cf_result_free(&r);
    free(p);
    free(c.p);
    free(small.p);
}

static unsigned only_g(void *ctx, const char *cls, const char *name, const char *desc, unsigned acc, unsigned mnum)
{
    (void)cls;
    (void)desc;
    (void)acc;
    (void)mnum;
    ++*(int *)ctx;
    return strcmp(name, "g") == 0 ? CF_INJ_ENTRY : 0;
}

static void test_api(void)
{
    cf_asm *a = NULL;
    code_t c = {0};
    emit(&c, 2, 4, 172);
    size_t n;
    uint8_t *p0 = one_method(52, "f", "()I", &c, 1, 0, NULL, 0, NULL, &n, &a);
    free(p0);
    uint8_t *p = one_method(52, "g", "(I)I", &c, 1, 1, NULL, 0, NULL, &n, &a);
    cfa_free(a);
    cf_inject_spec s = all_hooks(40000);
    int calls = 0;
    s.filter = only_g;
    s.filter_ctx = &calls;
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && calls == 2 && r.instrumented == 1 && r.filtered == 1,
          "api: filter called per method, mask honoured");
    CHECK(r.method_count == 2 && !strcmp(r.methods[0].name, "f") && !strcmp(r.methods[1].desc, "(I)I") &&
              !strcmp(r.class_name, "t/T"),
          "api: methods listed in mnum order");
    if (rc == CF_OK) {
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        tcode_of(&t, "g", &tc);
        CHECK(tc.code[0] == 19 && tc.code[3] == 4 && tc.code[4] == 184,
              "api: cnum 40000 pushed with ldc_w, mnum 1 with iconst_1");
        hooks_t h = {0};
        CHECK(run(&t, &tc, 0, &h) == 1 && h.entries == 1 && h.returns == 0, "api: entry hook only");
        tfree(&t);
    }
    cf_result_free(&r);
    /* no hooks configured: unchanged */
    cf_inject_spec none;
    memset(&none, 0, sizeof(none));
    none.tracker_class = "hprof/Tracker";
    rc = cf_instrument(p, n, &none, &r);
    CHECK(rc == CF_UNCHANGED && r.data == NULL && r.method_count == 2, "api: nothing to inject gives CF_UNCHANGED");
    cf_result_free(&r);
    /* the tracker class itself is never instrumented */
    cf_inject_spec self = all_hooks(1);
    self.tracker_class = "t/T";
    rc = cf_instrument(p, n, &self, &r);
    CHECK(rc == CF_UNCHANGED, "api: tracker class left alone");
    cf_result_free(&r);
    /* an empty finalize() stays empty */
    {
        cf_asm *fa = NULL;
        code_t ret = {0};
        emit(&ret, 1, 177);
        size_t fn;
        uint8_t *fp = one_method(52, "finalize", "()V", &ret, 0, 1, NULL, 0, NULL, &fn, &fa);
        cfa_free(fa);
        cf_inject_spec fs = all_hooks(1);
        cf_result fr;
        int frc = cf_instrument(fp, fn, &fs, &fr);
        CHECK(frc == CF_UNCHANGED && fr.filtered == 1, "api: empty finalize() left alone");
        cf_result_free(&fr);
        free(fp);
        free(ret.p);
    }
    /* a constant pool with no room for the hooks' entries */
    {
        cf_asm *fa = cfa_new(52, 0, 0x21, "t/Full", "java/lang/Object");
        char nm[16];
        for (int i = 0; i < 65520; i++) {
            snprintf(nm, sizeof(nm), "u%d", i);
            cfa_utf8(fa, nm);
        }
        code_t ret = {0};
        emit(&ret, 1, 177);
        size_t fn;
        uint8_t *fp = one_method(52, "m", "()V", &ret, 0, 0, NULL, 0, NULL, &fn, &fa);
        cfa_free(fa);
        cf_inject_spec fs = all_hooks(1);
        cf_result fr;
        int frc = cf_instrument(fp, fn, &fs, &fr);
        CHECK(fp && deep_ok(fp, fn) && frc == CF_ERR_LIMIT && !fr.data,
              "api: full constant pool gives CF_ERR_LIMIT (%d)", frc);
        cf_result_free(&fr);
        free(fp);
        free(ret.p);
    }
    rc = cf_instrument(p, n, NULL, &r);
    CHECK(rc == CF_ERR_ARG, "api: NULL spec rejected");
    cf_result_free(&r);
    CHECK(cf_strerror(CF_ERR_FORMAT) && strlen(cf_strerror(CF_ERR_FORMAT)) > 0, "api: cf_strerror");
    free(p);
    free(c.p);
}

static void test_garbage(void)
{
    /* a valid class with a bit of everything */
    cf_asm *a = cfa_new(52, 0, 0x21, "t/G", "java/lang/Object");
    code_t c = {0};
    emit(&c, 6, 26, 153, 0, 5, 4, 172);
    emit(&c, 2, 3, 172);
    uint8_t smt[] = {0, 1, 6};
    cfa_attrs ca = {0};
    cfa_attr(a, &ca, "StackMapTable", smt, sizeof(smt));
    size_t n;
    uint8_t *p = one_method(52, "f", "(I)I", &c, 1, 1, NULL, 0, &ca, &n, &a);
    cfa_free(a);
    cfa_attrs_free(&ca);
    CHECK(deep_ok(p, n), "garbage: the base class is valid");
    cf_inject_spec s = all_hooks(1);
    int trunc_ok = 1;
    for (size_t k = 0; k < n; k++) {
        cf_result r;
        int rc = cf_instrument(p, k, &s, &r);
        cf_class *cls = NULL;
        if (rc >= 0 || r.data || cf_parse(p, k, 0, &cls) == CF_OK) trunc_ok = 0;
        cf_free(cls);
        cf_result_free(&r);
    }
    CHECK(trunc_ok, "garbage: every truncation is an error, with no output");
    /* trailing byte */
    uint8_t *q = malloc(n + 1);
    memcpy(q, p, n);
    q[n] = 0;
    cf_class *cls = NULL;
    CHECK(cf_parse(q, n + 1, 0, &cls) == CF_ERR_FORMAT, "garbage: trailing bytes rejected");
    cf_free(cls);
    /* every single-byte change: no crash, and either an error or a class that re-parses */
    int flips_ok = 1;
    unsigned errors = 0;
    for (size_t k = 0; k < n; k++) {
        for (int v = 0; v < 3; v++) {
            memcpy(q, p, n);
            q[k] = (uint8_t)(v == 0 ? 0xff : v == 1 ? 0 : q[k] ^ 0x01);
            cf_result r;
            int rc = cf_instrument(q, n, &s, &r);
            if (rc < 0) errors++;
            if (rc < 0 && r.data) flips_ok = 0;
            if (rc == CF_OK) {
                cf_class *c2 = NULL;
                if (cf_parse(r.data, r.len, 0, &c2) != CF_OK) flips_ok = 0;
                cf_free(c2);
            }
            cf_result_free(&r);
        }
    }
    CHECK(flips_ok && errors > 0, "garbage: byte changes give errors (%u) or valid output", errors);
    static const uint8_t junk[] = {0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0xff, 0xff};
    cf_result r;
    CHECK(cf_instrument(junk, sizeof(junk), &s, &r) == CF_ERR_FORMAT && !r.data,
          "garbage: huge constant pool count in a tiny file");
    cf_result_free(&r);
    CHECK(cf_instrument((const uint8_t *)"", 0, &s, &r) == CF_ERR_FORMAT, "garbage: empty input");
    cf_result_free(&r);
    free(q);
    free(p);
    free(c.p);
}

/* The debug knobs on a method with frames: every branch widened through islands, then by
 * inversion with inferred frames; the result must still run the same. */
static void test_widen_all(void)
{
    cf_asm *a = cfa_new(52, 0, 0x21, "t/WA", "java/lang/Object");
    code_t c = {0};
    /* s = 0; for (i = 0; i < n; i++) { if (i == 2) continue; s += i; } return s;
     * locals: 0 n, 1 s, 2 i */
    emit(&c, 4, 3, 60, 3, 61);      /* 0: iconst_0 istore_1 iconst_0 istore_2 */
    emit(&c, 5, 28, 26, 162, 0, 0); /* 4: LOOP iload_2 iload_0 if_icmpge END */
    emit(&c, 5, 28, 5, 159, 0, 0);  /* 9: iload_2 iconst_2 if_icmpeq NEXT */
    emit(&c, 4, 27, 28, 96, 60);    /* 14: iload_1 iload_2 iadd istore_1 */
    emit(&c, 3, 132, 2, 1);         /* 18: NEXT iinc 2 1 */
    emit(&c, 3, 167, 0xff, 0xef);   /* 21: goto LOOP (-17) */
    emit(&c, 2, 27, 172);           /* 24: END iload_1 ireturn */
    w2(c.p + 7, 24 - 6);
    w2(c.p + 12, 18 - 11);
    /* frames: 4 append [I I]; 18 same; 24 same */
    uint8_t smt[] = {0, 3, 253, 0, 4, 1, 1, 13, 5};
    cfa_attrs ca = {0};
    cfa_attr(a, &ca, "StackMapTable", smt, sizeof(smt));
    size_t n;
    uint8_t *p = one_method(52, "f", "(I)I", &c, 2, 3, NULL, 0, &ca, &n, &a);
    cfa_free(a);
    cfa_attrs_free(&ca);
    dump("widenall", p, n);
    CHECK(deep_ok(p, n), "widen all: base class valid");
    static const unsigned modes[] = {CF_DEBUG_WIDEN_ALL, CF_DEBUG_WIDEN_ALL | CF_DEBUG_NO_ISLANDS};
    for (int m = 0; m < 2; m++) {
        cf_inject_spec s = all_hooks(1);
        s.debug = modes[m];
        cf_result r;
        int rc = cf_instrument(p, n, &s, &r);
        CHECK(rc == CF_OK && r.widened == 3 && r.unrewritable == 0 && deep_ok(r.data, r.len),
              "widen all (%s): three branches widened, re-parses", m ? "inversion" : "islands");
        if (rc == CF_OK) {
            same_results(m ? "widen all (inversion)" : "widen all (islands)", p, n, r.data, r.len, "f",
                         (int64_t[]){0, 1, 2, 3, 6}, 5, 0);
            tcls t;
            tparse(&t, r.data, r.len);
            tcode tc;
            tcode_of(&t, "f", &tc);
            uint32_t l;
            const uint8_t *sm = tcode_attr(&t, &tc, "StackMapTable", &l);
            /* islands: + trampolines for END and NEXT; inversion: + frames after the 2 goto_w */
            CHECK(sm && u2(sm) >= 6, "widen all (%s): new frames (%u)", m ? "inversion" : "islands", sm ? u2(sm) : 0);
            tfree(&t);
        }
        cf_result_free(&r);
    }
    free(p);
    free(c.p);
}

/* ---- allocation sites (CF_INJ_SITES, CF_INJ_ALLOCINST) ------------------------------- */

typedef struct {
    long next; /* the next number to give */
    int skip;  /* the call (0-based) answered with -1 */
    int calls, in_order, zero_new_bci;
    unsigned last_bci;
    char types[24][24];
    unsigned kinds[24], dims[24];
} site_ctx;

static long number_sites(void *ctx, const cf_site_info *s)
{
    site_ctx *x = ctx;
    int k = x->calls++;
    if (k > 0 && s->bci <= x->last_bci) x->in_order = 0;
    if (s->new_bci != 0 || s->mnum != 0) x->zero_new_bci = 0;
    x->last_bci = s->bci;
    if (k < 24) {
        snprintf(x->types[k], sizeof(x->types[k]), "%s", s->type);
        x->kinds[k] = s->kind;
        x->dims[k] = s->dims;
    }
    if (k == x->skip) return -1;
    long v = x->next;
    x->next += s->dims;
    return v;
}

static cf_inject_spec site_hooks(site_ctx *x)
{
    cf_inject_spec s;
    memset(&s, 0, sizeof(s));
    s.tracker_class = "hprof/Tracker";
    s.newsite_name = "NewSite";
    s.arraysite_name = "ArraySite";
    s.multisite_name = "MultiSite";
    s.allocinst_name = "AllocInst";
    s.site_fn = number_sites;
    s.site_ctx = x;
    return s;
}

/* Whether code[*pos..] pushes int v (iconst, bipush, sipush, ldc/ldc_w of an Integer; ldc:
 * 1 when it must be ldc, 2 when ldc_w, 0 either); moves *pos past it. */
static int match_push(const tcls *t, const uint8_t *code, uint32_t *pos, long v, int ldc)
{
    const uint8_t *p = code + *pos;
    uint32_t idx = 0, len;
    if (v >= -1 && v <= 5) {
        len = 1;
        if (p[0] != 3 + v) return 0;
    } else if (v >= -128 && v <= 127) {
        len = 2;
        if (p[0] != 16 || (int8_t)p[1] != v) return 0;
    } else if (v >= -32768 && v <= 32767) {
        len = 3;
        if (p[0] != 17 || (int16_t)u2(p + 1) != v) return 0;
    } else {
        if (p[0] == 18 && ldc != 2) {
            idx = p[1];
            len = 2;
        } else if (p[0] == 19 && ldc != 1) {
            idx = u2(p + 1);
            len = 3;
        } else
            return 0;
        const uint8_t *e = t->p + t->cpoff[idx];
        if (e[0] != 3 || (int32_t)u4(e + 1) != v) return 0;
    }
    *pos += len;
    return 1;
}

/* Whether code[*pos..] is invokestatic of hook name; moves *pos past it. */
static int match_call(const tcls *t, const uint8_t *code, uint32_t *pos, const char *name)
{
    char nm[64];
    if (code[*pos] != 184 || strcmp(tref_name(t, u2(code + *pos + 1), nm, sizeof(nm)), name) != 0) return 0;
    *pos += 3;
    return 1;
}

/* Whether the site hook right after the site's instruction (of isize bytes, after a post
 * hook of post bytes) is what its kind asks for; *end: the offset after it. */
static int site_blob_ok(const tcls *t, const uint8_t *code, const cf_site_info *s, uint32_t isize, uint32_t post,
                        unsigned elem, int ldc, uint32_t *end)
{
    uint32_t pos = s->new_bci + isize + post;
    int ok;
    if (s->kind == CF_SITE_NEW)
        ok = match_push(t, code, &pos, s->number, ldc) && match_call(t, code, &pos, "NewSite");
    else if (s->kind == CF_SITE_ARRAY)
        ok = code[pos] == 89 && code[pos + 1] == 190 && (pos += 2) && match_push(t, code, &pos, s->number, ldc) &&
            match_push(t, code, &pos, elem, 0) && match_call(t, code, &pos, "ArraySite");
    else
        ok = code[pos++] == 89 && match_push(t, code, &pos, s->number, ldc) &&
            match_call(t, code, &pos, s->kind == CF_SITE_MULTI ? "MultiSite" : "AllocInst");
    *end = pos;
    return ok;
}

/* f(n): every allocating instruction, a branch over a new, a newarray in a try range and
 * one in a loop, three allocateInstance calls (two of them Unsafe's). Version 49: no
 * StackMapTable to hand-assemble. pad: Utf8 entries first, to push Integers past ldc. */
static uint8_t *sites_class(int pad, size_t *n, code_t *c)
{
    cf_asm *a = cfa_new(49, 0, 0x21, "t/S", "java/lang/Object");
    char nm[16];
    for (int i = 0; i < pad; i++) {
        snprintf(nm, sizeof(nm), "p%d", i);
        cfa_utf8(a, nm);
    }
    unsigned str = cfa_class(a, "java/lang/String"), ai = cfa_class(a, "[I"), aai = cfa_class(a, "[[I");
    unsigned aaaj = cfa_class(a, "[[[J");
    const char *ad = "(Ljava/lang/Class;)Ljava/lang/Object;";
    unsigned u1 = cfa_methodref(a, "sun/misc/Unsafe", "allocateInstance", ad);
    unsigned u2r = cfa_methodref(a, "jdk/internal/misc/Unsafe", "allocateInstance", ad);
    unsigned other = cfa_methodref(a, "t/Other", "allocateInstance", ad);
    memset(c, 0, sizeof(*c));
    emit(c, 4, 187, str >> 8, str & 255, 87);                  /* 0: new String; pop */
    for (int t = 4; t <= 11; t++) emit(c, 4, 26, 188, t, 87);  /* 4..35: iload_0 newarray T; pop */
    emit(c, 5, 26, 189, str >> 8, str & 255, 87);              /* 36: anewarray String */
    emit(c, 5, 26, 189, ai >> 8, ai & 255, 87);                /* 41: anewarray [I */
    emit(c, 7, 26, 26, 197, aai >> 8, aai & 255, 2, 87);       /* 46: multianewarray [[I 2 */
    emit(c, 8, 26, 26, 26, 197, aaaj >> 8, aaaj & 255, 3, 87); /* 53: multianewarray [[[J 3 */
    emit(c, 6, 1, 1, 182, u1 >> 8, u1 & 255, 87);              /* 61: allocateInstance */
    emit(c, 6, 1, 1, 182, u2r >> 8, u2r & 255, 87);            /* 67 */
    emit(c, 6, 1, 1, 182, other >> 8, other & 255, 87);        /* 73: not Unsafe's */
    emit(c, 4, 26, 153, 0, 7);                                 /* 79: iload_0 ifeq 87 */
    emit(c, 4, 187, str >> 8, str & 255, 87);                  /* 83: new String; pop */
    emit(c, 4, 26, 188, 10, 87);                               /* 87: TRY iload_0 newarray int */
    emit(c, 3, 167, 0, 4);                                     /* 91: goto 95 */
    emit(c, 1, 87);                                            /* 94: handler: pop */
    emit(c, 3, 132, 0, 255);                                   /* 95: LOOP iinc 0 -1 */
    emit(c, 4, 26, 188, 5, 87);                                /* 98: iload_0 newarray char */
    emit(c, 4, 26, 156, 0xff, 0xf8);                           /* 102: iload_0 ifge LOOP */
    emit(c, 1, 177);                                           /* 106: return */
    uint16_t exc[4] = {87, 91, 94, 0};
    uint8_t *p = one_method(49, "f", "(I)V", c, 3, 1, exc, 1, NULL, n, &a);
    cfa_free(a);
    return p;
}

static const struct {
    unsigned bci, kind, elem, dims, isize;
    const char *type;
} site_want[18] = {
    {0, CF_SITE_NEW, 0, 1, 3, "java/lang/String"},
    {5, CF_SITE_ARRAY, 4, 1, 2, "[Z"},
    {9, CF_SITE_ARRAY, 5, 1, 2, "[C"},
    {13, CF_SITE_ARRAY, 6, 1, 2, "[F"},
    {17, CF_SITE_ARRAY, 7, 1, 2, "[D"},
    {21, CF_SITE_ARRAY, 8, 1, 2, "[B"},
    {25, CF_SITE_ARRAY, 9, 1, 2, "[S"},
    {29, CF_SITE_ARRAY, 10, 1, 2, "[I"},
    {33, CF_SITE_ARRAY, 11, 1, 2, "[J"},
    {37, CF_SITE_ARRAY, 12, 1, 3, "[Ljava/lang/String;"},
    {42, CF_SITE_ARRAY, 12, 1, 3, "[[I"},
    {48, CF_SITE_MULTI, 0, 2, 4, "[[I"},
    {56, CF_SITE_MULTI, 0, 3, 4, "[[[J"},
    {63, CF_SITE_CALL, 0, 1, 3, ""},
    {69, CF_SITE_CALL, 0, 1, 3, ""},
    {83, CF_SITE_NEW, 0, 1, 3, "java/lang/String"},
    {88, CF_SITE_ARRAY, 10, 1, 2, "[I"},
    {99, CF_SITE_ARRAY, 5, 1, 2, "[C"},
};

/* The hooked site of call k in r->sites, or NULL. */
static const cf_site_info *site_at(const cf_result *r, unsigned bci)
{
    for (unsigned i = 0; i < r->site_count; i++)
        if (r->sites[i].bci == bci) return &r->sites[i];
    return NULL;
}

/* The sites class instrumented with numbers from base (call skip answered -1); with_all:
 * the other hooks too (the newarray hook then comes first after each array allocation). */
static void sites_run(const char *what, int pad, long base, int skip, int ldc, int with_all)
{
    code_t c;
    size_t n;
    uint8_t *p = sites_class(pad, &n, &c);
    site_ctx x = {.next = base, .skip = skip, .in_order = 1, .zero_new_bci = 1};
    cf_inject_spec s = site_hooks(&x);
    if (with_all) {
        cf_inject_spec all = all_hooks(7);
        all.newsite_name = s.newsite_name;
        all.arraysite_name = s.arraysite_name;
        all.multisite_name = s.multisite_name;
        all.allocinst_name = s.allocinst_name;
        all.site_fn = s.site_fn;
        all.site_ctx = s.site_ctx;
        s = all;
    }
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(p && rc == CF_OK && deep_ok(r.data, r.len), "sites %s: instrumented, re-parses", what);
    int calls_ok = x.calls == 18 && x.in_order && x.zero_new_bci;
    for (int k = 0; k < 18 && calls_ok; k++)
        if (strcmp(x.types[k], site_want[k].type) || x.kinds[k] != site_want[k].kind || x.dims[k] != site_want[k].dims)
            calls_ok = 0;
    CHECK(calls_ok, "sites %s: callback once per allocation in code order, kind/type/dims right (%d calls)", what,
          x.calls);
    CHECK(r.site_count == (skip >= 0 ? 17u : 18u), "sites %s: %u sites hooked", what, r.site_count);
    if (rc != CF_OK) goto out;
    tcls t;
    tparse(&t, r.data, r.len);
    tcode tc;
    tcode_of(&t, "f", &tc);
    uint32_t post = with_all ? 4 : 0, ends[18] = {0};
    int entries_ok = 1, blobs_ok = 1, skipped_ok = 1;
    long num = base;
    for (int k = 0; k < 18; k++) {
        const cf_site_info *e = site_at(&r, site_want[k].bci);
        if (k == skip) {
            if (e) skipped_ok = 0;
            continue;
        }
        if (!e || e->mnum != 0 || e->kind != site_want[k].kind || strcmp(e->type, site_want[k].type) ||
            e->dims != site_want[k].dims || e->number != num || tc.code[e->new_bci] != c.p[e->bci]) {
            entries_ok = 0;
            printf("#   site %d (bci %u): %s\n", k, site_want[k].bci, e ? e->type : "missing");
            num += site_want[k].dims;
            continue;
        }
        num += site_want[k].dims;
        uint32_t ipost = site_want[k].kind == CF_SITE_NEW || site_want[k].kind == CF_SITE_CALL ? 0 : post,
                 q = e->new_bci + site_want[k].isize;
        if (ipost && !(tc.code[q] == 89 && match_call(&t, tc.code, &(uint32_t){q + 1}, "NewArray"))) blobs_ok = 0;
        if (!site_blob_ok(&t, tc.code, e, site_want[k].isize, ipost, site_want[k].elem, ldc, &ends[k])) {
            blobs_ok = 0;
            printf("#   site %d: blob differs\n", k);
        }
    }
    CHECK(entries_ok && skipped_ok,
          "sites %s: result entries (mnum, bci, new_bci at the opcode, kind, type, dims, "
          "number)%s",
          what, skip >= 0 ? ", none for the -1" : "");
    CHECK(blobs_ok, "sites %s: the bytes after each site", what);
    if (skip != 14) {
        /* after the second Unsafe.allocateInstance's hook: pop, then t/Other's call, not hooked */
        const uint8_t *k = tc.code + ends[14] + 1;
        CHECK(k[0] == 1 && k[1] == 1 && k[2] == 182 && k[5] == 87, "sites %s: no hook after t/Other.allocateInstance",
              what);
    }
    if (skip < 15) {
        const cf_site_info *s13 = site_at(&r, 83), *s14 = site_at(&r, 88), *s15 = site_at(&r, 99);
        uint32_t ifeq = s13->new_bci - 3;
        CHECK(tc.code[ifeq] == 153 && ifeq + (int16_t)u2(tc.code + ifeq + 1) == ends[15] + 1,
              "sites %s: the branch over a new jumps past its hook", what);
        uint32_t goto_at = ends[16] + 1;
        CHECK(tc.nexc >= 1 && u2(tc.exc) == s14->new_bci - 1 && u2(tc.exc + 2) == goto_at &&
                  u2(tc.exc + 4) == goto_at + 3 && tc.code[goto_at] == 167,
              "sites %s: the try range holds the site and its hook", what);
        uint32_t ifge = ends[17] + 2, iinc = s15->new_bci - 4;
        CHECK(tc.code[ifge] == 156 && tc.code[iinc] == 132 && ifge + (int16_t)u2(tc.code + ifge + 1) == iinc,
              "sites %s: the loop's back edge lands on its head", what);
    }
    CHECK(tc.max_stack == 6, "sites %s: max_stack 3 + 3 for an array site's arguments (%u)", what, tc.max_stack);
    tfree(&t);
out:
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* The JDK natives whose result the VM made (cf_sites_made): each call a CF_SITE_CALL site
 * with dup; push number; AllocInst (or MadeAll when the result holds more it made); a
 * clone() Object.clone surely runs is one too; another class's newInstance0 and a
 * virtual clone() are not (the latter keeps its VClone hook). */
static void test_sites_made(void)
{
    cf_asm *a = cfa_new(49, 0, 0x21, "t/M", "java/lang/Object");
    const char *ctor = "(Ljava/lang/reflect/Constructor;[Ljava/lang/Object;)Ljava/lang/Object;";
    unsigned na = cfa_methodref(a, "java/lang/reflect/Array", "newArray", "(Ljava/lang/Class;I)Ljava/lang/Object;");
    unsigned mna =
        cfa_methodref(a, "java/lang/reflect/Array", "multiNewArray", "(Ljava/lang/Class;[I)Ljava/lang/Object;");
    unsigned ni = cfa_methodref(a, "jdk/internal/reflect/NativeConstructorAccessorImpl", "newInstance0", ctor);
    unsigned sub = cfa_methodref(a, "jdk/internal/reflect/sub/X", "newInstance0", ctor);
    unsigned gf = cfa_methodref(a, "java/lang/Class", "getDeclaredFields0", "(Z)[Ljava/lang/reflect/Field;");
    unsigned gm = cfa_methodref(a, "java/lang/Class", "getDeclaredMethods0", "(Z)[Ljava/lang/reflect/Method;");
    unsigned oc = cfa_methodref(a, "java/lang/Object", "clone", "()Ljava/lang/Object;");
    unsigned ac = cfa_methodref(a, "[I", "clone", "()Ljava/lang/Object;");
    unsigned fc = cfa_methodref(a, "t/Foo", "clone", "()Ljava/lang/Object;");
    code_t c = {0};
    emit(&c, 6, 1, 4, 184, na >> 8, na & 255, 87);   /* 0: newArray at 2 */
    emit(&c, 6, 1, 1, 184, mna >> 8, mna & 255, 87); /* 6: multiNewArray at 8 */
    emit(&c, 6, 1, 1, 184, ni >> 8, ni & 255, 87);   /* 12: newInstance0 at 14 */
    emit(&c, 6, 1, 1, 184, sub >> 8, sub & 255, 87); /* 18: a subpackage's, at 20 */
    emit(&c, 6, 1, 3, 182, gf >> 8, gf & 255, 87);   /* 24: getDeclaredFields0 at 26 */
    emit(&c, 6, 1, 3, 183, gm >> 8, gm & 255, 87);   /* 30: getDeclaredMethods0 at 32 */
    emit(&c, 5, 1, 183, oc >> 8, oc & 255, 87);      /* 36: super.clone() at 37 */
    emit(&c, 5, 1, 182, ac >> 8, ac & 255, 87);      /* 41: an int[]'s clone() at 42 */
    emit(&c, 5, 1, 182, fc >> 8, fc & 255, 87);      /* 46: t/Foo's, virtual, at 47 */
    emit(&c, 1, 177);                                /* 51: return */
    size_t n;
    uint8_t *p = one_method(49, "f", "()V", &c, 2, 0, NULL, 0, NULL, &n, &a);
    cfa_free(a);
    site_ctx x = {.next = 0, .skip = -1, .in_order = 1};
    cf_inject_spec s = site_hooks(&x);
    s.madeall_name = "MadeAll";
    s.clone_name = "Clone";
    s.vclone_name = "VClone";
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(p && rc == CF_OK && deep_ok(r.data, r.len) && r.site_count == 7 && x.calls == 7,
          "made: seven calls are sites (%u, %d asked)", r.site_count, x.calls);
    if (rc != CF_OK) goto out;
    tcls t;
    tparse(&t, r.data, r.len);
    tcode tc;
    tcode_of(&t, "f", &tc);
    static const struct {
        unsigned bci;
        const char *hook;
    } want[7] = {{2, "AllocInst"}, {8, "MadeAll"},    {14, "AllocInst"}, {26, "MadeAll"},
                 {32, "MadeAll"},  {37, "AllocInst"}, {42, "AllocInst"}};
    int ok = 1;
    uint32_t end = 0;
    for (int k = 0; k < 7; k++) {
        const cf_site_info *e = site_at(&r, want[k].bci);
        uint32_t pos = e ? e->new_bci + 3 : 0;
        if (!e || e->kind != CF_SITE_CALL || strcmp(e->type, "") || e->dims != 1 || tc.code[pos++] != 89 ||
            !match_push(&t, tc.code, &pos, e->number, 0) || !match_call(&t, tc.code, &pos, want[k].hook)) {
            ok = 0;
            printf("#   call at %u: %s\n", want[k].bci, e ? "blob differs" : "missing");
        }
        end = pos;
    }
    CHECK(ok, "made: dup, the number and AllocInst or MadeAll after each");
    CHECK(!site_at(&r, 20), "made: jdk/internal/reflect/sub's newInstance0 is no site");
    const uint8_t *k = tc.code + end;
    uint32_t vpos = end + 6;
    CHECK(k[0] == 87 && k[1] == 1 && k[2] == 182 && k[5] == 89 && match_call(&t, tc.code, &vpos, "VClone") &&
              tc.code[vpos] == 87,
          "made: a virtual clone() keeps its own hook");
    tfree(&t);
    cf_result r2;
    s.clone_name = NULL; /* Object.clone's copies take AllocInst: no clone hook needed */
    x.next = 0;          /* the same numbers: the same offsets */
    int good = cf_instrument(p, n, &s, &r2) == CF_OK && r2.site_count == 7;
    if (good) {
        tcls t2;
        tparse(&t2, r2.data, r2.len);
        tcode tc2;
        tcode_of(&t2, "f", &tc2);
        uint32_t v2 = end + 6;
        good = match_call(&t2, tc2.code, &v2, "VClone");
        tfree(&t2);
        cf_result_free(&r2);
    }
    CHECK(good, "made: without clone_name the same seven sites, the virtual clone still hooked");
out:
    cf_result_free(&r);
    free(p);
    free(c.p);
}

/* The bytes ClassDefiner.defineClass(ZLjava/lang/Object;) reads from its field get
 * aload_0; invokestatic Definer after the getfield; another method's read, another
 * field's, or another class's do not. */
static void definer_run(const char *cls, const char *method, int hooked)
{
    cf_asm *a = cfa_new(49, 0, 0x20, cls, "java/lang/Object");
    unsigned bytes = cfa_fieldref(a, cls, "bytes", "[B");
    unsigned flags = cfa_fieldref(a, cls, "classFlags", "I");
    code_t c = {0};
    emit(&c, 4, 42, 180, bytes >> 8, bytes & 255); /* 0: aload_0; getfield bytes */
    emit(&c, 4, 42, 180, flags >> 8, flags & 255); /* 4: aload_0; getfield classFlags */
    emit(&c, 3, 87, 87, 1);                        /* 8: pop; pop; aconst_null */
    emit(&c, 1, 176);                              /* 11: areturn */
    cfa_attrs m = {0};
    cfa_code(a, &m, 2, 3, c.p, c.n, NULL, 0, NULL);
    cfa_method(a, 0x00, method, "(ZLjava/lang/Object;)Ljava/lang/Class;", &m);
    cfa_attrs_free(&m);
    uint8_t *p = NULL;
    size_t n = 0;
    int ok = cfa_finish(a, &p, &n) == 0;
    cfa_free(a);
    cf_inject_spec s;
    memset(&s, 0, sizeof(s));
    s.tracker_class = "hprof/Tracker";
    s.definer_name = "Definer";
    cf_result r;
    int rc = ok ? cf_instrument(p, n, &s, &r) : CF_ERR_FORMAT;
    if (!hooked) {
        CHECK(rc == CF_UNCHANGED, "definer: %s.%s's read of bytes left alone (%d)", cls, method, rc);
    } else {
        int good = rc == CF_OK && deep_ok(r.data, r.len);
        if (good) {
            tcls t;
            tparse(&t, r.data, r.len);
            tcode tc;
            tcode_of(&t, method, &tc);
            uint32_t pos = 5;
            good = tc.code[0] == 42 && tc.code[1] == 180 && tc.code[4] == 42 &&
                match_call(&t, tc.code, &pos, "Definer") && tc.code[8] == 42 && tc.code[9] == 180 &&
                tc.code[12] == 87 && tc.max_stack == 3;
            tfree(&t);
        }
        CHECK(good,
              "definer: aload_0 and Definer after ClassDefiner.defineClass's getfield bytes, not after classFlags");
    }
    if (rc == CF_OK || rc == CF_UNCHANGED) cf_result_free(&r);
    free(p);
    free(c.p);
}

static void test_sites_definer(void)
{
    const char *definer = "java/lang/invoke/MethodHandles$Lookup$ClassDefiner";
    definer_run(definer, "defineClass", 1);
    definer_run(definer, "other", 0);
    definer_run("t/NotDefiner", "defineClass", 0);
}

/* Filters for the no-sites cases: everything but the site hooks; a count of calls. */
static unsigned no_sites(void *ctx, const char *cls, const char *name, const char *desc, unsigned acc, unsigned mnum)
{
    (void)ctx;
    (void)cls;
    (void)name;
    (void)desc;
    (void)acc;
    (void)mnum;
    return CF_INJ_ALL & ~(unsigned)(CF_INJ_SITES | CF_INJ_ALLOCINST);
}

static long never(void *ctx, const cf_site_info *s)
{
    (void)s;
    ++*(int *)ctx;
    return -1;
}

/* Without site_fn, or with the filter taking CF_INJ_SITES away, the output is the same as
 * without the site hooks; a callback that answers -1 hooks nothing. */
static void test_sites_off(void)
{
    code_t c;
    size_t n;
    uint8_t *p = sites_class(0, &n, &c);
    cf_inject_spec s = all_hooks(3);
    cf_result r0, r1, r2;
    int rc0 = cf_instrument(p, n, &s, &r0);
    s.newsite_name = "NewSite";
    s.arraysite_name = "ArraySite";
    s.multisite_name = "MultiSite";
    int rc1 = cf_instrument(p, n, &s, &r1);
    int calls = 0;
    s.site_fn = never;
    s.site_ctx = &calls;
    s.allocinst_name = "AllocInst";
    s.filter = no_sites;
    int rc2 = cf_instrument(p, n, &s, &r2);
    CHECK(rc0 == CF_OK && rc1 == CF_OK && r1.len == r0.len && !memcmp(r1.data, r0.data, r0.len) && !r1.site_count,
          "sites off: no site_fn, output byte-identical");
    CHECK(rc2 == CF_OK && r2.len == r0.len && !memcmp(r2.data, r0.data, r0.len) && calls == 0,
          "sites off: filter without CF_INJ_SITES, output byte-identical, callback never called");
    cf_result_free(&r0);
    cf_result_free(&r1);
    cf_result_free(&r2);
    cf_inject_spec only;
    memset(&only, 0, sizeof(only));
    only.tracker_class = "hprof/Tracker";
    only.newsite_name = "NewSite";
    only.arraysite_name = "ArraySite";
    only.multisite_name = "MultiSite";
    only.site_fn = never;
    only.site_ctx = &calls;
    int rc = cf_instrument(p, n, &only, &r0);
    CHECK(rc == CF_UNCHANGED && calls == 16 && r0.site_count == 0 && !r0.sites,
          "sites off: every site answered -1, class unchanged (%d calls)", calls);
    cf_result_free(&r0);
    free(p);
    free(c.p);
}

/* A number past sipush in a full constant pool: CF_ERR_LIMIT, no output. */
static void test_sites_full_pool(void)
{
    for (int fit = 0; fit < 2; fit++) {
        /* the filler leaves room for the hook's six entries, and the Integer only when fit */
        cf_asm *a = cfa_new(52, 0, 0x21, "t/FullSites", "java/lang/Object");
        unsigned str = cfa_class(a, "java/lang/String"), last = 0;
        char nm[16];
        for (int i = 0; last < 0xFFFFu - 10 - (unsigned)fit; i++) {
            snprintf(nm, sizeof(nm), "u%d", i);
            last = cfa_utf8(a, nm);
        }
        code_t c = {0};
        emit(&c, 5, 187, str >> 8, str & 255, 87, 177); /* new String; pop; return */
        size_t n;
        uint8_t *p = one_method(52, "m", "()V", &c, 1, 0, NULL, 0, NULL, &n, &a);
        cfa_free(a);
        site_ctx x = {.next = 100000, .skip = -1};
        cf_inject_spec s = site_hooks(&x);
        s.arraysite_name = s.multisite_name = s.allocinst_name = NULL;
        cf_result r;
        int rc = cf_instrument(p, n, &s, &r);
        if (fit)
            CHECK(rc == CF_OK && r.site_count == 1, "sites: number 100000 fits the last slot of the pool (%d)", rc);
        else
            CHECK(rc == CF_ERR_LIMIT && !r.data && !r.site_count,
                  "sites: no slot for the number's Integer gives CF_ERR_LIMIT (%d)", rc);
        cf_result_free(&r);
        free(p);
        free(c.p);
    }
}

/* f(n): if (n == 0) return 2; K x 'iconst_1 newarray int pop'; return 1. The site hooks
 * push the ifeq past 32 KiB: it is widened (version 49: inverted over a goto_w). */
static void test_sites_widen(void)
{
    code_t c = {0};
    const int K = 3000;
    emit(&c, 4, 26, 153, 0, 0);
    for (int i = 0; i < K; i++) emit(&c, 4, 4, 188, 10, 87);
    emit(&c, 2, 4, 172);
    uint32_t L = (uint32_t)c.n;
    emit(&c, 2, 5, 172);
    w2(c.p + 2, L - 1);
    size_t n;
    uint8_t *p = one_method(49, "f", "(I)I", &c, 2, 1, NULL, 0, NULL, &n, NULL);
    site_ctx x = {.next = 0, .skip = -1};
    cf_inject_spec s = all_hooks(1), sh = site_hooks(&x);
    s.arraysite_name = sh.arraysite_name;
    s.site_fn = sh.site_fn;
    s.site_ctx = sh.site_ctx;
    cf_result r;
    int rc = cf_instrument(p, n, &s, &r);
    CHECK(rc == CF_OK && r.widened == 1 && r.site_count == (unsigned)K && deep_ok(r.data, r.len),
          "sites widen: %u sites, %u branch widened, re-parses", r.site_count, r.widened);
    if (rc == CF_OK && r.site_count == (unsigned)K) {
        tcls t;
        tparse(&t, r.data, r.len);
        tcode tc;
        tcode_of(&t, "f", &tc);
        /* after the entry hook (5 bytes): iload_0 ifne +8 goto_w */
        int ok = tc.code[6] == 154 && u2(tc.code + 7) == 8 && tc.code[9] == 200;
        for (int i = 0; i < K && ok; i++) {
            uint32_t end;
            const cf_site_info *e = &r.sites[i];
            ok = e->number == i && e->bci == 5 + 4 * (unsigned)i && tc.code[e->new_bci] == 188 &&
                site_blob_ok(&t, tc.code, e, 2, 4, 10, 0, &end) && tc.code[end] == 87;
        }
        CHECK(ok, "sites widen: ifeq inverted over goto_w; every site's new_bci and hook right");
        same_results("sites widen", p, n, r.data, r.len, "f", (int64_t[]){0, 1}, 2, K);
        hooks_t h = {0};
        run(&t, &tc, 1, &h);
        CHECK(h.sites == K && !h.bad, "sites widen: %ld site hooks run (want %d)", h.sites, K);
        tfree(&t);
    }
    cf_result_free(&r);
    free(p);
    free(c.p);
}

static void test_sites(void)
{
    sites_run("(iconst, bipush)", 0, 0, -1, 0, 0);
    sites_run("(sipush, one -1)", 0, 200, 9, 0, 0);
    sites_run("(ldc)", 0, 40000, -1, 1, 0);
    sites_run("(ldc_w)", 300, 40000, 3, 2, 0);
    sites_run("(with every other hook)", 0, 1, -1, 0, 1);
    test_sites_off();
    test_sites_made();
    test_sites_definer();
    test_sites_full_pool();
    test_sites_widen();
}

/* Inputs the fuzzer once found (tests/fuzz/regressions/classfile): no crash, invariants hold. */
static void test_regressions(void)
{
    const char *dir = "tests/fuzz/regressions/classfile";
    DIR *d = opendir(dir);
    if (!d) {
        SKIP("not found from this directory (run from the checkout)", "regressions: %s", dir);
        return;
    }
    struct dirent *e;
    int count = 0, good = 1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        count++;
        const char *broken = cf_fuzz_one(buf, n);
        if (broken) {
            good = 0;
            printf("#   %s: %s\n", e->d_name, broken);
        }
    }
    closedir(d);
    CHECK(good, "regressions: %d fuzzer finds replayed", count);
}

int main(void)
{
    test_cp_tags();
    test_versions();
    test_unknown_attrs();
    test_widen_noframes();
    test_widen_frames();
    test_switches();
    test_widen_all();
    test_jsr_wide();
    test_tables();
    test_constructors();
    test_object_init();
    test_too_big();
    test_leaf();
    test_entry_arg();
    test_api();
    test_garbage();
    test_sites();
    test_regressions();
    return UNIT_DONE();
}
