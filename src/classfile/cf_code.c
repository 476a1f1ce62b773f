/* Code attributes: decoding, checking, and rewriting with injected hooks.
 *
 * Model. The method's instructions are decoded into a table. Each instruction may get a
 * "pre" blob (the return hook, placed before a return opcode: branches to the return land
 * on the blob) and a "post" blob (the newarray hook after an array allocation, and
 * trampolines, see below). The entry hook is a prologue before the first instruction that
 * no branch targets; the exception exit is an epilogue after the last one. A layout pass
 * gives every instruction its new offset; 16-bit branches that no longer fit are widened
 * and the layout is redone until nothing changes:
 *   goto -> goto_w, jsr -> jsr_w;
 *   if<cond> L -> if<!cond> +8; goto_w L        (methods without a StackMapTable)
 *   if<cond> L -> if<cond> T, T: goto_w L       (methods with one: T is a trampoline in
 *            an "island" placed before a nearby instruction N that has a frame or follows
 *            an unconditional transfer, outside every exception range. The island is
 *            [goto_w N when N can be reached by falling through] T1: goto_w L1, T2: ...
 *            so the only new frames are the ones at T1, T2..., copies of L1, L2... frames.)
 * Then the code is emitted and every table that holds code offsets is remapped:
 * exception table (plus the catch-all entry), LineNumberTable, LocalVariable(Type)Table,
 * StackMapTable (decoded to full frames, remapped, new frames added, re-compressed) and
 * Runtime(In)VisibleTypeAnnotations.
 */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_internal.h"

enum { K_PLAIN, K_BR16, K_BR32, K_TSW, K_LSW };
typedef struct { uint8_t tag; uint16_t v; } vt_t;  /* v: cp index (7) or old offset (8) */
typedef struct frame_s { uint32_t idx, nl, ns, full; vt_t *l, *s; } frame_t;

#define NONE 0xFFFFFFFFu

typedef struct {
    uint32_t off, len;
    uint8_t op, kind, widen; /* widen: 0 no, 1 in place, 2 through a trampoline */
    uint32_t tgt;            /* branch target: instruction index */
    uint32_t sw, nsw;        /* switch targets: M->swt[sw .. sw+nsw), default first */
    /* layout */
    uint32_t pre, post, size, start, at;
    uint32_t hook;           /* the Methodref the post blob calls */
    uint32_t ntr, skip, island;  /* trampolines in the island just before this instruction */
    uint32_t tr;             /* trampoline used (widen == 2) */
    struct frame_s *nf;      /* inferred frame after an inverted branch (widen == 1) */
} insn_t;

typedef struct { uint32_t host, tgt, pos, order; } tramp_t;

typedef struct {
    cf_class *c;
    cf_method *m;
    int readonly;
    uint32_t max_stack, max_locals, code_len;
    const uint8_t *code;
    uint32_t nexc;
    const uint8_t *exc;
    uint32_t nattr;
    cf_attr *attrs;
    int smt;                 /* index of StackMapTable in attrs, or -1 */
    uint32_t ninsn;
    insn_t *in;
    uint32_t *idx;           /* for each code byte, the instruction containing it */
    uint32_t *swt;
    frame_t init;
    uint32_t nframes;
    frame_t *fr;
    /* layout */
    uint32_t prologue, epilogue, body_end, total;
    tramp_t *tr;
    uint32_t ntr, trcap;
    /* frame inference: the state after instruction memo_b, run from the frame at memo_from */
    struct ts_s *memo;
    uint32_t memo_from, memo_b;
} meth_t;

static int oplen(unsigned op) {
    if (op <= 15) return 1;
    if (op == 16 || op == 18) return 2;
    if (op == 17 || op == 19 || op == 20) return 3;
    if (op >= 21 && op <= 25) return 2;
    if (op >= 26 && op <= 53) return 1;
    if (op >= 54 && op <= 58) return 2;
    if (op >= 59 && op <= 131) return 1;
    if (op == 132) return 3;
    if (op >= 133 && op <= 152) return 1;
    if (op >= 153 && op <= 168) return 3;
    if (op == 169) return 2;
    if (op == 170 || op == 171 || op == 196) return 0; /* variable */
    if (op >= 172 && op <= 177) return 1;
    if (op >= 178 && op <= 184) return 3;
    if (op == 185 || op == 186) return 5;
    if (op == 187) return 3;
    if (op == 188) return 2;
    if (op == 189) return 3;
    if (op == 190 || op == 191) return 1;
    if (op == 192 || op == 193) return 3;
    if (op == 194 || op == 195) return 1;
    if (op == 197) return 4;
    if (op == 198 || op == 199) return 3;
    if (op == 200 || op == 201) return 5;
    return -1;
}

static int32_t s32(const uint8_t *p) { return (int32_t)get_u4(p); }
static uint32_t swpad(uint32_t pc) { return (4 - ((pc + 1) & 3)) & 3; }

/* Length of the instruction at pc and its number of switch targets; -1 if malformed. */
static int insn_len(const uint8_t *code, uint32_t len, uint32_t pc, uint32_t *out, uint32_t *nsw) {
    unsigned op = code[pc];
    int l = oplen(op);
    uint64_t n = 0;
    *nsw = 0;
    if (l < 0) return -1;
    if (l > 0) {
        n = (uint64_t)l;
    } else if (op == 196) {
        if (pc + 1 >= len) return -1;
        unsigned op2 = code[pc + 1];
        if (op2 == 132) n = 6;
        else if ((op2 >= 21 && op2 <= 25) || (op2 >= 54 && op2 <= 58) || op2 == 169) n = 4;
        else return -1;
    } else {
        uint32_t base = pc + 1 + swpad(pc);
        if ((uint64_t)base + (op == 170 ? 12 : 8) > len) return -1;
        if (op == 170) {
            int32_t lo = s32(code + base + 4), hi = s32(code + base + 8);
            if (hi < lo) return -1;
            uint64_t cnt = (uint64_t)((int64_t)hi - (int64_t)lo + 1);
            n = (uint64_t)(base - pc) + 12 + 4 * cnt;
            *nsw = (uint32_t)(cnt > len ? len : cnt) + 1;
        } else {
            int32_t np = s32(code + base + 4);
            if (np < 0) return -1;
            n = (uint64_t)(base - pc) + 8 + 8 * (uint64_t)np;
            *nsw = (uint32_t)((uint64_t)np > len ? len : (uint64_t)np) + 1;
        }
    }
    if ((uint64_t)pc + n > len) return -1;
    *out = (uint32_t)n;
    return 0;
}

static int is_start(const meth_t *M, int64_t off) {
    return off >= 0 && off < (int64_t)M->code_len && M->in[M->idx[off]].off == (uint32_t)off;
}

static int load_code(meth_t *M) {
    cf_attr *a = &M->m->attrs[M->m->code];
    cf_rd r;
    rd_init(&r, a->data, a->len);
    /* (JDK 1.0 betas wrote u1/u1/u2 here for versions below 45.3; HotSpot reads every
     * version with this layout, and so do we.) */
    M->max_stack = rd_u2(&r);
    M->max_locals = rd_u2(&r);
    M->code_len = rd_u4(&r);
    if (r.bad || M->code_len == 0 || M->code_len > 65535) return CF_BAD;
    M->code = rd_skip(&r, M->code_len);
    M->nexc = rd_u2(&r);
    M->exc = rd_skip(&r, (size_t)M->nexc * 8);
    M->nattr = rd_u2(&r);
    if (r.bad || M->nattr > (r.n - r.i) / 6) return CF_BAD;
    M->attrs = cf_arena_array(&M->c->ar, M->nattr ? M->nattr : 1, sizeof(cf_attr));
    if (!M->attrs) return CF_ERR_NOMEM;
    M->smt = -1;
    for (uint32_t i = 0; i < M->nattr; i++) {
        M->attrs[i].name = (uint16_t)rd_u2(&r);
        M->attrs[i].len = rd_u4(&r);
        M->attrs[i].data = rd_skip(&r, M->attrs[i].len);
        if (r.bad) return CF_BAD;
        if (M->c->major >= 50 && cp_utf8_eq(M->c, M->attrs[i].name, "StackMapTable")) {
            if (M->smt >= 0) return CF_BAD;
            M->smt = (int)i;
        }
    }
    if (r.i != r.n) return CF_BAD;
    return CF_OK;
}

