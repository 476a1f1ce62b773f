/* SPDX-License-Identifier: Apache-2.0 */
/* The Code attribute's tables with code offsets, other than the StackMapTable:
 * LineNumberTable, LocalVariable(Type)Table, CharacterRangeTable (javac -Xjcov) and
 * Runtime(In)VisibleTypeAnnotations. Checked when decoding, remapped when rewriting. */
#include "classfile/cf_code.h"

/* Type annotation target types (JVMS 4.7.20), grouped by the shape of their target_info. */
enum {
    TA_CLASS_TYPE_PARAM = 0x00,
    TA_METHOD_TYPE_PARAM = 0x01,
    TA_SUPERTYPE = 0x10,
    TA_CLASS_PARAM_BOUND = 0x11,
    TA_METHOD_PARAM_BOUND = 0x12,
    TA_FIELD = 0x13,
    TA_RETURN = 0x14,
    TA_RECEIVER = 0x15,
    TA_FORMAL_PARAM = 0x16,
    TA_THROWS = 0x17,
    TA_LOCAL_VAR = 0x40,
    TA_RESOURCE_VAR = 0x41, /* localvar_target: a table of ranges */
    TA_EXCEPTION_PARAM = 0x42,
    TA_INSTANCEOF = 0x43, /* 0x43..0x46 offset_target */
    TA_CAST = 0x47,       /* 0x47..0x4B type_argument_target */
    TA_LAST = 0x4B
};

static int ev_skip(cf_rd *r, int depth);

/* Skips an annotation (its nesting bounded). */
static int ann_skip(cf_rd *r, int depth)
{
    if (depth > 32) return -1;
    rd_u2(r);
    uint32_t np = rd_u2(r);
    for (uint32_t i = 0; i < np && !r->bad; i++) {
        rd_u2(r);
        if (ev_skip(r, depth + 1) < 0) return -1;
    }
    return r->bad ? -1 : 0;
}

/* Skips an element_value. */
static int ev_skip(cf_rd *r, int depth)
{
    if (depth > 32) return -1;
    uint32_t tag = rd_u1(r);
    switch (tag) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
    case 's':
    case 'c': rd_u2(r); break;
    case 'e':
        rd_u2(r);
        rd_u2(r);
        break;
    case '@': return ann_skip(r, depth + 1);
    case '[': {
        uint32_t n = rd_u2(r);
        for (uint32_t i = 0; i < n && !r->bad; i++)
            if (ev_skip(r, depth + 1) < 0) return -1;
        break;
    }
    default: return -1;
    }
    return r->bad ? -1 : 0;
}

/* Remaps the range (u2 start, u2 length) at e: from the new start of its first
 * instruction to the new start of the instruction at its old end. */
static void remap_range(const meth_t *M, uint8_t *e)
{
    uint32_t s = be_load_u2(e), l = be_load_u2(e + 2);
    uint32_t ns = map_start(M, s), ne = map_tgt(M, s + l);
    be_store_u2(e, ns);
    be_store_u2(e + 2, ne > ns ? ne - ns : 0);
}

/* Walks a type-annotations attribute; when out is given (a copy of data), patches the code
 * offsets in it. */
