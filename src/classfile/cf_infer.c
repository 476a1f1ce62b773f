/* SPDX-License-Identifier: Apache-2.0 */
/* Frame inference: the type state right after a conditional branch, for widening it as
 * "if<!cond> N; goto_w L; N:" in a method with a StackMapTable (N then needs a frame).
 * Between the last frame at or before the branch and the branch the code is straight-line
 * (anything after an unconditional transfer has a frame), so running the verifier's
 * transfer function from that frame gives exactly the state the verifier sees. Anything
 * unexpected gives NULL; the caller then leaves the method alone. */
#include <string.h>

#include "classfile/cf_code.h"

typedef struct cf_infer_state {
    meth_t *M;
    vt_t *loc; /* max_locals slots; a Long/Double fills two (the second is Top) */
    vt_t *stk; /* entries; a Long/Double is one entry */
    uint32_t ns, cap;
    int bad;
} ts_t;

/* The order of the typed opcode families: iload, lload, fload, dload; iadd, ladd, ... */
static const uint8_t ilfd[4] = {VT_INTEGER, VT_LONG, VT_FLOAT, VT_DOUBLE};

static void ts_push(ts_t *t, vt_t v)
{
    if (t->ns >= t->cap) {
        t->bad = 1;
        return;
    }
    t->stk[t->ns++] = v;
}
static vt_t ts_pop(ts_t *t)
{
    if (t->ns == 0) {
        t->bad = 1;
        return vt_make(VT_TOP, 0);
    }
    return t->stk[--t->ns];
}
static void ts_popn(ts_t *t, uint32_t n)
{
    while (n-- && !t->bad) ts_pop(t);
}

static vt_t ts_load(ts_t *t, uint32_t n)
{
    if (n >= t->M->max_locals) {
        t->bad = 1;
        return vt_make(VT_TOP, 0);
    }
    return t->loc[n];
}
static void ts_store(ts_t *t, uint32_t n, vt_t v)
{
    uint32_t c = cat2(&v) ? 2 : 1;
    if ((uint64_t)n + c > t->M->max_locals) {
        t->bad = 1;
        return;
    }
    if (n > 0 && cat2(&t->loc[n - 1])) t->loc[n - 1] = vt_make(VT_TOP, 0);
    t->loc[n] = v;
    if (c == 2) t->loc[n + 1] = vt_make(VT_TOP, 0);
}

static vt_t class_vt(ts_t *t, const char *name, size_t len)
{
    uint32_t i = cp_find_or_add_class(t->M->c, name, len);
    if (!i) {
        t->bad = 1;
        return vt_make(VT_TOP, 0);
    }
    return vt_make(VT_OBJECT, (uint16_t)i);
}

/* Type of the descriptor d[0..n), which must be one type and nothing after it; V (as
 * VT_VOID) only where void_ok (a method's return). A field or array element of type V, or
 * a descriptor with bytes after its type, makes the state bad: a frame built from it
 * would not be a valid one. */
static vt_t desc_vt(ts_t *t, const char *d, size_t n, int void_ok)
{
    size_t e, end = desc_end(d, 0, n, &e);
    if (!end || end != n || (e > 0 && d[e] != 'L' && prim_tag(d[e]) < 0)) {
        t->bad = 1;
        return vt_make(VT_TOP, 0);
    }
    if (e > 0) return class_vt(t, d, end);
    if (d[0] == 'L') return class_vt(t, d + 1, end - 2);
    if (d[0] == 'V') {
        if (!void_ok) t->bad = 1;
        return vt_make(void_ok ? VT_VOID : VT_TOP, 0);
    }
    int pt = prim_tag(d[0]);
    if (pt < 0) {
        t->bad = 1;
        return vt_make(VT_TOP, 0);
    }
    return vt_make((uint8_t)pt, 0);
}

/* Descriptor utf8 of a Fieldref/Methodref/InterfaceMethodref/InvokeDynamic/Dynamic, or
 * NULL (then the state is bad). */