static int decode(meth_t *M) {
    uint32_t pc = 0, n = 0, nsw = 0, l, k;
    while (pc < M->code_len) {
        if (insn_len(M->code, M->code_len, pc, &l, &k) < 0) return CF_BAD;
        n++;
        nsw += k;
        pc += l;
    }
    M->ninsn = n;
    M->in = cf_arena_array(&M->c->ar, (size_t)n + 1, sizeof(insn_t));
    M->idx = cf_arena_array(&M->c->ar, (size_t)M->code_len + 1, sizeof(uint32_t));
    M->swt = cf_arena_array(&M->c->ar, nsw ? nsw : 1, sizeof(uint32_t));
    if (!M->in || !M->idx || !M->swt) return CF_ERR_NOMEM;
    int64_t *raw = cf_arena_array(&M->c->ar, nsw ? nsw : 1, sizeof(int64_t));
    int64_t *rawbr = cf_arena_array(&M->c->ar, n, sizeof(int64_t));
    if (!raw || !rawbr) return CF_ERR_NOMEM;
    pc = 0;
    uint32_t si = 0;
    for (uint32_t i = 0; i < n; i++) {
        insn_t *I = &M->in[i];
        insn_len(M->code, M->code_len, pc, &l, &k);
        I->off = pc;
        I->len = l;
        I->op = M->code[pc];
        for (uint32_t j = 0; j < l; j++) M->idx[pc + j] = i;
        const uint8_t *p = M->code + pc;
        if ((I->op >= 153 && I->op <= 168) || I->op == 198 || I->op == 199) {
            I->kind = K_BR16;
            rawbr[i] = (int64_t)pc + (int16_t)get_u2(p + 1);
        } else if (I->op == 200 || I->op == 201) {
            I->kind = K_BR32;
            rawbr[i] = (int64_t)pc + s32(p + 1);
        } else if (I->op == 170 || I->op == 171) {
            I->kind = I->op == 170 ? K_TSW : K_LSW;
            I->sw = si;
            I->nsw = k;
            uint32_t base = pc + 1 + swpad(pc);
            raw[si++] = (int64_t)pc + s32(M->code + base);
            for (uint32_t j = 1; j < k; j++) {
                uint32_t at = I->op == 170 ? base + 12 + 4 * (j - 1) : base + 8 + 8 * (j - 1) + 4;
                raw[si++] = (int64_t)pc + s32(M->code + at);
            }
        }
        pc += l;
    }
    M->idx[M->code_len] = n;
    for (uint32_t i = 0; i < n; i++) {
        insn_t *I = &M->in[i];
        if (I->kind == K_BR16 || I->kind == K_BR32) {
            if (!is_start(M, rawbr[i])) return CF_BAD;
            I->tgt = M->idx[rawbr[i]];
        } else if (I->kind == K_TSW || I->kind == K_LSW) {
            for (uint32_t j = 0; j < I->nsw; j++) {
                int64_t t = raw[I->sw + j];
                if (!is_start(M, t)) return CF_BAD;
                M->swt[I->sw + j] = M->idx[t];
            }
        }
    }
    return CF_OK;
}

static int check_exc(meth_t *M) {
    for (uint32_t i = 0; i < M->nexc; i++) {
        const uint8_t *e = M->exc + 8 * i;
        uint32_t s = get_u2(e), en = get_u2(e + 2), h = get_u2(e + 4), t = get_u2(e + 6);
        if (s >= en || !is_start(M, s) || !is_start(M, h)) return CF_BAD;
        if (en != M->code_len && !is_start(M, en)) return CF_BAD;
        if (t && !cp_is(M->c, t, 7)) return CF_BAD;
    }
    return CF_OK;
}

/* ---- StackMapTable -------------------------------------------------------------------- */

static int init_frame(meth_t *M) {
    const char *d = M->m->sdesc;
    size_t dl = strlen(d);
    M->init.l = cf_arena_array(&M->c->ar, dl + 1, sizeof(vt_t));
    if (!M->init.l) return CF_ERR_NOMEM;
    uint32_t n = 0;
    if (!(M->m->access & 0x0008)) {
        if (strcmp(M->m->sname, "<init>") == 0 && strcmp(M->c->name, "java/lang/Object") != 0)
            M->init.l[n++].tag = 6;
        else {
            M->init.l[n].tag = 7;
            M->init.l[n++].v = M->c->this_idx;
        }
    }
    if (d[0] != '(') return CF_BAD;
    size_t i = 1;
    while (i < dl && d[i] != ')') {
        size_t s = i;
        while (i < dl && d[i] == '[') i++;
        if (i >= dl) return CF_BAD;
        char ch = d[i];
        vt_t v = {0, 0};
        if (ch == 'L') {
            const char *semi = memchr(d + i, ';', dl - i);
            if (!semi) return CF_BAD;
            i = (size_t)(semi - d) + 1;
        } else if (strchr("BCDFIJSZ", ch) && ch) {
            i++;
        } else {
            return CF_BAD;
        }
        if (i - s > 1 && d[s] == '[') {
            v.tag = 7;
            if (!M->readonly && !(v.v = (uint16_t)cp_find_or_add_class(M->c, d + s, i - s))) return CF_ERR_LIMIT;
        } else if (ch == 'L') {
            v.tag = 7;
            if (!M->readonly && !(v.v = (uint16_t)cp_find_or_add_class(M->c, d + s + 1, i - s - 2))) return CF_ERR_LIMIT;
        } else {
            v.tag = ch == 'F' ? 2 : ch == 'D' ? 3 : ch == 'J' ? 4 : 1;
        }
        M->init.l[n++] = v;
    }
    if (i >= dl) return CF_BAD;
    M->init.nl = n;
    return CF_OK;
}

static int read_vts(meth_t *M, cf_rd *r, vt_t *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag = rd_u1(r);
        v[i].tag = (uint8_t)tag;
        v[i].v = 0;
        if (tag > 8) return CF_BAD;
        if (tag == 7) {
            v[i].v = (uint16_t)rd_u2(r);
            if (!cp_is(M->c, v[i].v, 7)) return CF_BAD;
        } else if (tag == 8) {
            v[i].v = (uint16_t)rd_u2(r);
            if (!is_start(M, v[i].v)) return CF_BAD;
        }
    }
    return r->bad ? CF_ERR_FORMAT : CF_OK;
}

static int decode_frames(meth_t *M) {
    if (M->smt < 0) {
        /* still check the descriptor: a StackMapTable may be added to this method */
        int ro = M->readonly;
        M->readonly = 1;
        int rc = init_frame(M);
        M->readonly = ro;
        return rc;
    }
    int rc = init_frame(M);
    if (rc != CF_OK) return rc;
    cf_attr *a = &M->attrs[M->smt];
    cf_rd r;
    rd_init(&r, a->data, a->len);
    uint32_t n = rd_u2(&r);
    if (r.bad || n > a->len) return CF_BAD;
    M->fr = cf_arena_array(&M->c->ar, n ? n : 1, sizeof(frame_t));
    if (!M->fr) return CF_ERR_NOMEM;
    M->nframes = n;
    const frame_t *prev = &M->init;
    int64_t off = -1;
    for (uint32_t k = 0; k < n; k++) {
        frame_t *f = &M->fr[k];
        uint32_t ft = rd_u1(&r), delta, cnt;
        f->l = prev->l;
        f->nl = prev->nl;
        f->ns = 0;
        if (ft < 64) {
            delta = ft;
        } else if (ft < 128 || ft == 247) {
            delta = ft < 128 ? ft - 64 : rd_u2(&r);
            f->ns = 1;
        } else if (ft < 247) {
            return CF_BAD;
        } else if (ft <= 250) {
            delta = rd_u2(&r);
            cnt = 251 - ft;
            if (prev->nl < cnt) return CF_BAD;
            f->nl = prev->nl - cnt;
        } else if (ft == 251) {
            delta = rd_u2(&r);
        } else if (ft <= 254) {
            delta = rd_u2(&r);
            cnt = ft - 251;
            f->nl = prev->nl + cnt;
            f->l = cf_arena_array(&M->c->ar, f->nl, sizeof(vt_t));
            if (!f->l) return CF_ERR_NOMEM;
            if (prev->nl) memcpy(f->l, prev->l, prev->nl * sizeof(vt_t));
            if ((rc = read_vts(M, &r, f->l + prev->nl, cnt)) != CF_OK) return rc;
        } else {
            delta = rd_u2(&r);
            f->nl = rd_u2(&r);
            if (r.bad || f->nl > r.n - r.i) return CF_BAD;
            f->l = cf_arena_array(&M->c->ar, f->nl ? f->nl : 1, sizeof(vt_t));
            if (!f->l) return CF_ERR_NOMEM;
            if ((rc = read_vts(M, &r, f->l, f->nl)) != CF_OK) return rc;
            f->ns = rd_u2(&r);
            if (r.bad || f->ns > r.n - r.i) return CF_BAD;
        }
        if (f->ns) {
            f->s = cf_arena_array(&M->c->ar, f->ns, sizeof(vt_t));
            if (!f->s) return CF_ERR_NOMEM;
            if ((rc = read_vts(M, &r, f->s, f->ns)) != CF_OK) return rc;
        }
        if (r.bad) return CF_BAD;
        off = off + delta + 1;
        if (!is_start(M, off)) return CF_BAD;
        f->idx = M->idx[off];
        prev = f;
    }
    if (r.i != r.n) return CF_BAD;
    return CF_OK;
}

/* ---- Offset mapping (valid after layout) ---------------------------------------------- */

