/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding a Code attribute into the table of instructions, with every check that the
 * rewrite relies on: instruction lengths, branch and switch targets on instruction starts,
 * exception ranges, then the StackMapTable and the tables with code offsets. */
#include <string.h>

#include "classfile/cf_code.h"

/* Length of the instruction with opcode op; 0 when it varies (switches, wide), -1 when op
 * is not an opcode. */
static int oplen(unsigned op)
{
    if (op >= OP_COUNT) return -1;
    if ((op >= OP_ILOAD && op <= OP_ALOAD) || (op >= OP_ISTORE && op <= OP_ASTORE) || op == OP_BIPUSH || op == OP_LDC ||
        op == OP_RET || op == OP_NEWARRAY)
        return 2;
    if ((op >= OP_IFEQ && op <= OP_JSR) || (op >= OP_GETSTATIC && op <= OP_INVOKESTATIC) || op == OP_SIPUSH ||
        op == OP_LDC_W || op == OP_LDC2_W || op == OP_IINC || op == OP_NEW || op == OP_ANEWARRAY ||
        op == OP_CHECKCAST || op == OP_INSTANCEOF || op == OP_IFNULL || op == OP_IFNONNULL)
        return 3;
    if (op == OP_MULTIANEWARRAY) return 4;
    if (op == OP_INVOKEINTERFACE || op == OP_INVOKEDYNAMIC || op == OP_GOTO_W || op == OP_JSR_W) return 5;
    if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH || op == OP_WIDE) return 0;
    return 1;
}

/* Length of the instruction at pc and its number of switch targets; -1 if malformed. */
static int insn_len(const uint8_t *code, uint32_t len, uint32_t pc, uint32_t *out, uint32_t *nsw)
{
    unsigned op = code[pc];
    int l = oplen(op);
    uint64_t n = 0;
    *nsw = 0;
    if (l < 0) return -1;
    if (l > 0) {
        n = (uint64_t)l;
    } else if (op == OP_WIDE) {
        if (pc + 1 >= len) return -1;
        unsigned op2 = code[pc + 1];
        if (op2 == OP_IINC)
            n = 6;
        else if ((op2 >= OP_ILOAD && op2 <= OP_ALOAD) || (op2 >= OP_ISTORE && op2 <= OP_ASTORE) || op2 == OP_RET)
            n = 4;
        else
            return -1;
    } else {
        uint32_t base = pc + 1 + swpad(pc);
        if ((uint64_t)base + (op == OP_TABLESWITCH ? 12 : 8) > len) return -1;
        if (op == OP_TABLESWITCH) {
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

static int load_code(meth_t *M)
{
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
        /* a name that is no Utf8 of the pool (as the JVM rejects it): else one the pool
         * gains while the class is instrumented could name it a StackMapTable */
        if (r.bad || !cp_is(M->c, M->attrs[i].name, CP_UTF8)) return CF_BAD;
        /* (older versions are verified by inference: their StackMapTable means nothing) */
        if (M->c->major >= 50 && cp_utf8_eq(M->c, M->attrs[i].name, "StackMapTable")) {
            if (M->smt >= 0) return CF_BAD;
            M->smt = (int)i;
        }
    }
    if (r.i != r.n) return CF_BAD;
    return CF_OK;
}

static int is_branch16(unsigned op) { return (op >= OP_IFEQ && op <= OP_JSR) || op == OP_IFNULL || op == OP_IFNONNULL; }

/* Old offset of switch target j of the switch at pc (0: the default). */
static int64_t switch_target(const uint8_t *code, uint32_t pc, uint32_t j)
{
    uint32_t base = pc + 1 + swpad(pc);
    if (j == 0) return (int64_t)pc + s32(code + base);
    uint32_t at = code[pc] == OP_TABLESWITCH ? base + 12 + 4 * (j - 1) : base + 8 + 8 * (j - 1) + 4;
    return (int64_t)pc + s32(code + at);
}

/* Fills the instruction table; branch and switch targets stay old offsets in raw/rawbr
 * until every instruction start is known. */
static void decode_insns(meth_t *M, int64_t *raw, int64_t *rawbr)
{
    uint32_t pc = 0, si = 0, l, k;
    for (uint32_t i = 0; i < M->ninsn; i++) {
        insn_t *I = &M->in[i];
        insn_len(M->code, M->code_len, pc, &l, &k);
        I->off = pc;
        I->len = l;
        I->op = M->code[pc];
        for (uint32_t j = 0; j < l; j++) M->idx[pc + j] = i;
        const uint8_t *p = M->code + pc;
        if (is_branch16(I->op)) {
            I->kind = K_BR16;
            rawbr[i] = (int64_t)pc + (int16_t)be_load_u2(p + 1);
        } else if (I->op == OP_GOTO_W || I->op == OP_JSR_W) {
            I->kind = K_BR32;
            rawbr[i] = (int64_t)pc + s32(p + 1);
        } else if (I->op == OP_TABLESWITCH || I->op == OP_LOOKUPSWITCH) {
            I->kind = I->op == OP_TABLESWITCH ? K_TSW : K_LSW;
            I->sw = si;
            I->nsw = k;
            for (uint32_t j = 0; j < k; j++) raw[si++] = switch_target(M->code, pc, j);
        }
        pc += l;
    }
    M->idx[M->code_len] = M->ninsn;
}

static int decode(meth_t *M)
{
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
    decode_insns(M, raw, rawbr);
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

static int check_exc(meth_t *M)
{
    for (uint32_t i = 0; i < M->nexc; i++) {
        const uint8_t *e = M->exc + 8 * i;
        uint32_t s = be_load_u2(e), en = be_load_u2(e + 2), h = be_load_u2(e + 4), t = be_load_u2(e + 6);
        if (s >= en || !is_start(M, s) || !is_start(M, h)) return CF_BAD;
        if (en != M->code_len && !is_start(M, en)) return CF_BAD;
        if (t && !cp_is(M->c, t, CP_CLASS)) return CF_BAD;
    }
    return CF_OK;
}

int cf_code_analyse(meth_t *M, cf_class *c, unsigned mi, int readonly)
{
    memset(M, 0, sizeof(*M));
    M->c = c;
    M->m = &c->methods[mi];
    M->readonly = readonly;
    int rc;
    if ((rc = load_code(M)) == CF_OK && (rc = decode(M)) == CF_OK && (rc = check_exc(M)) == CF_OK &&
        (rc = cf_frames_decode(M)) == CF_OK)
        rc = cf_tables_check(M);
    /* a format error found with the arena exhausted is the arena's doing */
    return (rc == CF_ERR_FORMAT && c->ar.failed) ? CF_ERR_NOMEM : rc;
}

int cf_check_code(cf_class *c, unsigned mi)
{
    meth_t M;
    return cf_code_analyse(&M, c, mi, 1);
}