static int ta_walk(const meth_t *M, const uint8_t *data, uint32_t len, uint8_t *out)
{
    cf_rd r;
    rd_init(&r, data, len);
    uint32_t n = rd_u2(&r);
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        uint32_t tt = rd_u1(&r);
        switch (tt) {
        case TA_CLASS_TYPE_PARAM:
        case TA_METHOD_TYPE_PARAM:
        case TA_FORMAL_PARAM: rd_u1(&r); break;
        case TA_SUPERTYPE:
        case TA_THROWS:
        case TA_EXCEPTION_PARAM: rd_u2(&r); break;
        case TA_CLASS_PARAM_BOUND:
        case TA_METHOD_PARAM_BOUND:
            rd_u1(&r);
            rd_u1(&r);
            break;
        case TA_FIELD:
        case TA_RETURN:
        case TA_RECEIVER: break;
        case TA_LOCAL_VAR:
        case TA_RESOURCE_VAR: {
            uint32_t tl = rd_u2(&r);
            for (uint32_t j = 0; j < tl && !r.bad; j++) {
                size_t pos = r.i;
                rd_skip(&r, 6); /* start, length, index */
                if (out && !r.bad) remap_range(M, out + pos);
            }
            break;
        }
        default: {
            if (tt < TA_INSTANCEOF || tt > TA_LAST) return CF_BAD;
            size_t pos = r.i;
            uint32_t o = rd_u2(&r);
            if (tt >= TA_CAST) rd_u1(&r);
            if (out && !r.bad) be_store_u2(out + pos, map_insn(M, o));
            break;
        }
        }
        uint32_t pl = rd_u1(&r); /* type_path */
        rd_skip(&r, 2 * (size_t)pl);
        if (ann_skip(&r, 0) < 0) return CF_BAD;
    }
    return (r.bad || r.i != len) ? CF_ERR_FORMAT : CF_OK;
}

int cf_attr_kind(const meth_t *M, uint32_t i)
{
    if ((int)i == M->smt) return A_SMT;
    uint32_t nm = M->attrs[i].name;
    if (cp_utf8_eq(M->c, nm, "LineNumberTable")) return A_LNT;
    if (cp_utf8_eq(M->c, nm, "LocalVariableTable") || cp_utf8_eq(M->c, nm, "LocalVariableTypeTable")) return A_LVT;
    if (cp_utf8_eq(M->c, nm, "CharacterRangeTable")) return A_CRT;
    if (M->c->major >= 52 &&
        (cp_utf8_eq(M->c, nm, "RuntimeVisibleTypeAnnotations") ||
         cp_utf8_eq(M->c, nm, "RuntimeInvisibleTypeAnnotations")))
        return A_TA;
    return A_OTHER;
}

/* Bytes of one entry of a table of kind A_LNT, A_LVT or A_CRT. */
static uint32_t entry_size(int kind) { return kind == A_LNT ? 4 : kind == A_LVT ? 10 : 14; }

int cf_tables_check(const meth_t *M)
{
    for (uint32_t i = 0; i < M->nattr; i++) {
        const cf_attr *a = &M->attrs[i];
        int kind = cf_attr_kind(M, i);
        if (kind == A_LNT || kind == A_LVT || kind == A_CRT) {
            if (a->len < 2 || a->len != 2 + entry_size(kind) * be_load_u2(a->data)) return CF_BAD;
        } else if (kind == A_TA) {
            if (ta_walk(M, a->data, a->len, NULL) != CF_OK) return CF_BAD;
        }
    }
    return CF_OK;
}

int cf_tables_remap(const meth_t *M, uint32_t i, int kind, uint8_t *copy)
{
    if (kind == A_TA) return ta_walk(M, M->attrs[i].data, M->attrs[i].len, copy) == CF_OK ? CF_OK : CF_BAD;
    uint32_t n = be_load_u2(copy), size = entry_size(kind);
    for (uint32_t j = 0; j < n; j++) {
        uint8_t *e = copy + 2 + size * j;
        if (kind == A_LNT) {
            be_store_u2(e, map_start(M, be_load_u2(e)));
        } else if (kind == A_LVT) {
            remap_range(M, e);
        } else {
            /* start_pc, end_pc: the end is inclusive, the last byte of an instruction */
            uint32_t s = be_load_u2(e), en = be_load_u2(e + 2);
            uint32_t ns = map_tgt(M, s);
            uint32_t ne = en < M->code_len ? map_tgt(M, M->in[M->idx[en]].off + M->in[M->idx[en]].len) : M->body_end;
            be_store_u2(e, ns);
            be_store_u2(e + 2, ne > ns ? ne - 1 : ns);
        }
    }
    return CF_OK;
}