static uint32_t map_tgt(const meth_t *M, uint32_t old) {
    return old >= M->code_len ? M->body_end : M->in[M->idx[old]].start;
}
static uint32_t map_start(const meth_t *M, uint32_t old) { return old == 0 ? 0 : map_tgt(M, old); }
static uint32_t map_insn(const meth_t *M, uint32_t old) {
    return old >= M->code_len ? M->body_end : M->in[M->idx[old]].at;
}

/* ---- Tables with offsets: LNT, LVT/LVTT, type annotations ---------------------------- */

static int ev_skip(cf_rd *r, int depth);
static int ann_skip(cf_rd *r, int depth) {
    if (depth > 32) return -1;
    rd_u2(r);
    uint32_t np = rd_u2(r);
    for (uint32_t i = 0; i < np && !r->bad; i++) {
        rd_u2(r);
        if (ev_skip(r, depth + 1) < 0) return -1;
    }
    return r->bad ? -1 : 0;
}
static int ev_skip(cf_rd *r, int depth) {
    if (depth > 32) return -1;
    uint32_t tag = rd_u1(r);
    switch (tag) {
    case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
    case 's': case 'c': rd_u2(r); break;
    case 'e': rd_u2(r); rd_u2(r); break;
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

/* Walks a type-annotations attribute; when out is given (a copy of data), patches the code
 * offsets in it. */
static int ta_walk(const meth_t *M, const uint8_t *data, uint32_t len, uint8_t *out) {
    cf_rd r;
    rd_init(&r, data, len);
    uint32_t n = rd_u2(&r);
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        uint32_t tt = rd_u1(&r);
        switch (tt) {
        case 0x00: case 0x01: case 0x16: rd_u1(&r); break;
        case 0x10: case 0x17: case 0x42: rd_u2(&r); break;
        case 0x11: case 0x12: rd_u1(&r); rd_u1(&r); break;
        case 0x13: case 0x14: case 0x15: break;
        case 0x40: case 0x41: {
            uint32_t tl = rd_u2(&r);
            for (uint32_t j = 0; j < tl && !r.bad; j++) {
                size_t pos = r.i;
                uint32_t s = rd_u2(&r), l = rd_u2(&r);
                rd_u2(&r);
                if (out && !r.bad) {
                    uint32_t ns = map_start(M, s), ne = map_tgt(M, s + l);
                    put_u2(out + pos, ns);
                    put_u2(out + pos + 2, ne > ns ? ne - ns : 0);
                }
            }
            break;
        }
        case 0x43: case 0x44: case 0x45: case 0x46:
        case 0x47: case 0x48: case 0x49: case 0x4A: case 0x4B: {
            size_t pos = r.i;
            uint32_t o = rd_u2(&r);
            if (tt >= 0x47) rd_u1(&r);
            if (out && !r.bad) put_u2(out + pos, map_insn(M, o));
            break;
        }
        default: return CF_BAD;
        }
        uint32_t pl = rd_u1(&r);
        rd_skip(&r, 2 * (size_t)pl);
        if (ann_skip(&r, 0) < 0) return CF_BAD;
    }
    return (r.bad || r.i != len) ? CF_ERR_FORMAT : CF_OK;
}

enum { A_OTHER, A_LNT, A_LVT, A_TA, A_SMT, A_CRT };
static int attr_kind(const meth_t *M, uint32_t i) {
    if ((int)i == M->smt) return A_SMT;
    uint32_t nm = M->attrs[i].name;
    if (cp_utf8_eq(M->c, nm, "LineNumberTable")) return A_LNT;
    if (cp_utf8_eq(M->c, nm, "LocalVariableTable") || cp_utf8_eq(M->c, nm, "LocalVariableTypeTable"))
        return A_LVT;
    if (cp_utf8_eq(M->c, nm, "CharacterRangeTable")) return A_CRT; /* javac -Xjcov */
    if (M->c->major >= 52 && (cp_utf8_eq(M->c, nm, "RuntimeVisibleTypeAnnotations") ||
                              cp_utf8_eq(M->c, nm, "RuntimeInvisibleTypeAnnotations")))
        return A_TA;
    return A_OTHER;
}

static int check_attrs(meth_t *M) {
    for (uint32_t i = 0; i < M->nattr; i++) {
        const cf_attr *a = &M->attrs[i];
        switch (attr_kind(M, i)) {
        case A_LNT:
            if (a->len < 2 || a->len != 2 + 4 * get_u2(a->data)) return CF_BAD;
            break;
        case A_LVT:
            if (a->len < 2 || a->len != 2 + 10 * get_u2(a->data)) return CF_BAD;
            break;
        case A_CRT:
            if (a->len < 2 || a->len != 2 + 14 * get_u2(a->data)) return CF_BAD;
            break;
        case A_TA:
            if (ta_walk(M, a->data, a->len, NULL) != CF_OK) return CF_BAD;
            break;
        default: break;
        }
    }
    return CF_OK;
}

static int analyse(meth_t *M) {
    int rc;
    if ((rc = load_code(M)) != CF_OK) return rc;
    if ((rc = decode(M)) != CF_OK) return rc;
    if ((rc = check_exc(M)) != CF_OK) return rc;
    if ((rc = decode_frames(M)) != CF_OK) return rc;
    return check_attrs(M);
}

int cf_check_code(cf_class *c, unsigned mi) {
    meth_t M;
    memset(&M, 0, sizeof(M));
    M.c = c;
    M.m = &c->methods[mi];
    M.readonly = 1;
    int rc = analyse(&M);
    if (rc == CF_ERR_FORMAT && c->ar.failed) rc = CF_ERR_NOMEM;
    return rc;
}

/* ---- Planning ------------------------------------------------------------------------- */

static uint32_t push_len(int32_t v) {
    if (v >= -1 && v <= 5) return 1;
    if (v >= -128 && v <= 127) return 2;
    return 3; /* sipush or ldc_w */
}

static void push_emit(cf_buf *b, int32_t v, uint32_t ldc) {
    if (v >= -1 && v <= 5) buf_u1(b, (uint32_t)(3 + v));
    else if (v >= -128 && v <= 127) { buf_u1(b, 16); buf_u1(b, (uint32_t)(uint8_t)(int8_t)v); }
    else if (v >= -32768 && v <= 32767) { buf_u1(b, 17); buf_u2(b, (uint32_t)(uint16_t)(int16_t)v); }
    else { buf_u1(b, 19); buf_u2(b, ldc); }
}

/* In a constructor, the instruction after the one super()/this() call, or NONE when the
 * constructor is not simple enough to put a catch-all after it safely. */
static uint32_t after_super_call(const meth_t *M) {
    uint32_t depth = 0, count = 0, found = NONE;
    for (uint32_t i = 0; i < M->ninsn; i++) {
        const insn_t *I = &M->in[i];
        if (I->op == 187) depth++;
        else if (I->op == 183) {
            uint32_t nm = cp_ref_name(M->c, get_u2(M->code + I->off + 1));
            if (cp_utf8_eq(M->c, nm, "<init>")) {
                if (depth) depth--;
                else { count++; found = i; }
            }
        }
    }
    if (count != 1 || found + 1 >= M->ninsn) return NONE;
    for (uint32_t i = 0; i <= found; i++) {
        const insn_t *I = &M->in[i];
        if ((I->kind == K_BR16 || I->kind == K_BR32) && I->tgt > found) return NONE;
        for (uint32_t j = 0; j < I->nsw; j++)
            if (M->swt[I->sw + j] > found) return NONE;
    }
    for (uint32_t i = 0; i < M->nexc; i++) {
        const uint8_t *e = M->exc + 8 * i;
        if (M->idx[get_u2(e)] <= found && M->idx[get_u2(e + 4)] > found) return NONE;
    }
    for (uint32_t k = 0; k < M->nframes; k++) {
        if (M->fr[k].idx <= found) continue;
        for (uint32_t j = 0; j < M->fr[k].nl; j++)
            if (M->fr[k].l[j].tag == 6) return NONE;
    }
    return found + 1;
}

static uint32_t isize(const insn_t *I, uint32_t at) {
    switch (I->kind) {
    case K_TSW: case K_LSW: return 1 + swpad(at) + (I->len - 1 - swpad(I->off));
    case K_BR16:
        if (I->widen == 1) return (I->op == 167 || I->op == 168) ? 5 : 8;
        return 3;
    default: return I->len;
    }
}

static void layout(meth_t *M) {
    uint32_t pos = M->prologue;
    for (uint32_t i = 0; i <= M->ninsn; i++) {
        insn_t *I = &M->in[i];   /* in[ninsn] is a sentinel that only holds an island */
        I->island = pos;
        if (I->ntr) pos += 5 * (I->ntr + I->skip);
        if (i == M->ninsn) break;
        I->start = pos;
        pos += I->pre;
        I->at = pos;
        I->size = isize(I, pos);
        pos += I->size + I->post;
    }
    M->body_end = pos;
    M->total = pos + M->epilogue;
}

static int is_uncond(const insn_t *I) {
    unsigned op = I->op;
    return op == 167 || op == 200 || op == 169 || op == 170 || op == 171 ||
           (op >= 172 && op <= 177) || op == 191;
}

static const frame_t *frame_at(const meth_t *M, uint32_t idx) {
    uint32_t lo = 0, hi = M->nframes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (M->fr[mid].idx < idx) lo = mid + 1;
        else hi = mid;
    }
    return (lo < M->nframes && M->fr[lo].idx == idx) ? &M->fr[lo] : NULL;
}

