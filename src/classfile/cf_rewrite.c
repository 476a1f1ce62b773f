/* SPDX-License-Identifier: Apache-2.0 */
/* cf_rewrite_method: one method's Code attribute rewritten with its hooks. Decode, plan
 * the hooks, lay out (widening branches), emit the new code, then assemble the Code
 * attribute with every table that holds code offsets remapped: the exception table (plus
 * the catch-all entry), the StackMapTable and the tables of cf_tables.c. */
#include <string.h>

#include "classfile/cf_code.h"

/* The conditional branch taken exactly when op's is not: ifeq <-> ifne, ..., ifnull <-> ifnonnull. */
static unsigned invert_cond(unsigned op)
{
    if (op == OP_IFNULL || op == OP_IFNONNULL) return op ^ 1u;
    return ((op - OP_IFEQ) ^ 1u) + OP_IFEQ;
}

/* A 16-bit branch, as it is, through its trampoline, or widened in place. */
static void emit_branch16(struct buf *b, const meth_t *M, const insn_t *I)
{
    int64_t d = (int64_t)M->in[I->tgt].start - I->at;
    if (I->widen == W_NONE) {
        buf_u1(b, I->op);
        buf_u2(b, (uint32_t)(uint16_t)(int16_t)d);
    } else if (I->widen == W_TRAMPOLINE) {
        buf_u1(b, I->op);
        buf_u2(b, (uint32_t)(uint16_t)(int16_t)((int64_t)M->tr[M->tr_slot[I->tr]].pos - I->at));
    } else if (I->op == OP_GOTO || I->op == OP_JSR) {
        buf_u1(b, I->op == OP_GOTO ? OP_GOTO_W : OP_JSR_W);
        buf_u4(b, (uint32_t)(int32_t)d);
    } else {
        buf_u1(b, invert_cond(I->op)); /* over the goto_w */
        buf_u2(b, 8);
        buf_u1(b, OP_GOTO_W);
        buf_u4(b, (uint32_t)(int32_t)(d - 3));
    }
}

/* A switch at its new offset: new padding, new offsets, keys and bounds as they were. */
static void emit_switch(struct buf *b, const meth_t *M, const insn_t *I)
{
    static const uint8_t zero[3] = {0, 0, 0};
    uint32_t base = I->off + 1 + swpad(I->off);
    buf_u1(b, I->op);
    buf_put(b, zero, swpad(I->at));
    buf_u4(b, (uint32_t)(int32_t)((int64_t)M->in[M->swt[I->sw]].start - I->at));
    if (I->kind == K_TSW) {
        buf_put(b, M->code + base + 4, 8);
        for (uint32_t j = 1; j < I->nsw; j++)
            buf_u4(b, (uint32_t)(int32_t)((int64_t)M->in[M->swt[I->sw + j]].start - I->at));
    } else {
        buf_put(b, M->code + base + 4, 4);
        for (uint32_t j = 1; j < I->nsw; j++) {
            buf_put(b, M->code + base + 8 + 8 * (j - 1), 4);
            buf_u4(b, (uint32_t)(int32_t)((int64_t)M->in[M->swt[I->sw + j]].start - I->at));
        }
    }
}

/* The island before instruction i, from trampoline *tcur on; 0 when off its layout. */
static int emit_island(struct buf *b, const meth_t *M, uint32_t i, uint32_t *tcur)
{
    const insn_t *I = &M->in[i];
    if (I->ntr) {
        if (b->len != I->island) return 0;
        if (I->skip) {
            buf_u1(b, OP_GOTO_W);
            buf_u4(b, 5 * (I->ntr + 1));
        }
    }
    for (; *tcur < M->ntr && M->tr[*tcur].host == i; ++*tcur) {
        const tramp_t *T = &M->tr[*tcur];
        if (b->len != T->pos) return 0;
        buf_u1(b, OP_GOTO_W);
        buf_u4(b, (uint32_t)(int32_t)((int64_t)M->in[T->tgt].start - T->pos));
    }
    return 1;
}

