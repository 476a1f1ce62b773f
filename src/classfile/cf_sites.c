/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation sites (heap=sites,callers=sampled): which instructions allocate, the number
 * the agent gives each (spec->site_fn), the hook each gets after it, and the list the
 * result reports. The site blob follows the post blob of cf_inject.c, if any:
 *   new:             push number; invokestatic newsite                    (I)V
 *   newarray:        dup; arraylength; push number; push atype; invokestatic arraysite (III)V
 *   anewarray:       dup; arraylength; push number; bipush 12; invokestatic arraysite
 *   multianewarray:  dup; push number; invokestatic multisite             (Ljava/lang/Object;I)V
 * The number is pushed by iconst/bipush/sipush, past those by ldc (or ldc_w) of an Integer.
 * The hooks after the natives that return what the VM made (dup; invokestatic allocinst
 * or madeall: cf_sites_made) are ordinary post blobs. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_code.h"

#define ELEM_REFERENCE 12 /* the element code of anewarray; newarray's atypes are 4..11 */

/* The array descriptor anewarray of class name n[0..len) makes: "[" + n for an array
 * class, else "[L" + n + ";"; an arena string or NULL. */
static const char *anewarray_type(cf_class *c, const uint8_t *n, size_t len)
{
    int arr = len > 0 && n[0] == '[';
    char *s = cf_arena_alloc(&c->ar, len + 4);
    if (!s) return NULL;
    size_t k = 0;
    s[k++] = '[';
    if (!arr) s[k++] = 'L';
    memcpy(s + k, n, len);
    k += len;
    if (!arr) s[k++] = ';';
    s[k] = 0;
    return s;
}

/* The site instruction I is (kind, type, dims; element code in *code), or 0 when it is no
 * allocation or its operands make no sense (the verifier will reject the class anyway). */
static int site_of(const meth_t *M, const insn_t *I, cf_site_info *s, uint8_t *code)
{
    static const char *const prim[] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
    const uint8_t *p = M->code + I->off;
    memset(s, 0, sizeof(*s));
    s->dims = 1;
    if (I->op == OP_NEWARRAY) {
        if (p[1] < 4 || p[1] > 11) return 0;
        s->kind = CF_SITE_ARRAY;
        s->type = prim[p[1] - 4];
        *code = p[1];
        return 1;
    }
    if (I->op != OP_NEW && I->op != OP_ANEWARRAY && I->op != OP_MULTIANEWARRAY) return 0;
    uint32_t cls = be_load_u2(p + 1);
    size_t n;
    const uint8_t *name = cp_is(M->c, cls, CP_CLASS) ? cp_utf8_raw(M->c, be_load_u2(M->c->cp[cls].raw + 1), &n) : NULL;
    if (!name || n == 0 || memchr(name, 0, n)) return 0;
    if (I->op == OP_NEW) {
        if (name[0] == '[') return 0;
        s->kind = CF_SITE_NEW;
        s->type = cp_utf8_dup(M->c, be_load_u2(M->c->cp[cls].raw + 1));
    } else if (I->op == OP_ANEWARRAY) {
        s->kind = CF_SITE_ARRAY;
        s->type = anewarray_type(M->c, name, n);
        *code = ELEM_REFERENCE;
    } else {
        if (name[0] != '[' || p[3] == 0) return 0;
        s->kind = CF_SITE_MULTI;
        s->dims = p[3];
        s->type = cp_utf8_dup(M->c, be_load_u2(M->c->cp[cls].raw + 1));
    }
    return s->type != NULL;
}

/* Bytes of the push of site number v (ldc: its Integer, when past sipush). */
static uint32_t num_len(int32_t v, uint32_t ldc)
{
    if (v >= -1 && v <= 5) return 1;
    if (v >= -128 && v <= 32767) return v <= 127 ? 2 : 3;
    return ldc <= 255 ? 2 : 3;
}

static void num_emit(struct buf *b, int32_t v, uint32_t ldc)
{
    if (v >= -1 && v <= 5)
        buf_u1(b, (uint32_t)(OP_ICONST_0 + v));
    else if (v >= -128 && v <= 127) {
        buf_u1(b, OP_BIPUSH);
        buf_u1(b, (uint32_t)(uint8_t)(int8_t)v);
    } else if (v <= 32767) {
        buf_u1(b, OP_SIPUSH);
        buf_u2(b, (uint32_t)v);
    } else if (ldc <= 255) {
        buf_u1(b, OP_LDC);
        buf_u1(b, ldc);
    } else {
        buf_u1(b, OP_LDC_W);
        buf_u2(b, ldc);
    }
}