/* Picks a host for a trampoline to target tgt, for the branch at insn bi. */
static uint32_t pick_host(const meth_t *M, const uint32_t *hosts, uint32_t nh, uint32_t bi,
                          uint32_t tgt, uint32_t split) {
    uint32_t lo = 0, hi = nh;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (hosts[mid] < bi) lo = mid + 1;
        else hi = mid;
    }
    uint32_t best = NONE;
    int64_t bestd = 0;
    const int64_t at = M->in[bi].at;
    for (int side = 0; side < 2; side++) {
        for (uint32_t k = 0; k < 64; k++) {
            int64_t j = side ? (int64_t)lo + k : (int64_t)lo - 1 - k;
            if (j < 0 || j >= (int64_t)nh) break;
            uint32_t h = hosts[j];
            if (split != NONE && h > split && tgt < split) continue;
            int64_t d = (int64_t)M->in[h].island - at;
            if (d < 0) d = -d;
            if (best == NONE || d < bestd) { best = h; bestd = d; }
            break;
        }
    }
    if (best != NONE && bestd > 30000) best = NONE;
    return best;
}

static int cmp_tramp(const void *a, const void *b) {
    const tramp_t *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* ---- Frame inference ------------------------------------------------------------------
 * The type state right after a conditional branch, for widening it as
 * "if<!cond> N; goto_w L; N:" in a method with a StackMapTable (N then needs a frame).
 * Between the last frame at or before the branch and the branch the code is straight-line
 * (anything after an unconditional transfer has a frame), so running the verifier's
 * transfer function from that frame gives exactly the state the verifier sees. Returns
 * NULL for anything unexpected; the caller then leaves the method alone. */

typedef struct ts_s {
    meth_t *M;
    vt_t *loc;      /* max_locals slots; a Long/Double fills two (the second is Top) */
    vt_t *stk;      /* entries; a Long/Double is one entry */
    uint32_t ns, cap;
    int bad;
} ts_t;

static int cat2(const vt_t *v) { return v->tag == 3 || v->tag == 4; }
static vt_t vt_make(uint8_t tag, uint16_t v) { vt_t x; x.tag = tag; x.v = v; return x; }

static void ts_push(ts_t *t, vt_t v) {
    if (t->ns >= t->cap) { t->bad = 1; return; }
    t->stk[t->ns++] = v;
}
static vt_t ts_pop(ts_t *t) {
    if (t->ns == 0) { t->bad = 1; return vt_make(0, 0); }
    return t->stk[--t->ns];
}
static void ts_popn(ts_t *t, uint32_t n) { while (n-- && !t->bad) ts_pop(t); }

static vt_t ts_load(ts_t *t, uint32_t n) {
    if (n >= t->M->max_locals) { t->bad = 1; return vt_make(0, 0); }
    return t->loc[n];
}
static void ts_store(ts_t *t, uint32_t n, vt_t v) {
    uint32_t c = cat2(&v) ? 2 : 1;
    if ((uint64_t)n + c > t->M->max_locals) { t->bad = 1; return; }
    if (n > 0 && cat2(&t->loc[n - 1])) t->loc[n - 1] = vt_make(0, 0);
    t->loc[n] = v;
    if (c == 2) t->loc[n + 1] = vt_make(0, 0);
}

static vt_t class_vt(ts_t *t, const char *name, size_t len) {
    uint32_t i = cp_find_or_add_class(t->M->c, name, len);
    if (!i) { t->bad = 1; return vt_make(0, 0); }
    return vt_make(7, (uint16_t)i);
}

/* Type of the field descriptor at d[0..n); sets *len to its length. Void gives tag 0xFF. */
static vt_t desc_vt(ts_t *t, const char *d, size_t n, size_t *len) {
    size_t i = 0;
    while (i < n && d[i] == '[') i++;
    if (i >= n) { t->bad = 1; *len = n; return vt_make(0, 0); }
    size_t end = i + 1;
    if (d[i] == 'L') {
        const char *semi = memchr(d + i, ';', n - i);
        if (!semi) { t->bad = 1; *len = n; return vt_make(0, 0); }
        end = (size_t)(semi - d) + 1;
    }
    *len = end;
    if (i > 0) return class_vt(t, d, end);
    switch (d[0]) {
    case 'B': case 'C': case 'I': case 'S': case 'Z': return vt_make(1, 0);
    case 'F': return vt_make(2, 0);
    case 'D': return vt_make(3, 0);
    case 'J': return vt_make(4, 0);
    case 'V': return vt_make(0xFF, 0);
    case 'L': return class_vt(t, d + 1, end - 2);
    default: t->bad = 1; return vt_make(0, 0);
    }
}

static const uint8_t *cp_utf8_raw(const cf_class *c, uint32_t i, size_t *n) {
    if (!cp_is(c, i, 1)) return NULL;
    *n = c->cp[i].len - 3;
    return c->cp[i].raw + 3;
}

/* Descriptor utf8 of a Fieldref/Methodref/InterfaceMethodref/InvokeDynamic/Dynamic. */
static const char *ref_desc(ts_t *t, uint32_t ref, size_t *n) {
    const cf_class *c = t->M->c;
    if (!(cp_is(c, ref, 9) || cp_is(c, ref, 10) || cp_is(c, ref, 11) || cp_is(c, ref, 17) || cp_is(c, ref, 18))) {
        t->bad = 1;
        return NULL;
    }
    uint32_t nat = get_u2(c->cp[ref].raw + 3);
    const char *d = cp_is(c, nat, 12) ? (const char *)cp_utf8_raw(c, get_u2(c->cp[nat].raw + 3), n) : NULL;
    if (!d || *n == 0) t->bad = 1;
    return d;
}

static void do_invoke(ts_t *t, uint32_t ref, int has_recv, int is_special) {
    size_t n;
    const char *d = ref_desc(t, ref, &n);
    if (!d || d[0] != '(') { t->bad = 1; return; }
    size_t i = 1;
    uint32_t nargs = 0;
    while (i < n && d[i] != ')' && !t->bad) {
        size_t l;
        size_t j = i;
        while (j < n && d[j] == '[') j++;
        if (j >= n) { t->bad = 1; return; }
        if (d[j] == 'L') {
            const char *semi = memchr(d + j, ';', n - j);
            if (!semi) { t->bad = 1; return; }
            l = (size_t)(semi - d) + 1 - i;
        } else {
            l = j + 1 - i;
        }
        i += l;
        nargs++;
    }
    if (i >= n) { t->bad = 1; return; }
    ts_popn(t, nargs);
    if (has_recv) {
        vt_t r = ts_pop(t);
        uint32_t nm = cp_ref_name(t->M->c, ref);
        if (is_special && cp_utf8_eq(t->M->c, nm, "<init>") && (r.tag == 6 || r.tag == 8)) {
            vt_t init;
            if (r.tag == 6) {
                init = vt_make(7, t->M->c->this_idx);
            } else {
                if (r.v + 2u >= t->M->code_len || t->M->code[r.v] != 187 ||
                    !cp_is(t->M->c, get_u2(t->M->code + r.v + 1), 7)) { t->bad = 1; return; }
                init = vt_make(7, (uint16_t)get_u2(t->M->code + r.v + 1));
            }
            for (uint32_t k = 0; k < t->M->max_locals; k++)
                if (t->loc[k].tag == r.tag && t->loc[k].v == r.v) t->loc[k] = init;
            for (uint32_t k = 0; k < t->ns; k++)
                if (t->stk[k].tag == r.tag && t->stk[k].v == r.v) t->stk[k] = init;
        }
    }
    size_t l;
    vt_t ret = desc_vt(t, d + i + 1, n - i - 1, &l);
    if (!t->bad && ret.tag != 0xFF) ts_push(t, ret);
}

static void do_ldc(ts_t *t, uint32_t idx) {
    const cf_class *c = t->M->c;
    if (idx == 0 || idx >= c->cp_count || !c->cp[idx].raw) { t->bad = 1; return; }
    switch (c->cp[idx].raw[0]) {
    case 3: ts_push(t, vt_make(1, 0)); break;
    case 4: ts_push(t, vt_make(2, 0)); break;
    case 5: ts_push(t, vt_make(4, 0)); break;
    case 6: ts_push(t, vt_make(3, 0)); break;
    case 7: ts_push(t, class_vt(t, "java/lang/Class", 15)); break;
    case 8: ts_push(t, class_vt(t, "java/lang/String", 16)); break;
    case 15: ts_push(t, class_vt(t, "java/lang/invoke/MethodHandle", 29)); break;
    case 16: ts_push(t, class_vt(t, "java/lang/invoke/MethodType", 27)); break;
    case 17: {
        size_t n, l;
        const char *d = ref_desc(t, idx, &n);
        if (d) ts_push(t, desc_vt(t, d, n, &l));
        break;
    }
    default: t->bad = 1;
    }
}

static void do_stackop(ts_t *t, unsigned op) {
    vt_t a, b, c, d;
    switch (op) {
    case 87: ts_pop(t); break;
    case 88: a = ts_pop(t); if (!cat2(&a)) ts_pop(t); break;
    case 89: a = ts_pop(t); ts_push(t, a); ts_push(t, a); break;
    case 90: a = ts_pop(t); b = ts_pop(t); ts_push(t, a); ts_push(t, b); ts_push(t, a); break;
    case 91:
        a = ts_pop(t); b = ts_pop(t);
        if (cat2(&b)) { ts_push(t, a); ts_push(t, b); ts_push(t, a); break; }
        c = ts_pop(t); ts_push(t, a); ts_push(t, c); ts_push(t, b); ts_push(t, a);
        break;
    case 92:
        a = ts_pop(t);
        if (cat2(&a)) { ts_push(t, a); ts_push(t, a); break; }
        b = ts_pop(t); ts_push(t, b); ts_push(t, a); ts_push(t, b); ts_push(t, a);
        break;
    case 93:
        a = ts_pop(t); b = ts_pop(t);
        if (cat2(&a)) { ts_push(t, a); ts_push(t, b); ts_push(t, a); break; }
        c = ts_pop(t); ts_push(t, b); ts_push(t, a); ts_push(t, c); ts_push(t, b); ts_push(t, a);
        break;
    case 94:
        a = ts_pop(t); b = ts_pop(t);
        if (cat2(&a)) {
            if (cat2(&b)) { ts_push(t, a); ts_push(t, b); ts_push(t, a); break; }
            c = ts_pop(t); ts_push(t, a); ts_push(t, c); ts_push(t, b); ts_push(t, a);
            break;
        }
        c = ts_pop(t);
        if (cat2(&c)) { ts_push(t, b); ts_push(t, a); ts_push(t, c); ts_push(t, b); ts_push(t, a); break; }
        d = ts_pop(t);
        ts_push(t, b); ts_push(t, a); ts_push(t, d); ts_push(t, c); ts_push(t, b); ts_push(t, a);
        break;
    case 95: a = ts_pop(t); b = ts_pop(t); ts_push(t, a); ts_push(t, b); break;
    }
}

static const uint8_t prim_tag[4] = {1, 4, 2, 3}; /* I L F D */

/* Applies instruction I to the state. */
static void ts_step(ts_t *t, const insn_t *I) {
    const uint8_t *q = t->M->code + I->off;
    unsigned op = I->op;
    if (op == 0 || op == 132) return;
    if (op == 1) { ts_push(t, vt_make(5, 0)); return; }
    if (op >= 2 && op <= 8) { ts_push(t, vt_make(1, 0)); return; }
    if (op == 9 || op == 10) { ts_push(t, vt_make(4, 0)); return; }
    if (op >= 11 && op <= 13) { ts_push(t, vt_make(2, 0)); return; }
    if (op == 14 || op == 15) { ts_push(t, vt_make(3, 0)); return; }
    if (op == 16 || op == 17) { ts_push(t, vt_make(1, 0)); return; }
    if (op == 18) { do_ldc(t, q[1]); return; }
    if (op == 19 || op == 20) { do_ldc(t, get_u2(q + 1)); return; }
    if (op >= 21 && op <= 24) { (void)ts_load(t, q[1]); ts_push(t, vt_make(prim_tag[op - 21], 0)); return; }
    if (op == 25) { ts_push(t, ts_load(t, q[1])); return; }
    if (op >= 26 && op <= 41) { ts_push(t, vt_make(prim_tag[(op - 26) / 4], 0)); return; }
    if (op >= 42 && op <= 45) { ts_push(t, ts_load(t, op - 42)); return; }
    if (op >= 46 && op <= 53) {
        ts_pop(t);
        vt_t arr = ts_pop(t);
        if (op == 50) {
            if (arr.tag == 5) { ts_push(t, arr); return; }
            size_t n;
            const uint8_t *nm = arr.tag == 7 ? cp_utf8_raw(t->M->c, get_u2(t->M->c->cp[arr.v].raw + 1), &n) : NULL;
            if (!nm || n < 2 || nm[0] != '[') { t->bad = 1; return; }
            size_t l;
            ts_push(t, desc_vt(t, (const char *)nm + 1, n - 1, &l));
            return;
        }
        static const uint8_t at[8] = {1, 4, 2, 3, 0, 1, 1, 1};
        ts_push(t, vt_make(at[op - 46], 0));
        return;
    }
    if (op >= 54 && op <= 58) { ts_store(t, q[1], ts_pop(t)); return; }
    if (op >= 59 && op <= 78) { ts_store(t, (op - 59) % 4, ts_pop(t)); return; }
    if (op >= 79 && op <= 86) { ts_popn(t, 3); return; }
    if (op >= 87 && op <= 95) { do_stackop(t, op); return; }
    if (op >= 96 && op <= 115) { ts_popn(t, 2); ts_push(t, vt_make(prim_tag[(op - 96) % 4], 0)); return; }
    if (op >= 116 && op <= 119) { ts_pop(t); ts_push(t, vt_make(prim_tag[op - 116], 0)); return; }
    if (op >= 120 && op <= 131) { ts_popn(t, 2); ts_push(t, vt_make(prim_tag[(op - 120) % 2], 0)); return; }
    if (op >= 133 && op <= 147) {
        static const uint8_t cv[15] = {4, 2, 3, 1, 2, 3, 1, 4, 3, 1, 4, 2, 1, 1, 1};
        ts_pop(t);
        ts_push(t, vt_make(cv[op - 133], 0));
        return;
    }
    if (op >= 148 && op <= 152) { ts_popn(t, 2); ts_push(t, vt_make(1, 0)); return; }
    if ((op >= 153 && op <= 158) || op == 198 || op == 199) { ts_pop(t); return; }
    if (op >= 159 && op <= 166) { ts_popn(t, 2); return; }
    if (op == 178 || op == 180) {
        if (op == 180) ts_pop(t);
        size_t n, l;
        const char *d = ref_desc(t, get_u2(q + 1), &n);
        if (d) ts_push(t, desc_vt(t, d, n, &l));
        return;
    }
    if (op == 179) { ts_pop(t); return; }
    if (op == 181) { ts_popn(t, 2); return; }
    if (op == 182 || op == 183 || op == 185) { do_invoke(t, get_u2(q + 1), 1, op == 183); return; }
    if (op == 184 || op == 186) { do_invoke(t, get_u2(q + 1), 0, 0); return; }
    if (op == 187) { ts_push(t, vt_make(8, (uint16_t)I->off)); return; }
    if (op == 188) {
        static const char *const an[8] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
        ts_pop(t);
        if (q[1] < 4 || q[1] > 11) { t->bad = 1; return; }
        ts_push(t, class_vt(t, an[q[1] - 4], 2));
        return;
    }
    if (op == 189) {
        ts_pop(t);
        uint32_t ci = get_u2(q + 1);
        size_t n;
        const uint8_t *nm = cp_is(t->M->c, ci, 7) ? cp_utf8_raw(t->M->c, get_u2(t->M->c->cp[ci].raw + 1), &n) : NULL;
        if (!nm || n == 0 || n > 65000) { t->bad = 1; return; }
        char *buf = cf_arena_alloc(&t->M->c->ar, n + 3);
        if (!buf) { t->bad = 1; return; }
        size_t k = 0;
        buf[k++] = '[';
        if (nm[0] == '[') { memcpy(buf + k, nm, n); k += n; }
        else { buf[k++] = 'L'; memcpy(buf + k, nm, n); k += n; buf[k++] = ';'; }
        ts_push(t, class_vt(t, buf, k));
        return;
    }
    if (op == 190) { ts_pop(t); ts_push(t, vt_make(1, 0)); return; }
    if (op == 192) {
        ts_pop(t);
        uint32_t ci = get_u2(q + 1);
        if (!cp_is(t->M->c, ci, 7)) { t->bad = 1; return; }
        ts_push(t, vt_make(7, (uint16_t)ci));
        return;
    }
    if (op == 193) { ts_pop(t); ts_push(t, vt_make(1, 0)); return; }
    if (op == 194 || op == 195) { ts_pop(t); return; }
    if (op == 196) {
        unsigned op2 = q[1], n = get_u2(q + 2);
        if (op2 >= 21 && op2 <= 24) { (void)ts_load(t, n); ts_push(t, vt_make(prim_tag[op2 - 21], 0)); }
        else if (op2 == 25) ts_push(t, ts_load(t, n));
        else if (op2 >= 54 && op2 <= 58) ts_store(t, n, ts_pop(t));
        else if (op2 != 132) t->bad = 1;
        return;
    }
    if (op == 197) {
        uint32_t ci = get_u2(q + 1);
        ts_popn(t, q[3]);
        if (!cp_is(t->M->c, ci, 7)) { t->bad = 1; return; }
        ts_push(t, vt_make(7, (uint16_t)ci));
        return;
    }
    t->bad = 1; /* control transfers, jsr/ret, returns, athrow, switches */
}

/* The frame right after the conditional branch at instruction b (its operands popped). */
static frame_t *infer_after(meth_t *M, uint32_t b) {
    ts_t *tp = M->memo;
    if (!tp) {
        tp = cf_arena_alloc(&M->c->ar, sizeof(ts_t));
        if (!tp) return NULL;
        tp->M = M;
        tp->cap = M->max_stack + 1;
        tp->loc = cf_arena_array(&M->c->ar, M->max_locals + 1, sizeof(vt_t));
        tp->stk = cf_arena_array(&M->c->ar, tp->cap, sizeof(vt_t));
        if (!tp->loc || !tp->stk) return NULL;
        M->memo = tp;
        M->memo_b = NONE;
    }
    /* last frame at or before b (or the method's initial frame) */
    const frame_t *f = &M->init;
    uint32_t from = 0;
    for (uint32_t lo = 0, hi = M->nframes; lo < hi;) {
        uint32_t mid = (lo + hi) / 2;
        if (M->fr[mid].idx <= b) { f = &M->fr[mid]; from = M->fr[mid].idx; lo = mid + 1; }
        else hi = mid;
    }
    uint32_t start = from;
    if (M->memo_b != NONE && M->memo_from == from && M->memo_b < b) {
        start = M->memo_b + 1; /* go on from the previous branch of the same stretch */
    } else {
        memset(tp->loc, 0, (M->max_locals + 1) * sizeof(vt_t));
        tp->ns = 0;
        tp->bad = 0;
        uint32_t s = 0;
        for (uint32_t i = 0; i < f->nl; i++) {
            vt_t v = f->l[i];
            uint32_t c = cat2(&v) ? 2 : 1;
            if ((uint64_t)s + c > M->max_locals) { M->memo_b = NONE; return NULL; }
            tp->loc[s] = v;
            s += c;
        }
        for (uint32_t i = 0; i < f->ns; i++) ts_push(tp, f->s[i]);
    }
    ts_t t = *tp;
    for (uint32_t i = start; i <= b && !t.bad; i++) ts_step(&t, &M->in[i]);
    *tp = t;
    M->memo_from = from;
    M->memo_b = t.bad ? NONE : b;
    if (t.bad) return NULL;
    frame_t *out = cf_arena_alloc(&M->c->ar, sizeof(frame_t));
    if (!out) return NULL;
    uint32_t nl = 0, last = 0;
    vt_t *l = cf_arena_array(&M->c->ar, M->max_locals + 1, sizeof(vt_t));
    vt_t *st = cf_arena_array(&M->c->ar, t.ns + 1, sizeof(vt_t));
    if (!l || !st) return NULL;
    for (uint32_t i = 0; i < M->max_locals; i += cat2(&t.loc[i]) ? 2 : 1) {
        l[nl++] = t.loc[i];
        if (t.loc[i].tag != 0) last = nl;
    }
    memcpy(st, t.stk, t.ns * sizeof(vt_t));
    out->l = l;
    out->nl = last;
    out->s = st;
    out->ns = t.ns;
    return out;
}

/* ---- StackMapTable encoding ----------------------------------------------------------- */

typedef struct { uint32_t pos, prio; const frame_t *f; } pframe_t;

static int cmp_pframe(const void *a, const void *b) {
    const pframe_t *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->prio < y->prio ? -1 : x->prio > y->prio;
}

static int vt_eq(const vt_t *a, const vt_t *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i].tag != b[i].tag || a[i].v != b[i].v) return 0;
    return 1;
}