/* The new code; b->oom when something lands off the layout. */
static void emit_code(struct buf *b, const meth_t *M, const inject_t *P)
{
    cf_inject_prologue(b, P);
    uint32_t tcur = 0;
    for (uint32_t i = 0; i <= M->ninsn; i++) {
        const insn_t *I = &M->in[i];
        if (!emit_island(b, M, i, &tcur)) {
            b->oom = 1;
            return;
        }
        if (i == M->ninsn) break;
        if (I->pre) cf_inject_call(b, P, P->hooks[HOOK_RETURN]);
        if (b->len != I->at) {
            b->oom = 1;
            return;
        }
        switch (I->kind) {
        case K_BR16: emit_branch16(b, M, I); break;
        case K_BR32:
            buf_u1(b, I->op);
            buf_u4(b, (uint32_t)(int32_t)((int64_t)M->in[I->tgt].start - I->at));
            break;
        case K_TSW:
        case K_LSW: emit_switch(b, M, I); break;
        default: buf_put(b, M->code + I->off, I->len); break;
        }
        if (I->post) cf_inject_post(b, I, P->hooks);
    }
    if (b->len != M->body_end) b->oom = 1;
    if (M->epilogue) cf_inject_epilogue(b, P);
}

static void write_exc_table(struct buf *a, const meth_t *M, const inject_t *P)
{
    buf_u2(a, M->nexc + (M->epilogue ? 1 : 0));
    for (uint32_t i = 0; i < M->nexc; i++) {
        const uint8_t *e = M->exc + 8 * i;
        buf_u2(a, map_tgt(M, be_load_u2(e)));
        buf_u2(a, map_tgt(M, be_load_u2(e + 2)));
        buf_u2(a, map_tgt(M, be_load_u2(e + 4)));
        buf_u2(a, be_load_u2(e + 6));
    }
    if (M->epilogue) {
        buf_u2(a, M->in[P->cstart].start); /* the catch-all: to the end of the body */
        buf_u2(a, M->body_end);
        buf_u2(a, M->body_end);
        buf_u2(a, 0);
    }
}

/* The new StackMapTable (named name) into a. */
static int write_smt(struct buf *a, const meth_t *M, uint32_t name, const frame_t *handler)
{
    struct buf s;
    buf_init_limited(&s, 0x7FFFFFF0);
    int rc = cf_frames_encode(M, handler, &s);
    if (rc == 0) {
        buf_u2(a, name);
        buf_u4(a, (uint32_t)s.len);
        buf_put(a, s.data, s.len);
        if (s.oom) a->oom = 1;
    }
    buf_free(&s);
    return rc;
}

/* Attribute i of the Code attribute into a, remapped if it holds code offsets. */
static int write_attr(struct buf *a, const meth_t *M, uint32_t i, int kind)
{
    const cf_attr *at = &M->attrs[i];
    const uint8_t *data = at->data;
    if (kind != A_OTHER) {
        uint8_t *copy = cf_arena_alloc(&M->c->ar, at->len);
        if (!copy) return CF_ERR_NOMEM;
        memcpy(copy, at->data, at->len);
        if (cf_tables_remap(M, i, kind, copy) != CF_OK) return CF_BAD;
        data = copy;
    }
    buf_u2(a, at->name);
    buf_u4(a, at->len);
    buf_put(a, data, at->len);
    return 0;
}

/* The Code attribute's attributes; smt_name: when not 0, a StackMapTable is added. */
static int write_attrs(struct buf *a, const meth_t *M, uint32_t smt_name, const frame_t *handler)
{
    buf_u2(a, M->nattr + (smt_name ? 1 : 0));
    int rc = 0;
    for (uint32_t i = 0; i < M->nattr && rc == 0; i++) {
        int kind = cf_attr_kind(M, i);
        rc = kind == A_SMT ? write_smt(a, M, M->attrs[i].name, handler) : write_attr(a, M, i, kind);
    }
    if (rc == 0 && smt_name) rc = write_smt(a, M, smt_name, handler);
    return rc;
}