static const char *ref_desc(ts_t *t, uint32_t ref, size_t *n)
{
    const cf_class *c = t->M->c;
    if (!(cp_is(c, ref, CP_FIELDREF) || cp_is(c, ref, CP_METHODREF) || cp_is(c, ref, CP_IMETHODREF) ||
          cp_is(c, ref, CP_DYNAMIC) || cp_is(c, ref, CP_INVOKEDYNAMIC))) {
        t->bad = 1;
        return NULL;
    }
    uint32_t nat = be_load_u2(c->cp[ref].raw + 3);
    const char *d =
        cp_is(c, nat, CP_NAMEANDTYPE) ? (const char *)cp_utf8_raw(c, be_load_u2(c->cp[nat].raw + 3), n) : NULL;
    if (!d || *n == 0) {
        t->bad = 1;
        return NULL;
    }
    return d;
}

/* After a constructor call on r (uninitialised this, or the object of a `new`), every copy
 * of r becomes the initialised class. 0 when r's `new` is not one. */
static int ts_initialised(ts_t *t, vt_t r)
{
    const meth_t *M = t->M;
    vt_t init;
    if (r.tag == VT_UNINIT_THIS) {
        init = vt_make(VT_OBJECT, M->c->this_idx);
    } else {
        if (r.v + 2u >= M->code_len || M->code[r.v] != OP_NEW ||
            !cp_is(M->c, be_load_u2(M->code + r.v + 1), CP_CLASS)) {
            t->bad = 1;
            return 0;
        }
        init = vt_make(VT_OBJECT, (uint16_t)be_load_u2(M->code + r.v + 1));
    }
    for (uint32_t k = 0; k < M->max_locals; k++)
        if (t->loc[k].tag == r.tag && t->loc[k].v == r.v) t->loc[k] = init;
    for (uint32_t k = 0; k < t->ns; k++)
        if (t->stk[k].tag == r.tag && t->stk[k].v == r.v) t->stk[k] = init;
    return 1;
}

static void do_invoke(ts_t *t, uint32_t ref, int has_recv, int is_special)
{
    size_t n;
    const char *d = ref_desc(t, ref, &n);
    if (!d || d[0] != '(') {
        t->bad = 1;
        return;
    }
    size_t i = 1;
    uint32_t nargs = 0;
    while (i < n && d[i] != ')') {
        size_t e;
        if (!(i = desc_end(d, i, n, &e))) {
            t->bad = 1;
            return;
        }
        nargs++;
    }
    if (i >= n) {
        t->bad = 1;
        return;
    }
    ts_popn(t, nargs);
    if (has_recv) {
        vt_t r = ts_pop(t);
        if (is_special && cp_utf8_eq(t->M->c, cp_ref_name(t->M->c, ref), "<init>") &&
            (r.tag == VT_UNINIT_THIS || r.tag == VT_UNINIT) && !ts_initialised(t, r))
            return;
    }
    vt_t ret = desc_vt(t, d + i + 1, n - i - 1, 1);
    if (!t->bad && ret.tag != VT_VOID) ts_push(t, ret);
}

static void do_ldc(ts_t *t, uint32_t idx)
{
    const cf_class *c = t->M->c;
    if (idx == 0 || idx >= c->cp_count || !c->cp[idx].raw) {
        t->bad = 1;
        return;
    }
    switch (c->cp[idx].raw[0]) {
    case CP_INTEGER: ts_push(t, vt_make(VT_INTEGER, 0)); break;
    case CP_FLOAT: ts_push(t, vt_make(VT_FLOAT, 0)); break;
    case CP_LONG: ts_push(t, vt_make(VT_LONG, 0)); break;
    case CP_DOUBLE: ts_push(t, vt_make(VT_DOUBLE, 0)); break;
    case CP_CLASS: ts_push(t, class_vt(t, "java/lang/Class", 15)); break;
    case CP_STRING: ts_push(t, class_vt(t, "java/lang/String", 16)); break;
    case CP_METHODHANDLE: ts_push(t, class_vt(t, "java/lang/invoke/MethodHandle", 29)); break;
    case CP_METHODTYPE: ts_push(t, class_vt(t, "java/lang/invoke/MethodType", 27)); break;
    case CP_DYNAMIC: {
        size_t n;
        const char *d = ref_desc(t, idx, &n);
        if (d) ts_push(t, desc_vt(t, d, n, 0));
        break;
    }
    default: t->bad = 1;
    }
}