static void put_vts(cf_buf *b, const meth_t *M, const vt_t *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        buf_u1(b, v[i].tag);
        if (v[i].tag == 7) buf_u2(b, v[i].v);
        else if (v[i].tag == 8) buf_u2(b, map_insn(M, v[i].v));
    }
}

static void encode_frames(cf_buf *b, const meth_t *M, const pframe_t *pf, uint32_t n) {
    buf_u2(b, n);
    const frame_t *prev = &M->init;
    int64_t prev_pos = -1;
    for (uint32_t k = 0; k < n; k++) {
        const frame_t *f = pf[k].f;
        uint32_t delta = (uint32_t)((int64_t)pf[k].pos - prev_pos - 1);
        int same = f->nl == prev->nl && vt_eq(f->l, prev->l, f->nl);
        if (f->full) same = 0;
        if (same && f->ns == 0) {
            if (delta < 64) buf_u1(b, delta);
            else { buf_u1(b, 251); buf_u2(b, delta); }
        } else if (same && f->ns == 1) {
            if (delta < 64) buf_u1(b, 64 + delta);
            else { buf_u1(b, 247); buf_u2(b, delta); }
            put_vts(b, M, f->s, 1);
        } else if (!f->full && f->ns == 0 && f->nl > prev->nl && f->nl - prev->nl <= 3 &&
                   vt_eq(f->l, prev->l, prev->nl)) {
            buf_u1(b, 251 + (f->nl - prev->nl));
            buf_u2(b, delta);
            put_vts(b, M, f->l + prev->nl, f->nl - prev->nl);
        } else if (!f->full && f->ns == 0 && f->nl < prev->nl && prev->nl - f->nl <= 3 &&
                   vt_eq(f->l, prev->l, f->nl)) {
            buf_u1(b, 251 - (prev->nl - f->nl));
            buf_u2(b, delta);
        } else {
            buf_u1(b, 255);
            buf_u2(b, delta);
            buf_u2(b, f->nl);
            put_vts(b, M, f->l, f->nl);
            buf_u2(b, f->ns);
            put_vts(b, M, f->s, f->ns);
        }
        prev = f;
        prev_pos = pf[k].pos;
    }
}