/* Bytes of I's site blob, and the stack it takes above the allocation's result. */
static uint32_t site_len(const insn_t *I, uint32_t *extra)
{
    uint32_t n = num_len(I->snum, I->sldc);
    switch (I->skind) {
    case CF_SITE_NEW: *extra = 1; return n + 3;
    case CF_SITE_ARRAY: *extra = 3; return 2 + n + num_len(I->scode, 0) + 3;
    default: *extra = 2; return 1 + n + 3; /* multianewarray, a call */
    }
}

/* The hook slot of a site of kind skind (a call's: by what its native makes, scode). */
static unsigned site_hook(unsigned skind, unsigned scode)
{
    switch (skind) {
    case CF_SITE_NEW: return HOOK_NEWSITE;
    case CF_SITE_ARRAY: return HOOK_ARRAYSITE;
    case CF_SITE_MULTI: return HOOK_MULTISITE;
    default: return scode == MADE_ALL ? HOOK_MADEALL : HOOK_ALLOCINST;
    }
}

/* Asks the spec for site s's number and gives I its hook: 0, or CF_ERR_LIMIT /
 * CF_ERR_NOMEM when no Integer could hold the number. */
static int number_site(meth_t *M, insn_t *I, cf_site_info *s, uint8_t code, const cf_inject_spec *spec, inject_t *P)
{
    s->mnum = (unsigned)P->mnum;
    s->bci = I->off;
    long v = spec->site_fn(spec->site_ctx, s);
    if (v < 0 || v > CF_SITE_MAX || (long)s->dims - 1 > CF_SITE_MAX - v) return 0;
    I->skind = (uint8_t)s->kind;
    I->scode = code;
    I->sdims = s->dims;
    I->stype = s->type;
    I->snum = (int32_t)v;
    if (v > 32767 && !(I->sldc = cp_find_or_add_int(M->c, I->snum)))
        return M->c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
    uint32_t extra;
    I->post += site_len(I, &extra);
    if (extra > P->site_extra) P->site_extra = extra;
    P->nsite++;
    return 0;
}

int cf_sites_mark(meth_t *M, insn_t *I, const cf_inject_spec *spec, inject_t *P)
{
    cf_site_info s;
    uint8_t code = 0;
    if (!site_of(M, I, &s, &code) || !P->hooks[site_hook(s.kind, code)]) return M->c->ar.failed ? CF_ERR_NOMEM : 0;
    return number_site(M, I, &s, code, spec, P);
}

int cf_sites_mark_call(meth_t *M, insn_t *I, int made, const cf_inject_spec *spec, inject_t *P)
{
    cf_site_info s = {.kind = CF_SITE_CALL, .type = "", .dims = 1};
    if (!P->hooks[made == MADE_ALL ? HOOK_MADEALL : HOOK_ALLOCINST]) return 0;
    return number_site(M, I, &s, (uint8_t)made, spec, P);
}

/*
 * The JDK natives whose result the VM made for the caller, with no bytecode that
 * allocates: a hook after each call counts the object (MADE_ONE), or the object and what
 * it holds (MADE_ALL: every level of a multi-dimensional array; the fresh Field, Method,
 * Constructor or RecordComponent objects of a reflection array). JDK 17 and 25 call the
 * static ones by invokestatic, the others by invokevirtual, a private method of Class by
 * invokespecial or (nestmates) invokevirtual.
 */