/* pop .. swap: the forms of each depend on which entries are Long/Double (category 2). */
static void do_stackop(ts_t *t, unsigned op)
{
    vt_t a, b, c, d;
    switch (op) {
    case OP_POP: ts_pop(t); break;
    case OP_POP2:
        a = ts_pop(t);
        if (!cat2(&a)) ts_pop(t);
        break;
    case OP_DUP:
        a = ts_pop(t);
        ts_push(t, a);
        ts_push(t, a);
        break;
    case OP_DUP_X1:
        a = ts_pop(t);
        b = ts_pop(t);
        ts_push(t, a);
        ts_push(t, b);
        ts_push(t, a);
        break;
    case OP_DUP_X2:
        a = ts_pop(t);
        b = ts_pop(t);
        if (cat2(&b)) {
            ts_push(t, a);
            ts_push(t, b);
            ts_push(t, a);
            break;
        }
        c = ts_pop(t);
        ts_push(t, a);
        ts_push(t, c);
        ts_push(t, b);
        ts_push(t, a);
        break;
    case OP_DUP2:
        a = ts_pop(t);
        if (cat2(&a)) {
            ts_push(t, a);
            ts_push(t, a);
            break;
        }
        b = ts_pop(t);
        ts_push(t, b);
        ts_push(t, a);
        ts_push(t, b);
        ts_push(t, a);
        break;
    case OP_DUP2_X1:
        a = ts_pop(t);
        b = ts_pop(t);
        if (cat2(&a)) {
            ts_push(t, a);
            ts_push(t, b);
            ts_push(t, a);
            break;
        }
        c = ts_pop(t);
        ts_push(t, b);
        ts_push(t, a);
        ts_push(t, c);
        ts_push(t, b);
        ts_push(t, a);
        break;
    case OP_DUP2_X2:
        a = ts_pop(t);
        b = ts_pop(t);
        if (cat2(&a)) {
            if (cat2(&b)) {
                ts_push(t, a);
                ts_push(t, b);
                ts_push(t, a);
                break;
            }
            c = ts_pop(t);
            ts_push(t, a);
            ts_push(t, c);
            ts_push(t, b);
            ts_push(t, a);
            break;
        }
        c = ts_pop(t);
        if (cat2(&c)) {
            ts_push(t, b);
            ts_push(t, a);
            ts_push(t, c);
            ts_push(t, b);
            ts_push(t, a);
            break;
        }
        d = ts_pop(t);
        ts_push(t, b);
        ts_push(t, a);
        ts_push(t, d);
        ts_push(t, c);
        ts_push(t, b);
        ts_push(t, a);
        break;
    case OP_SWAP:
        a = ts_pop(t);
        b = ts_pop(t);
        ts_push(t, a);
        ts_push(t, b);
        break;
    }
}

/* nop .. ldc2_w */
static void step_const(ts_t *t, const uint8_t *q, unsigned op)
{
    switch (op) {
    case OP_NOP: break;
    case OP_ACONST_NULL: ts_push(t, vt_make(VT_NULL, 0)); break;
    case OP_LCONST_0:
    case OP_LCONST_1: ts_push(t, vt_make(VT_LONG, 0)); break;
    case OP_FCONST_0:
    case OP_FCONST_1:
    case OP_FCONST_2: ts_push(t, vt_make(VT_FLOAT, 0)); break;
    case OP_DCONST_0:
    case OP_DCONST_1: ts_push(t, vt_make(VT_DOUBLE, 0)); break;
    case OP_LDC: do_ldc(t, q[1]); break;
    case OP_LDC_W:
    case OP_LDC2_W: do_ldc(t, be_load_u2(q + 1)); break;
    default: ts_push(t, vt_make(VT_INTEGER, 0)); break; /* iconst_*, bipush, sipush */
    }
}