/* ---- Rewriting ------------------------------------------------------------------------ */

/*
 * Whether the instruction at p (opcode op) calls clone()Ljava/lang/Object;: 1 when it
 * surely runs Object.clone (invokespecial java/lang/Object, as super.clone() does, or
 * invokevirtual on an array class, which cannot override it), 2 for any other
 * invokevirtual of it (an override may run instead), 0 otherwise.
 */
static int clone_call(const cf_class *c, const uint8_t *p, uint8_t op) {
    if (op != 182 && op != 183) return 0;
    uint32_t ref = get_u2(p + 1);
    if (!cp_ref_is(c, ref, "clone", "()Ljava/lang/Object;")) return 0;
    uint32_t cls = cp_ref_class_name(c, ref);
    if (!cls) return 0;
    if (op == 183) return cp_utf8_eq(c, cls, "java/lang/Object") ? 1 : 0;
    const cf_cpe *e = &c->cp[cls];
    return e->len > 3 && e->raw[3] == '[' ? 1 : 2;
}

static int fits16(int64_t d) { return d >= -32768 && d <= 32767; }

int cf_rewrite_method(cf_class *c, unsigned mi, unsigned mask, const cf_inject_spec *spec,
                      const uint32_t hooks[CF_HOOKS], cf_result *res) {
    meth_t M;
    memset(&M, 0, sizeof(M));
    M.c = c;
    M.m = &c->methods[mi];
    int rc = analyse(&M);
    if (rc != CF_OK) return (rc == CF_ERR_FORMAT && c->ar.failed) ? CF_ERR_NOMEM : rc;

    const int32_t cnum = (int32_t)spec->cnum, mnum = (int32_t)mi;
    const uint32_t cldc = hooks[4];
    uint32_t mldc = 0;
    if (mnum > 32767 && !(mldc = cp_find_or_add_int(c, mnum))) return CF_ERR_LIMIT;
    const uint32_t call2 = push_len(cnum) + push_len(mnum) + 3;

    /* Plan. */
    int entry = (mask & CF_INJ_ENTRY) != 0;
    int objinit = (mask & CF_INJ_OBJINIT) && strcmp(M.m->sname, "<init>") == 0;
    unsigned nret = 0, nnew = 0, nclone = 0;
    for (uint32_t i = 0; i < M.ninsn; i++) {
        insn_t *I = &M.in[i];
        if ((mask & CF_INJ_RETURN) && I->op >= 172 && I->op <= 177) { I->pre = call2; nret++; }
        if ((mask & CF_INJ_NEWARRAY) && (I->op == 188 || I->op == 189 || I->op == 197)) {
            I->post = 4;
            I->hook = hooks[3];
            nnew++;
        }
        int clone = (mask & CF_INJ_CLONE) ? clone_call(M.c, M.code + I->off, I->op) : 0;
        if (clone) {
            I->post = 4;
            I->hook = hooks[clone == 1 ? 5 : 6];
            nclone++;
        }
    }
    M.prologue = (entry ? call2 : 0) + (objinit ? 4 : 0);
    uint32_t cstart = NONE, split = NONE;
    int exc_skipped = 0;
    if (mask & CF_INJ_EXC_EXIT) {
        int is_init = strcmp(M.m->sname, "<init>") == 0;
        if (is_init && strcmp(c->name, "java/lang/Object") == 0) {
            /* Object.<init> holds nothing that throws, and HotSpot's C2 crashes compiling
             * it with a handler (seen on JDK 17): never wrap it. */
            exc_skipped = 1;
        } else if (is_init) {
            cstart = after_super_call(&M);
            split = cstart;
            if (cstart == NONE) exc_skipped = 1;
        } else {
            cstart = 0;
        }
        if (cstart != NONE) M.epilogue = call2 + 1;
    }
    unsigned npost = nnew + nclone;   /* dup; invokestatic after the instruction */
    if (!M.prologue && !nret && !npost && !M.epilogue) {
        res->exc_exit_skipped += (unsigned)exc_skipped;
        return CF_M_NOTHING;
    }

    uint32_t ms = M.max_stack;
    if (nret) ms = M.max_stack + 2;
    else if (npost) ms = M.max_stack + 1;
    if (entry && ms < 2) ms = 2;
    if (objinit && ms < 1) ms = 1;
    if (M.epilogue && ms < 3) ms = 3;
    if (ms > 65535u) return CF_M_UNREWRITABLE;

    /* Where islands of trampolines may go (only for methods with a StackMapTable): before
     * instruction p (or at the end, p == ninsn) when no exception range covers p-1, and p
     * either follows an unconditional transfer or has a frame (then the island starts with
     * a goto_w over itself). */
    const int frames = M.smt >= 0;
    uint32_t *hosts = NULL, nh = 0;
    if (frames) {
        int32_t *cov = cf_arena_array(&c->ar, (size_t)M.ninsn + 1, sizeof(int32_t));
        uint8_t *hasf = cf_arena_alloc(&c->ar, (size_t)M.ninsn + 1);
        hosts = cf_arena_array(&c->ar, (size_t)M.ninsn + 1, sizeof(uint32_t));
        if (!cov || !hosts || !hasf) return CF_ERR_NOMEM;
        for (uint32_t i = 0; i < M.nexc; i++) {
            const uint8_t *e = M.exc + 8 * i;
            cov[M.idx[get_u2(e)]]++;
            cov[M.idx[get_u2(e + 2)]]--;
        }
        for (uint32_t k = 0; k < M.nframes; k++) hasf[M.fr[k].idx] = 1;
        int32_t depth = 0; /* ranges covering p-1 */
        for (uint32_t p = 0; p <= M.ninsn; p++) {
            int after_jump = p > 0 && is_uncond(&M.in[p - 1]);
            if ((p == 0 || depth == 0) && (after_jump || (p < M.ninsn && hasf[p]))) {
                hosts[nh++] = p;
                M.in[p].skip = !after_jump;
            }
            if (p < M.ninsn) depth += cov[p];
        }
    }

    /* Layout until every branch fits. */
    unsigned widened = 0;
    for (int iter = 0;; iter++) {
        layout(&M);
        if (M.total > 65535) return CF_M_TOO_BIG;
        if (iter > 64) return CF_M_UNREWRITABLE;
        int changed = 0;
        for (uint32_t i = 0; i < M.ninsn; i++) {
            insn_t *I = &M.in[i];
            if (I->kind != K_BR16 || I->widen) continue;
            if (fits16((int64_t)M.in[I->tgt].start - I->at) && !(spec->debug & CF_DEBUG_WIDEN_ALL)) continue;
            changed = 1;
            widened++;
            if (I->op == 167 || I->op == 168 || !frames) { I->widen = 1; continue; }
            uint32_t h = (!(spec->debug & CF_DEBUG_NO_ISLANDS) && frame_at(&M, I->tgt))
                             ? pick_host(&M, hosts, nh, i, I->tgt, split) : NONE;
            if (h == NONE) {
                /* no island in reach: invert, with an inferred frame after the goto_w */
                if (!(I->nf = infer_after(&M, i))) return CF_M_UNREWRITABLE;
                I->widen = 1;
                continue;
            }
            uint32_t t;
            for (t = 0; t < M.ntr; t++)
                if (M.tr[t].host == h && M.tr[t].tgt == I->tgt) break;
            if (t == M.ntr) {
                if (M.ntr == M.trcap) {
                    uint32_t nc = M.trcap * 2 + 8;
                    tramp_t *n = cf_arena_array(&c->ar, nc, sizeof(tramp_t));
                    if (!n) return CF_ERR_NOMEM;
                    if (M.ntr) memcpy(n, M.tr, M.ntr * sizeof(tramp_t));
                    M.tr = n;
                    M.trcap = nc;
                }
                M.tr[t].host = h;
                M.tr[t].tgt = I->tgt;
                M.tr[t].order = t;
                M.ntr++;
                M.in[h].ntr++;
            }
            I->widen = 2;
            I->tr = t;
        }
        if (!changed) break;
    }
    /* Trampoline positions, then a final check of every short branch. */
    uint32_t *tr_slot = NULL;
    if (M.ntr) {
        qsort(M.tr, M.ntr, sizeof(tramp_t), cmp_tramp);
        tr_slot = cf_arena_array(&c->ar, M.ntr, sizeof(uint32_t));
        if (!tr_slot) return CF_ERR_NOMEM;
        uint32_t k = 0;
        for (uint32_t t = 0; t < M.ntr; t++) {
            const insn_t *H = &M.in[M.tr[t].host];
            if (t == 0 || M.tr[t].host != M.tr[t - 1].host) k = 0;
            M.tr[t].pos = H->island + 5 * (H->skip + k++);
            tr_slot[M.tr[t].order] = t;
        }
    }
    for (uint32_t i = 0; i < M.ninsn; i++) {
        const insn_t *I = &M.in[i];
        if (I->kind != K_BR16) continue;
        if (I->widen == 0 && !fits16((int64_t)M.in[I->tgt].start - I->at)) return CF_M_UNREWRITABLE;
        if (I->widen == 2 && !fits16((int64_t)M.tr[tr_slot[I->tr]].pos - I->at)) return CF_M_UNREWRITABLE;
    }

    /* Emit the code. */
    cf_buf b;
    buf_init(&b, 1u << 20);
    if (entry) { push_emit(&b, cnum, cldc); push_emit(&b, mnum, mldc); buf_u1(&b, 184); buf_u2(&b, hooks[0]); }
    if (objinit) { buf_u1(&b, 42); buf_u1(&b, 184); buf_u2(&b, hooks[2]); }
    uint32_t tcur = 0;
    for (uint32_t i = 0; i <= M.ninsn; i++) {
        const insn_t *I = &M.in[i];
        if (I->ntr) {
            if (b.len != I->island) { b.bad = 1; break; }
            if (I->skip) { buf_u1(&b, 200); buf_u4(&b, 5 * (I->ntr + 1)); }
        }
        while (tcur < M.ntr && M.tr[tcur].host == i) {
            if (b.len != M.tr[tcur].pos) { b.bad = 1; break; }
            buf_u1(&b, 200);
            buf_u4(&b, (uint32_t)(int32_t)((int64_t)M.in[M.tr[tcur].tgt].start - M.tr[tcur].pos));
            tcur++;
        }
        if (i == M.ninsn) break;
        if (I->pre) { push_emit(&b, cnum, cldc); push_emit(&b, mnum, mldc); buf_u1(&b, 184); buf_u2(&b, hooks[1]); }
        if (b.len != I->at) { b.bad = 1; break; }
        const uint8_t *p = M.code + I->off;
        int64_t d = (int64_t)M.in[I->tgt].start - I->at;
        switch (I->kind) {
        case K_BR16:
            if (I->widen == 0) { buf_u1(&b, I->op); buf_u2(&b, (uint32_t)(uint16_t)(int16_t)d); }
            else if (I->widen == 2) {
                buf_u1(&b, I->op);
                buf_u2(&b, (uint32_t)(uint16_t)(int16_t)((int64_t)M.tr[tr_slot[I->tr]].pos - I->at));
            } else if (I->op == 167 || I->op == 168) {
                buf_u1(&b, I->op == 167 ? 200 : 201);
                buf_u4(&b, (uint32_t)(int32_t)d);
            } else {
                unsigned inv = (I->op == 198 || I->op == 199) ? (I->op ^ 1u) : (((I->op - 153u) ^ 1u) + 153u);
                buf_u1(&b, inv);
                buf_u2(&b, 8);
                buf_u1(&b, 200);
                buf_u4(&b, (uint32_t)(int32_t)(d - 3));
            }
            break;
        case K_BR32:
            buf_u1(&b, I->op);
            buf_u4(&b, (uint32_t)(int32_t)d);
            break;
        case K_TSW: case K_LSW: {
            static const uint8_t zero[3] = {0, 0, 0};
            uint32_t base = I->off + 1 + swpad(I->off);
            buf_u1(&b, I->op);
            buf_bytes(&b, zero, swpad(I->at));
            buf_u4(&b, (uint32_t)(int32_t)((int64_t)M.in[M.swt[I->sw]].start - I->at));
            if (I->kind == K_TSW) {
                buf_bytes(&b, M.code + base + 4, 8);
                for (uint32_t j = 1; j < I->nsw; j++)
                    buf_u4(&b, (uint32_t)(int32_t)((int64_t)M.in[M.swt[I->sw + j]].start - I->at));
            } else {
                buf_bytes(&b, M.code + base + 4, 4);
                for (uint32_t j = 1; j < I->nsw; j++) {
                    buf_bytes(&b, M.code + base + 8 + 8 * (j - 1), 4);
                    buf_u4(&b, (uint32_t)(int32_t)((int64_t)M.in[M.swt[I->sw + j]].start - I->at));
                }
            }
            break;
        }
        default:
            buf_bytes(&b, p, I->len);
            break;
        }
        if (I->post) { buf_u1(&b, 89); buf_u1(&b, 184); buf_u2(&b, I->hook); }
    }
    if (b.len != M.body_end) b.bad = 1;
    if (M.epilogue) {
        push_emit(&b, cnum, cldc); push_emit(&b, mnum, mldc); buf_u1(&b, 184); buf_u2(&b, hooks[1]);
        buf_u1(&b, 191);
    }
    if (b.bad || b.len != M.total) { buf_free(&b); return CF_M_UNREWRITABLE; }

    /* Frames needed: the originals, one per trampoline, one for the catch-all handler. */
    int need_smt = frames || (M.epilogue && c->major >= 50);
    uint32_t smt_name = 0, throwable = 0;
    if (need_smt && !frames && !(smt_name = cp_find_or_add_utf8(c, "StackMapTable"))) { buf_free(&b); return CF_ERR_LIMIT; }
    if (need_smt && M.epilogue && !(throwable = cp_find_or_add_class(c, "java/lang/Throwable", 19))) {
        buf_free(&b);
        return CF_ERR_LIMIT;
    }

    /* Assemble the Code attribute. */
    cf_buf a;
    buf_init(&a, 0x7FFFFFF0);
    buf_u2(&a, ms);
    buf_u2(&a, M.max_locals);
    buf_u4(&a, M.total);
    buf_bytes(&a, b.p, b.len);
    buf_free(&b);
    uint32_t nexc = M.nexc + (M.epilogue ? 1 : 0);
    if (nexc > 0xFFFF) { buf_free(&a); return CF_M_UNREWRITABLE; }
    buf_u2(&a, nexc);
    for (uint32_t i = 0; i < M.nexc; i++) {
        const uint8_t *e = M.exc + 8 * i;
        buf_u2(&a, map_tgt(&M, get_u2(e)));
        buf_u2(&a, map_tgt(&M, get_u2(e + 2)));
        buf_u2(&a, map_tgt(&M, get_u2(e + 4)));
        buf_u2(&a, get_u2(e + 6));
    }
    if (M.epilogue) {
        buf_u2(&a, M.in[cstart].start);
        buf_u2(&a, M.body_end);
        buf_u2(&a, M.body_end);
        buf_u2(&a, 0);
    }
    buf_u2(&a, M.nattr + (need_smt && !frames ? 1 : 0));
    frame_t handler;
    vt_t handler_stack;
    memset(&handler, 0, sizeof(handler));
    handler_stack.tag = 7;
    handler_stack.v = (uint16_t)throwable;
    handler.s = &handler_stack;
    handler.ns = 1;
    handler.full = 1;
    for (uint32_t i = 0; i <= M.nattr; i++) {
        int kind;
        if (i < M.nattr) kind = attr_kind(&M, i);
        else if (need_smt && !frames) kind = A_SMT;
        else break;
        if (kind == A_OTHER) {
            buf_u2(&a, M.attrs[i].name);
            buf_u4(&a, M.attrs[i].len);
            buf_bytes(&a, M.attrs[i].data, M.attrs[i].len);
            continue;
        }
        if (kind == A_SMT) {
            uint32_t n = M.nframes + M.ntr + (M.epilogue ? 1 : 0);
            for (uint32_t j = 0; j < M.ninsn; j++) n += M.in[j].nf != NULL;
            pframe_t *pf = cf_arena_array(&c->ar, n ? n : 1, sizeof(pframe_t));
            if (!pf) { buf_free(&a); return CF_ERR_NOMEM; }
            uint32_t k = 0;
            for (uint32_t j = 0; j < M.nframes; j++) { pf[k].pos = M.in[M.fr[j].idx].start; pf[k++].f = &M.fr[j]; }
            for (uint32_t j = 0; j < M.ntr; j++) { pf[k].pos = M.tr[j].pos; pf[k].prio = 1; pf[k++].f = frame_at(&M, M.tr[j].tgt); }
            for (uint32_t j = 0; j < M.ninsn; j++)
                if (M.in[j].nf) { pf[k].pos = M.in[j].at + 8; pf[k].prio = 1; pf[k++].f = M.in[j].nf; }
            if (M.epilogue) { pf[k].pos = M.body_end; pf[k].prio = 1; pf[k++].f = &handler; }
            qsort(pf, n, sizeof(pframe_t), cmp_pframe);
            /* one frame per position: an original frame wins over an inferred one */
            k = 0;
            for (uint32_t j = 0; j < n; j++)
                if (k == 0 || pf[k - 1].pos != pf[j].pos) pf[k++] = pf[j];
            n = k;
            if (n > 0xFFFF) { buf_free(&a); return CF_M_UNREWRITABLE; }
            cf_buf s;
            buf_init(&s, 0x7FFFFFF0);
            encode_frames(&s, &M, pf, n);
            buf_u2(&a, i < M.nattr ? M.attrs[i].name : smt_name);
            buf_u4(&a, (uint32_t)s.len);
            buf_bytes(&a, s.p, s.len);
            if (s.bad) a.bad = 1;
            buf_free(&s);
            continue;
        }
        const cf_attr *at = &M.attrs[i];
        uint8_t *copy = cf_arena_alloc(&c->ar, at->len);
        if (!copy) { buf_free(&a); return CF_ERR_NOMEM; }
        memcpy(copy, at->data, at->len);
        if (kind == A_LNT) {
            uint32_t n = get_u2(copy);
            for (uint32_t j = 0; j < n; j++) put_u2(copy + 2 + 4 * j, map_start(&M, get_u2(copy + 2 + 4 * j)));
        } else if (kind == A_LVT) {
            uint32_t n = get_u2(copy);
            for (uint32_t j = 0; j < n; j++) {
                uint8_t *e = copy + 2 + 10 * j;
                uint32_t s = get_u2(e), l = get_u2(e + 2);
                uint32_t ns = map_start(&M, s), ne = map_tgt(&M, s + l);
                put_u2(e, ns);
                put_u2(e + 2, ne > ns ? ne - ns : 0);
            }
        } else if (kind == A_CRT) {
            /* entries: start_pc, end_pc (inclusive), character range, flags */
            uint32_t n = get_u2(copy);
            for (uint32_t j = 0; j < n; j++) {
                uint8_t *e = copy + 2 + 14 * j;
                uint32_t s = get_u2(e), en = get_u2(e + 2);
                uint32_t ns = map_tgt(&M, s);
                uint32_t ne = en < M.code_len ? map_tgt(&M, M.in[M.idx[en]].off + M.in[M.idx[en]].len) : M.body_end;
                put_u2(e, ns);
                put_u2(e + 2, ne > ns ? ne - 1 : ns);
            }
        } else if (kind == A_TA) {
            if (ta_walk(&M, at->data, at->len, copy) != CF_OK) { buf_free(&a); return CF_BAD; }
        }
        buf_u2(&a, at->name);
        buf_u4(&a, at->len);
        buf_bytes(&a, copy, at->len);
    }
    if (a.bad) { buf_free(&a); return CF_M_UNREWRITABLE; }
    uint8_t *data = cf_arena_alloc(&c->ar, a.len);
    if (!data) { buf_free(&a); return CF_ERR_NOMEM; }
    memcpy(data, a.p, a.len);
    M.m->attrs[M.m->code].data = data;
    M.m->attrs[M.m->code].len = (uint32_t)a.len;
    buf_free(&a);

    res->entry_sites += (unsigned)entry;
    res->objinit_sites += (unsigned)objinit;
    res->return_sites += nret;
    res->newarray_sites += nnew;
    res->clone_sites += nclone;
    res->exc_exits += M.epilogue ? 1u : 0u;
    res->exc_exit_skipped += (unsigned)exc_skipped;
    res->widened += widened;
    return CF_M_INSTRUMENTED;
}
