/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by the classfile sources. Not part of the public API.
 *
 * Layers, each calling only the ones below it:
 *   cf_instrument.c                     the cf_instrument driver
 *   cf_class.c                          parsing, writing, accessors
 *   cf_rewrite.c .. cf_decode.c         the code layer (see cf_code.h)
 *   cf_cpool.c                          constant-pool lookups and additions
 *   cf_mem.c                            the arena
 * Output is built in util/buf.h buffers, capped with buf_init_limited.
 * cf_asm.c, the assembler for tests and tools, stands apart on util/buf.h. */
#ifndef HPROF_CF_INTERNAL_H
#define HPROF_CF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "classfile/classfile.h"
#include "util/buf.h"

/* Format errors; build with -DCF_TRACE to see where a class was rejected. */
#ifdef CF_TRACE
#include <stdio.h>
#define CF_BAD (fprintf(stderr, "cf: format error at %s:%d\n", __FILE__, __LINE__), CF_ERR_FORMAT)
#else
#define CF_BAD CF_ERR_FORMAT
#endif

/* ---- Arena (cf_mem.c): every allocation of one class lives here and goes at once. ---- */
typedef struct cf_block cf_block;
typedef struct {
    cf_block *head;
    size_t total; /* bytes allocated so far */
    size_t limit; /* cap, derived from the input size */
    int failed;
} cf_arena;

void cf_arena_init(cf_arena *a, size_t input_len);
void *cf_arena_alloc(cf_arena *a, size_t n); /* zeroed, NULL when over the cap */
void *cf_arena_array(cf_arena *a, size_t count, size_t size);
void cf_arena_release(cf_arena *a);

/* ---- Big-endian reader with a sticky error flag. ------------------------------------- */
typedef struct {
    const uint8_t *p;
    size_t n, i;
    int bad;
} cf_rd;

static inline void rd_init(cf_rd *r, const uint8_t *p, size_t n)
{
    r->p = p;
    r->n = n;
    r->i = 0;
    r->bad = 0;
}
static inline int rd_has(cf_rd *r, size_t k)
{
    if (r->bad || r->n - r->i < k) {
        r->bad = 1;
        return 0;
    }
    return 1;
}
static inline uint32_t rd_u1(cf_rd *r) { return rd_has(r, 1) ? r->p[r->i++] : 0; }
static inline uint32_t rd_u2(cf_rd *r)
{
    if (!rd_has(r, 2)) return 0;
    r->i += 2;
    return be_load_u2(r->p + r->i - 2);
}
static inline uint32_t rd_u4(cf_rd *r)
{
    if (!rd_has(r, 4)) return 0;
    r->i += 4;
    return be_load_u4(r->p + r->i - 4);
}
static inline const uint8_t *rd_skip(cf_rd *r, size_t k)
{
    if (!rd_has(r, k)) return NULL;
    const uint8_t *q = r->p + r->i;
    r->i += k;
    return q;
}

/* ---- The parsed class. --------------------------------------------------------------- */

/* Constant-pool tags (JVMS 4.4). */
enum {
    CP_UTF8 = 1,
    CP_INTEGER = 3,
    CP_FLOAT = 4,
    CP_LONG = 5,
    CP_DOUBLE = 6,
    CP_CLASS = 7,
    CP_STRING = 8,
    CP_FIELDREF = 9,
    CP_METHODREF = 10,
    CP_IMETHODREF = 11,
    CP_NAMEANDTYPE = 12,
    CP_METHODHANDLE = 15,
    CP_METHODTYPE = 16,
    CP_DYNAMIC = 17,
    CP_INVOKEDYNAMIC = 18,
    CP_MODULE = 19,
    CP_PACKAGE = 20
};

#define ACC_STATIC       0x0008u
#define ACC_SYNCHRONIZED 0x0020u

typedef struct {
    const uint8_t *raw; /* tag byte then payload; NULL for the slot after a Long/Double */
    uint32_t len;       /* bytes at raw, tag included */
} cf_cpe;

typedef struct {
    uint16_t name;
    uint32_t len;
    const uint8_t *data;
} cf_attr;