/* iaload .. saload */
static void step_array_load(ts_t *t, unsigned op)
{
    ts_pop(t);
    vt_t arr = ts_pop(t);
    if (op != OP_AALOAD) {
        static const uint8_t elem[8] = {VT_INTEGER, VT_LONG,    VT_FLOAT,   VT_DOUBLE,
                                        VT_TOP,     VT_INTEGER, VT_INTEGER, VT_INTEGER};
        ts_push(t, vt_make(elem[op - OP_IALOAD], 0));
        return;
    }
    if (arr.tag == VT_NULL) {
        ts_push(t, arr);
        return;
    }
    size_t n;
    const cf_class *c = t->M->c;
    const uint8_t *nm = arr.tag == VT_OBJECT ? cp_utf8_raw(c, be_load_u2(c->cp[arr.v].raw + 1), &n) : NULL;
    if (!nm || n < 2 || nm[0] != '[') {
        t->bad = 1;
        return;
    }
    ts_push(t, desc_vt(t, (const char *)nm + 1, n - 1, 0));
}

/* iload .. saload */
static void step_load(ts_t *t, const uint8_t *q, unsigned op)
{
    if (op == OP_ALOAD)
        ts_push(t, ts_load(t, q[1]));
    else if (op < OP_ALOAD) {
        (void)ts_load(t, q[1]);
        ts_push(t, vt_make(ilfd[op - OP_ILOAD], 0));
    } else if (op < OP_ALOAD_0)
        ts_push(t, vt_make(ilfd[(op - OP_ILOAD_0) / 4], 0));
    else if (op <= OP_ALOAD_3)
        ts_push(t, ts_load(t, op - OP_ALOAD_0));
    else
        step_array_load(t, op);
}

/* istore .. sastore */
static void step_store(ts_t *t, const uint8_t *q, unsigned op)
{
    if (op <= OP_ASTORE)
        ts_store(t, q[1], ts_pop(t));
    else if (op <= OP_ASTORE_3)
        ts_store(t, (op - OP_ISTORE_0) % 4, ts_pop(t));
    else
        ts_popn(t, 3);
}

/* iadd .. dcmpg */
static void step_math(ts_t *t, unsigned op)
{
    static const uint8_t conv[OP_I2S - OP_I2L + 1] = {
        VT_LONG,    VT_FLOAT,   VT_DOUBLE, /* i2l i2f i2d */
        VT_INTEGER, VT_FLOAT,   VT_DOUBLE, /* l2i l2f l2d */
        VT_INTEGER, VT_LONG,    VT_DOUBLE, /* f2i f2l f2d */
        VT_INTEGER, VT_LONG,    VT_FLOAT,  /* d2i d2l d2f */
        VT_INTEGER, VT_INTEGER, VT_INTEGER /* i2b i2c i2s */
    };
    if (op == OP_IINC) return;
    if (op < OP_INEG) {
        ts_popn(t, 2);
        ts_push(t, vt_make(ilfd[(op - OP_IADD) % 4], 0));
    } else if (op < OP_ISHL) {
        ts_pop(t);
        ts_push(t, vt_make(ilfd[op - OP_INEG], 0));
    } else if (op <= OP_LXOR) {
        ts_popn(t, 2);
        ts_push(t, vt_make(ilfd[(op - OP_ISHL) % 2], 0));
    } else if (op <= OP_I2S) {
        ts_pop(t);
        ts_push(t, vt_make(conv[op - OP_I2L], 0));
    } else {
        ts_popn(t, 2);
        ts_push(t, vt_make(VT_INTEGER, 0));
    }
}