static const cf_made_native made_natives[] = {
    {"jdk/internal/misc/Unsafe", "allocateInstance", "(Ljava/lang/Class;)Ljava/lang/Object;", MADE_ONE, 0},
    {"sun/misc/Unsafe", "allocateInstance", "(Ljava/lang/Class;)Ljava/lang/Object;", MADE_ONE, 0},
    {"java/lang/reflect/Array", "newArray", "(Ljava/lang/Class;I)Ljava/lang/Object;", MADE_ONE, 1},
    {"java/lang/reflect/Array", "multiNewArray", "(Ljava/lang/Class;[I)Ljava/lang/Object;", MADE_ALL, 1},
    {"jdk/internal/reflect/NativeConstructorAccessorImpl", "newInstance0",
     "(Ljava/lang/reflect/Constructor;[Ljava/lang/Object;)Ljava/lang/Object;", MADE_ONE, 1},
    {"jdk/internal/reflect/DirectConstructorHandleAccessor$NativeAccessor", "newInstance0",
     "(Ljava/lang/reflect/Constructor;[Ljava/lang/Object;)Ljava/lang/Object;", MADE_ONE, 1},
    {"java/lang/Class", "getDeclaredFields0", "(Z)[Ljava/lang/reflect/Field;", MADE_ALL, 0},
    {"java/lang/Class", "getDeclaredMethods0", "(Z)[Ljava/lang/reflect/Method;", MADE_ALL, 0},
    {"java/lang/Class", "getDeclaredConstructors0", "(Z)[Ljava/lang/reflect/Constructor;", MADE_ALL, 0},
    {"java/lang/Class", "getRecordComponents0", "()[Ljava/lang/reflect/RecordComponent;", MADE_ALL, 0},
};

const cf_made_native *cf_made_natives(size_t *n)
{
    *n = sizeof made_natives / sizeof *made_natives;
    return made_natives;
}

int cf_sites_made(const meth_t *M, const insn_t *I)
{
    if (I->op != OP_INVOKEVIRTUAL && I->op != OP_INVOKESTATIC && I->op != OP_INVOKESPECIAL) return MADE_NONE;
    uint32_t ref = be_load_u2(M->code + I->off + 1);
    for (size_t i = 0; i < sizeof made_natives / sizeof *made_natives; i++) {
        const cf_made_native *m = &made_natives[i];
        if ((I->op == OP_INVOKESTATIC) == (m->is_static != 0) && cp_ref_is(M->c, ref, m->name, m->desc) &&
            cp_utf8_eq(M->c, cp_ref_class_name(M->c, ref), m->owner))
            return m->what;
    }
    return MADE_NONE;
}

#define DEFINER "java/lang/invoke/MethodHandles$Lookup$ClassDefiner"

int cf_sites_definer(const meth_t *M, const insn_t *I)
{
    return I->op == OP_GETFIELD && !(M->m->access & ACC_STATIC) && strcmp(M->c->name, DEFINER) == 0 &&
        strcmp(M->m->sname, "defineClass") == 0 && strcmp(M->m->sdesc, "(ZLjava/lang/Object;)Ljava/lang/Class;") == 0 &&
        cp_fieldref_is(M->c, be_load_u2(M->code + I->off + 1), DEFINER, "bytes", "[B");
}

void cf_sites_emit(struct buf *b, const insn_t *I, const uint32_t *hooks)
{
    if (I->skind != CF_SITE_NEW) buf_u1(b, OP_DUP);
    if (I->skind == CF_SITE_ARRAY) buf_u1(b, OP_ARRAYLENGTH);
    num_emit(b, I->snum, I->sldc);
    if (I->skind == CF_SITE_ARRAY) num_emit(b, I->scode, 0);
    buf_u1(b, OP_INVOKESTATIC);
    buf_u2(b, hooks[site_hook(I->skind, I->scode)]);
}

int cf_sites_report(cf_result *res, const meth_t *M, const inject_t *P)
{
    if (!P->nsite) return 0;
    cf_site_info *s = realloc(res->sites, ((size_t)res->site_count + P->nsite) * sizeof(*s));
    if (!s) return CF_ERR_NOMEM;
    res->sites = s;
    for (uint32_t i = 0; i < M->ninsn; i++) {
        const insn_t *I = &M->in[i];
        if (!I->skind) continue;
        size_t n = strlen(I->stype) + 1;
        char *type = malloc(n);
        if (!type) return CF_ERR_NOMEM;
        memcpy(type, I->stype, n);
        cf_site_info *e = &res->sites[res->site_count++];
        e->mnum = (unsigned)P->mnum;
        e->bci = I->off;
        e->new_bci = I->at;
        e->kind = I->skind;
        e->type = type;
        e->dims = I->sdims;
        e->number = I->snum;
    }
    return 0;
}