typedef struct {
    uint16_t access, name, desc, nattr;
    cf_attr *attrs;
    int code;                  /* index of the Code attribute in attrs, or -1 */
    const char *sname, *sdesc; /* NUL-terminated copies */
} cf_method;

struct cf_class {
    cf_arena ar;
    uint16_t minor, major;
    uint32_t cp_count, cp_cap; /* cp_count as in the file: entries 1..cp_count-1 */
    cf_cpe *cp;
    uint16_t access, this_idx, super_idx;
    const uint8_t *middle; /* interfaces + fields, kept raw */
    size_t middle_len;
    uint16_t nmethods;
    cf_method *methods;
    const uint8_t *tail; /* class attributes (count included), kept raw */
    size_t tail_len;
    const char *name, *super_name;
    uint32_t *hash; /* lazily built index for cp lookups: cp index or 0 */
    uint32_t hash_mask;
};

/* ---- Constant pool (cf_cpool.c). ------------------------------------------------------ */
int cp_is(const cf_class *c, uint32_t i, unsigned tag);
int cp_utf8_eq(const cf_class *c, uint32_t i, const char *s);
/* The bytes of Utf8 entry i (not NUL-terminated, length in *n), or NULL. */
const uint8_t *cp_utf8_raw(const cf_class *c, uint32_t i, size_t *n);
const char *cp_utf8_dup(cf_class *c, uint32_t i); /* NUL-terminated arena copy or NULL */
uint32_t cp_find_or_add_utf8(cf_class *c, const char *s);
uint32_t cp_find_or_add_class(cf_class *c, const char *name, size_t name_len);
uint32_t cp_find_or_add_int(cf_class *c, int32_t v);
uint32_t cp_find_or_add_methodref(cf_class *c, const char *cls, const char *name, const char *desc);
/* Name of the NameAndType of a Fieldref/Methodref/InterfaceMethodref, or 0. */
uint32_t cp_ref_name(const cf_class *c, uint32_t ref);
/* The Utf8 index of the class name a Methodref names, or 0. */
uint32_t cp_ref_class_name(const cf_class *c, uint32_t ref);
/* Whether Methodref ref is name with descriptor desc. */
int cp_ref_is(const cf_class *c, uint32_t ref, const char *name, const char *desc);
/* Whether Fieldref ref is class cls's field name with descriptor desc. */
int cp_fieldref_is(const cf_class *c, uint32_t ref, const char *cls, const char *name, const char *desc);

/* ---- The code layer, as the class layer sees it. -------------------------------------- */

/* The Methodrefs (and one Integer) cf_instrument adds once per class, by slot. */
enum {
    HOOK_ENTRY,
    HOOK_RETURN,
    HOOK_OBJINIT,
    HOOK_NEWARRAY,
    HOOK_CNUM_INT, /* Integer holding cnum, when it does not fit sipush; else 0 */
    HOOK_CLONE,
    HOOK_VCLONE,
    HOOK_LEAF,     /* the entry hook of trivial methods; 0 when the spec has none */
    HOOK_GETCLASS, /* Object.getClass, for an objinit hook that takes the class; else 0 */
    HOOK_NEWSITE,  /* the site hooks (CF_INJ_SITES), each 0 when the spec has none */
    HOOK_ARRAYSITE,
    HOOK_MULTISITE,
    HOOK_ALLOCINST, /* after Unsafe.allocateInstance and kin (CF_INJ_ALLOCINST) */
    HOOK_MADEALL,   /* after Array.multiNewArray and kin (CF_INJ_ALLOCINST) */
    HOOK_DEFINER,   /* after ClassDefiner's reads of its bytes (CF_INJ_DEFINER) */
    CF_HOOKS
};

int cf_check_code(cf_class *c, unsigned mi); /* CF_OK or CF_ERR_* (cf_decode.c) */
/* Rewrites method mi (cf_rewrite.c). Returns CF_M_* (>= 0) or a negative CF_ERR_*. */
int cf_rewrite_method(cf_class *c, unsigned mi, unsigned mask, const cf_inject_spec *spec,
                      const uint32_t hooks[CF_HOOKS], cf_result *res);

#endif