/* anewarray: an array of the class at q[1..2], itself maybe an array. */
static void step_anewarray(ts_t *t, const uint8_t *q)
{
    const cf_class *c = t->M->c;
    ts_pop(t);
    uint32_t ci = be_load_u2(q + 1);
    size_t n;
    const uint8_t *nm = cp_is(c, ci, CP_CLASS) ? cp_utf8_raw(c, be_load_u2(c->cp[ci].raw + 1), &n) : NULL;
    if (!nm || n == 0 || n > 65000) {
        t->bad = 1;
        return;
    }
    char *buf = cf_arena_alloc(&t->M->c->ar, n + 3);
    if (!buf) {
        t->bad = 1;
        return;
    }
    size_t k = 0;
    buf[k++] = '[';
    if (nm[0] == '[') {
        memcpy(buf + k, nm, n);
        k += n;
    } else {
        buf[k++] = 'L';
        memcpy(buf + k, nm, n);
        k += n;
        buf[k++] = ';';
    }
    ts_push(t, class_vt(t, buf, k));
}

static void step_wide(ts_t *t, const uint8_t *q)
{
    unsigned op2 = q[1], n = be_load_u2(q + 2);
    if (op2 >= OP_ILOAD && op2 < OP_ALOAD) {
        (void)ts_load(t, n);
        ts_push(t, vt_make(ilfd[op2 - OP_ILOAD], 0));
    } else if (op2 == OP_ALOAD)
        ts_push(t, ts_load(t, n));
    else if (op2 >= OP_ISTORE && op2 <= OP_ASTORE)
        ts_store(t, n, ts_pop(t));
    else if (op2 != OP_IINC)
        t->bad = 1;
}

/* Pushes the class at q[1..2] (checkcast, multianewarray). */
static void push_class_operand(ts_t *t, const uint8_t *q)
{
    uint32_t ci = be_load_u2(q + 1);
    if (!cp_is(t->M->c, ci, CP_CLASS)) {
        t->bad = 1;
        return;
    }
    ts_push(t, vt_make(VT_OBJECT, (uint16_t)ci));
}

/* getstatic .. multianewarray */
static void step_object(ts_t *t, const insn_t *I, const uint8_t *q)
{
    static const char *const prim_arrays[T_LONG - T_BOOLEAN + 1] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
    size_t n;
    const char *d;
    switch (I->op) {
    case OP_GETFIELD: ts_pop(t); /* fall through */
    case OP_GETSTATIC:
        if ((d = ref_desc(t, be_load_u2(q + 1), &n))) ts_push(t, desc_vt(t, d, n, 0));
        break;
    case OP_PUTSTATIC: ts_pop(t); break;
    case OP_PUTFIELD: ts_popn(t, 2); break;
    case OP_INVOKEVIRTUAL:
    case OP_INVOKESPECIAL:
    case OP_INVOKEINTERFACE: do_invoke(t, be_load_u2(q + 1), 1, I->op == OP_INVOKESPECIAL); break;
    case OP_INVOKESTATIC:
    case OP_INVOKEDYNAMIC: do_invoke(t, be_load_u2(q + 1), 0, 0); break;
    case OP_NEW: ts_push(t, vt_make(VT_UNINIT, (uint16_t)I->off)); break;
    case OP_NEWARRAY:
        ts_pop(t);
        if (q[1] < T_BOOLEAN || q[1] > T_LONG) {
            t->bad = 1;
            break;
        }
        ts_push(t, class_vt(t, prim_arrays[q[1] - T_BOOLEAN], 2));
        break;
    case OP_ANEWARRAY: step_anewarray(t, q); break;
    case OP_ARRAYLENGTH:
    case OP_INSTANCEOF:
        ts_pop(t);
        ts_push(t, vt_make(VT_INTEGER, 0));
        break;
    case OP_CHECKCAST:
        ts_pop(t);
        push_class_operand(t, q);
        break;
    case OP_MONITORENTER:
    case OP_MONITOREXIT: ts_pop(t); break;
    case OP_WIDE: step_wide(t, q); break;
    case OP_MULTIANEWARRAY:
        ts_popn(t, q[3]);
        push_class_operand(t, q);
        break;
    default: t->bad = 1; /* athrow */
    }
}