/* The Code attribute around code into a. */
static int code_attr(struct buf *a, meth_t *M, const inject_t *P, const struct buf *code)
{
    /* a method with frames, or a new handler in a version-50+ class, needs a StackMapTable */
    const int frames = M->smt >= 0;
    int need_smt = frames || (M->epilogue && M->c->major >= 50);
    uint32_t smt_name = 0, throwable = 0;
    if (need_smt && !frames && !(smt_name = cp_find_or_add_utf8(M->c, "StackMapTable"))) return CF_ERR_LIMIT;
    if (need_smt && M->epilogue && !(throwable = cp_find_or_add_class(M->c, "java/lang/Throwable", 19)))
        return CF_ERR_LIMIT;
    buf_u2(a, P->max_stack);
    buf_u2(a, M->max_locals);
    buf_u4(a, M->total);
    buf_put(a, code->data, code->len);
    if (M->nexc + (M->epilogue ? 1u : 0u) > 0xFFFF) return CF_M_UNREWRITABLE;
    write_exc_table(a, M, P);
    /* the catch-all handler's frame: no locals, the Throwable on the stack */
    vt_t handler_stack = vt_make(VT_OBJECT, (uint16_t)throwable);
    frame_t handler;
    memset(&handler, 0, sizeof(handler));
    handler.s = &handler_stack;
    handler.ns = 1;
    handler.full = 1;
    int rc = write_attrs(a, M, smt_name, M->epilogue ? &handler : NULL);
    if (rc == 0 && a->oom) rc = CF_M_UNREWRITABLE;
    return rc;
}

/* The method's Code attribute becomes a (copied into the arena). */
static int install(meth_t *M, const struct buf *a)
{
    uint8_t *data = cf_arena_alloc(&M->c->ar, a->len);
    if (!data) return CF_ERR_NOMEM;
    memcpy(data, a->data, a->len);
    M->m->attrs[M->m->code].data = data;
    M->m->attrs[M->m->code].len = (uint32_t)a->len;
    return 0;
}

static void count_sites(cf_result *res, const meth_t *M, const inject_t *P, unsigned widened)
{
    res->entry_sites += (unsigned)(P->entry && !P->leaf);
    res->leaf_sites += (unsigned)P->leaf;
    res->objinit_sites += (unsigned)P->objinit;
    res->return_sites += P->nret;
    res->newarray_sites += P->nnew;
    res->clone_sites += P->nclone;
    res->exc_exits += M->epilogue ? 1u : 0u;
    res->exc_exit_skipped += (unsigned)P->exc_skipped;
    res->widened += widened;
}

int cf_rewrite_method(cf_class *c, unsigned mi, unsigned mask, const cf_inject_spec *spec,
                      const uint32_t hooks[CF_HOOKS], cf_result *res)
{
    meth_t M;
    inject_t P;
    unsigned widened;
    int rc = cf_code_analyse(&M, c, mi, 0);
    if (rc != CF_OK) return rc;
    if ((rc = cf_inject_plan(&M, mask, spec, hooks, &P)) == CF_M_NOTHING)
        res->exc_exit_skipped += (unsigned)P.exc_skipped;
    if (rc != 0 || (rc = cf_layout_fit(&M, &P, spec->debug, &widened)) != 0) return rc;

    struct buf code, a;
    buf_init_limited(&code, 1u << 20);
    buf_init_limited(&a, 0x7FFFFFF0);
    emit_code(&code, &M, &P);
    rc = (code.oom || code.len != M.total) ? CF_M_UNREWRITABLE : code_attr(&a, &M, &P, &code);
    buf_free(&code);
    if (rc == 0) rc = install(&M, &a);
    buf_free(&a);
    if (rc == 0) rc = cf_sites_report(res, &M, &P);
    if (rc != 0) return rc;
    count_sites(res, &M, &P, widened);
    return CF_M_INSTRUMENTED;
}