/* Applies instruction I to the state. */
static void ts_step(ts_t *t, const insn_t *I)
{
    const uint8_t *q = t->M->code + I->off;
    unsigned op = I->op;
    if (op <= OP_LDC2_W)
        step_const(t, q, op);
    else if (op <= OP_SALOAD)
        step_load(t, q, op);
    else if (op <= OP_SASTORE)
        step_store(t, q, op);
    else if (op <= OP_SWAP)
        do_stackop(t, op);
    else if (op <= OP_DCMPG)
        step_math(t, op);
    else if (op <= OP_IFLE || op == OP_IFNULL || op == OP_IFNONNULL)
        ts_pop(t);
    else if (op <= OP_IF_ACMPNE)
        ts_popn(t, 2);
    else if (op >= OP_GETSTATIC && op <= OP_MULTIANEWARRAY)
        step_object(t, I, q);
    else
        t->bad = 1; /* goto, jsr, ret, switches, returns, goto_w, jsr_w */
}

/* The state, allocated once per method. */
static ts_t *infer_state(meth_t *M)
{
    if (M->memo) return M->memo;
    ts_t *tp = cf_arena_alloc(&M->c->ar, sizeof(ts_t));
    if (!tp) return NULL;
    tp->M = M;
    tp->cap = M->max_stack + 1;
    tp->loc = cf_arena_array(&M->c->ar, M->max_locals + 1, sizeof(vt_t));
    tp->stk = cf_arena_array(&M->c->ar, tp->cap, sizeof(vt_t));
    if (!tp->loc || !tp->stk) return NULL;
    M->memo = tp;
    M->memo_b = NONE;
    return tp;
}

/* Sets the state to frame f; 0 when its locals do not fit max_locals. */
static int ts_set(ts_t *t, const frame_t *f)
{
    memset(t->loc, 0, (t->M->max_locals + 1) * sizeof(vt_t));
    t->ns = 0;
    t->bad = 0;
    uint32_t s = 0;
    for (uint32_t i = 0; i < f->nl; i++) {
        vt_t v = f->l[i];
        uint32_t c = cat2(&v) ? 2 : 1;
        if ((uint64_t)s + c > t->M->max_locals) return 0;
        t->loc[s] = v;
        s += c;
    }
    for (uint32_t i = 0; i < f->ns; i++) ts_push(t, f->s[i]);
    return 1;
}

/* The state as a frame (trailing Top locals dropped). */
static frame_t *ts_frame(const ts_t *t)
{
    meth_t *M = t->M;
    frame_t *out = cf_arena_alloc(&M->c->ar, sizeof(frame_t));
    if (!out) return NULL;
    uint32_t nl = 0, last = 0;
    vt_t *l = cf_arena_array(&M->c->ar, M->max_locals + 1, sizeof(vt_t));
    vt_t *st = cf_arena_array(&M->c->ar, t->ns + 1, sizeof(vt_t));
    if (!l || !st) return NULL;
    for (uint32_t i = 0; i < M->max_locals; i += cat2(&t->loc[i]) ? 2 : 1) {
        l[nl++] = t->loc[i];
        if (t->loc[i].tag != VT_TOP) last = nl;
    }
    memcpy(st, t->stk, t->ns * sizeof(vt_t));
    out->l = l;
    out->nl = last;
    out->s = st;
    out->ns = t->ns;
    return out;
}

frame_t *cf_infer_after(meth_t *M, uint32_t b)
{
    ts_t *t = infer_state(M);
    if (!t) return NULL;
    uint32_t from;
    const frame_t *f = cf_frame_before(M, b, &from);
    uint32_t start = from;
    if (M->memo_b != NONE && M->memo_from == from && M->memo_b < b) {
        start = M->memo_b + 1; /* go on from the previous branch of the same stretch */
    } else if (!ts_set(t, f)) {
        M->memo_b = NONE;
        return NULL;
    }
    for (uint32_t i = start; i <= b && !t->bad; i++) ts_step(t, &M->in[i]);
    M->memo_from = from;
    M->memo_b = t->bad ? NONE : b;
    return t->bad ? NULL : ts_frame(t);
}
