/* SPDX-License-Identifier: Apache-2.0 */
/* Injection points: which instructions get a hook and where, the code each hook call is,
 * and what it costs in bytes and stack.
 *   entry:      push cnum; push mnum; invokestatic entry       (prologue)
 *               or push cnum; push mnum; aload_0 | aconst_null; invokestatic entry
 *               (spec->entry_arg: this, the first parameter if a reference, else null)
 *   leaf:       push cnum; push mnum; invokestatic leaf        (prologue of a trivial method,
 *               in place of entry, return and exc exit: see cf_method_trivial)
 *   objinit:    aload_0; invokestatic objinit                  (prologue, Object.<init>)
 *               or aload_0; dup; invokevirtual getClass; invokestatic objinit
 *   return:     push cnum; push mnum; invokestatic return      (before each return opcode)
 *   newarray:   dup; invokestatic newarray                     (after each array allocation)
 *   clone:      dup; invokestatic clone or vclone              (after each call of clone)
 *   definer:    aload_0; invokestatic definer  (after ClassDefiner.defineClass's reads of
 *               its bytes: the bytes of a class, hidden or not, about to be defined)
 *   allocinst:  dup; push number; invokestatic allocinst or madeall (a site of kind
 *               CF_SITE_CALL after each call of Unsafe.allocateInstance, the other natives
 *               cf_sites_made names and, with them, of a clone() Object.clone surely runs)
 *   sites:      the allocation sites' hooks, after the above (cf_sites.c)
 *   exc exit:   push cnum; push mnum; invokestatic return; athrow   (epilogue: the handler
 *               of a catch-all over the body, in constructors from after super()/this()) */
#include <string.h>

#include "classfile/cf_code.h"

/* Bytes of the shortest push of int v (iconst, bipush, sipush or ldc_w). */
static uint32_t push_len(int32_t v)
{
    if (v >= -1 && v <= 5) return 1;
    if (v >= -128 && v <= 127) return 2;
    return 3;
}

/* Pushes v; ldc: an Integer constant holding v, for values past sipush. */
static void push_emit(struct buf *b, int32_t v, uint32_t ldc)
{
    if (v >= -1 && v <= 5)
        buf_u1(b, (uint32_t)(OP_ICONST_0 + v));
    else if (v >= -128 && v <= 127) {
        buf_u1(b, OP_BIPUSH);
        buf_u1(b, (uint32_t)(uint8_t)(int8_t)v);
    } else if (v >= -32768 && v <= 32767) {
        buf_u1(b, OP_SIPUSH);
        buf_u2(b, (uint32_t)(uint16_t)(int16_t)v);
    } else {
        buf_u1(b, OP_LDC_W);
        buf_u2(b, ldc);
    }
}

static void invokestatic(struct buf *b, uint32_t ref)
{
    buf_u1(b, OP_INVOKESTATIC);
    buf_u2(b, ref);
}

void cf_inject_call(struct buf *b, const inject_t *P, uint32_t hook)
{
    push_emit(b, P->cnum, P->hooks[HOOK_CNUM_INT]);
    push_emit(b, P->mnum, P->mldc);
    invokestatic(b, hook);
}

void cf_inject_prologue(struct buf *b, const inject_t *P)
{
    if (P->entry && P->entry_arg) {
        push_emit(b, P->cnum, P->hooks[HOOK_CNUM_INT]);
        push_emit(b, P->mnum, P->mldc);
        buf_u1(b, P->entry_arg);
        invokestatic(b, P->hooks[HOOK_ENTRY]);
    } else if (P->entry) {
        cf_inject_call(b, P, P->hooks[P->leaf ? HOOK_LEAF : HOOK_ENTRY]);
    }
    if (P->objinit) {
        buf_u1(b, OP_ALOAD_0);
        if (P->hooks[HOOK_GETCLASS]) { /* this, this.getClass() */
            buf_u1(b, OP_DUP);
            buf_u1(b, OP_INVOKEVIRTUAL);
            buf_u2(b, P->hooks[HOOK_GETCLASS]);
        }
        invokestatic(b, P->hooks[HOOK_OBJINIT]);
    }
}

void cf_inject_post(struct buf *b, const insn_t *I, const uint32_t *hooks)
{
    if (I->hook) {
        buf_u1(b, I->hook_this ? OP_ALOAD_0 : OP_DUP);
        invokestatic(b, I->hook);
    }
    if (I->skind) cf_sites_emit(b, I, hooks);
}

void cf_inject_epilogue(struct buf *b, const inject_t *P)
{
    cf_inject_call(b, P, P->hooks[HOOK_RETURN]);
    buf_u1(b, OP_ATHROW);
}

/* In a constructor, the instruction after the one super()/this() call, or NONE when the
 * constructor is not simple enough to put a catch-all after it safely. */
static uint32_t after_super_call(const meth_t *M)
{
    uint32_t depth = 0, count = 0, found = NONE;
    for (uint32_t i = 0; i < M->ninsn; i++) {
        const insn_t *I = &M->in[i];
        if (I->op == OP_NEW)
            depth++;
        else if (I->op == OP_INVOKESPECIAL) {
            uint32_t nm = cp_ref_name(M->c, be_load_u2(M->code + I->off + 1));
            if (cp_utf8_eq(M->c, nm, "<init>")) {
                if (depth)
                    depth--;
                else {
                    count++;
                    found = i;
                }
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
        if (M->idx[be_load_u2(e)] <= found && M->idx[be_load_u2(e + 4)] > found) return NONE;
    }
    for (uint32_t k = 0; k < M->nframes; k++) {
        if (M->fr[k].idx <= found) continue;
        for (uint32_t j = 0; j < M->fr[k].nl; j++)
            if (M->fr[k].l[j].tag == VT_UNINIT_THIS) return NONE;
    }
    return found + 1;
}

/* Whether instruction i of M may jump back to itself or an earlier one (a loop). */
static int branches_back(const meth_t *M, uint32_t i)
{
    const insn_t *I = &M->in[i];
    if ((I->kind == K_BR16 || I->kind == K_BR32) && I->tgt <= i) return 1;
    for (uint32_t j = 0; j < I->nsw; j++)
        if (M->swt[I->sw + j] <= i) return 1;
    return 0;
}

/*
 * The one rule for a trivial method, which cpu=times counts on every call but does not
 * time on its own (its time goes to its caller, as part of the caller's own): at most
 * CF_TRIVIAL_MAX_CODE bytes of code, not synchronized, and nothing in it that calls,
 * loops, allocates, waits for a monitor or jumps to a subroutine. Such a method runs
 * each of its instructions at most once, so its time is bounded by its size: a few
 * nanoseconds, less than the two clock reads it would take to time it. (What the JVM
 * may run on its behalf, class loading and initialisation at its first run or the
 * constructor of an exception it throws, is then seen as called by its caller.)
 */
static int cf_method_trivial(const meth_t *M)
{
    if (M->code_len > CF_TRIVIAL_MAX_CODE || (M->m->access & ACC_SYNCHRONIZED)) return 0;
    for (uint32_t i = 0; i < M->ninsn; i++) {
        uint8_t op = M->in[i].op;
        if ((op >= OP_INVOKEVIRTUAL && op <= OP_ANEWARRAY) || op == OP_MULTIANEWARRAY || op == OP_JSR ||
            op == OP_JSR_W || op == OP_RET || op == OP_MONITORENTER || op == OP_MONITOREXIT || branches_back(M, i))
            return 0;
    }
    return 1;
}

enum { CLONE_NONE, CLONE_OBJECT, CLONE_VIRTUAL };

/* Whether instruction I calls clone()Ljava/lang/Object;: CLONE_OBJECT when it surely runs
 * Object.clone (invokespecial java/lang/Object, as super.clone() does, or invokevirtual on
 * an array class, which cannot override it), CLONE_VIRTUAL for any other invokevirtual of
 * it (an override may run instead). */
static int clone_call(const meth_t *M, const insn_t *I)
{
    if (I->op != OP_INVOKEVIRTUAL && I->op != OP_INVOKESPECIAL) return CLONE_NONE;
    uint32_t ref = be_load_u2(M->code + I->off + 1);
    if (!cp_ref_is(M->c, ref, "clone", "()Ljava/lang/Object;")) return CLONE_NONE;
    uint32_t cls = cp_ref_class_name(M->c, ref);
    if (!cls) return CLONE_NONE;
    if (I->op == OP_INVOKESPECIAL) return cp_utf8_eq(M->c, cls, "java/lang/Object") ? CLONE_OBJECT : CLONE_NONE;
    size_t n;
    const uint8_t *name = cp_utf8_raw(M->c, cls, &n);
    return n > 0 && name[0] == '[' ? CLONE_OBJECT : CLONE_VIRTUAL;
}

/* What the entry hook of spec->entry_arg gets: `this` (an instance method other than a
 * constructor, whose `this` is not initialised yet), the first parameter of a static
 * method when it is a reference, else null. */
static uint8_t entry_arg_op(const meth_t *M)
{
    const char *d = M->m->sdesc;
    if (!(M->m->access & ACC_STATIC)) return strcmp(M->m->sname, "<init>") == 0 ? OP_ACONST_NULL : OP_ALOAD_0;
    return d[0] == '(' && (d[1] == 'L' || d[1] == '[') ? OP_ALOAD_0 : OP_ACONST_NULL;
}

/* Gives the returns their pre blob and the allocations, clone and allocateInstance calls
 * their post blob; numbers the allocation sites. 0 or a CF_ERR_*. */
static int mark_sites(meth_t *M, unsigned mask, const cf_inject_spec *spec, inject_t *P)
{
    for (uint32_t i = 0; i < M->ninsn; i++) {
        insn_t *I = &M->in[i];
        if ((mask & CF_INJ_RETURN) && I->op >= OP_IRETURN && I->op <= OP_RETURN) {
            I->pre = P->call2;
            P->nret++;
        }
        if ((mask & CF_INJ_NEWARRAY) && (I->op == OP_NEWARRAY || I->op == OP_ANEWARRAY || I->op == OP_MULTIANEWARRAY)) {
            I->post = 4;
            I->hook = P->hooks[HOOK_NEWARRAY];
            P->nnew++;
        }
        /* A copy Object.clone surely made is one the VM made: with the natives' hooks
         * on, its call is one of theirs. */
        int made = (mask & CF_INJ_ALLOCINST) ? cf_sites_made(M, I) : MADE_NONE;
        int clone = (mask & (CF_INJ_CLONE | CF_INJ_ALLOCINST)) ? clone_call(M, I) : CLONE_NONE;
        if ((mask & CF_INJ_ALLOCINST) && clone == CLONE_OBJECT) {
            made = MADE_ONE;
            clone = CLONE_NONE;
        }
        if (clone == CLONE_OBJECT && !P->hooks[HOOK_CLONE]) clone = CLONE_NONE; /* no clone_name */
        if (clone != CLONE_NONE && (mask & CF_INJ_CLONE)) {
            I->post = 4;
            I->hook = P->hooks[clone == CLONE_OBJECT ? HOOK_CLONE : HOOK_VCLONE];
            P->nclone++;
        }
        if ((mask & CF_INJ_DEFINER) && cf_sites_definer(M, I)) {
            I->post = 4;
            I->hook = P->hooks[HOOK_DEFINER];
            I->hook_this = 1;
            P->ndefine++;
        }
        if (made != MADE_NONE) {
            int rc = cf_sites_mark_call(M, I, made, spec, P);
            if (rc < 0) return rc;
            continue;
        }
        int rc = (mask & CF_INJ_SITES) ? cf_sites_mark(M, I, spec, P) : 0;
        if (rc < 0) return rc;
    }
    return 0;
}

/* Where the catch-all starts (P->cstart), or why there is none (P->exc_skipped). */
static void plan_exc_exit(const meth_t *M, inject_t *P)
{
    int is_init = strcmp(M->m->sname, "<init>") == 0;
    if (is_init && strcmp(M->c->name, "java/lang/Object") == 0) {
        /* Object.<init> holds nothing that throws, and HotSpot's C2 crashes compiling it
         * with a handler (seen on JDK 17): never wrap it. */
        P->exc_skipped = 1;
    } else if (is_init) {
        P->cstart = after_super_call(M);
        P->split = P->cstart;
        if (P->cstart == NONE) P->exc_skipped = 1;
    } else {
        P->cstart = 0;
    }
}

int cf_inject_plan(meth_t *M, unsigned mask, const cf_inject_spec *spec, const uint32_t hooks[CF_HOOKS], inject_t *P)
{
    memset(P, 0, sizeof(*P));
    P->hooks = hooks;
    P->cnum = (int32_t)spec->cnum;
    P->mnum = (int32_t)(M->m - M->c->methods); /* the method's index */
    P->cstart = P->split = NONE;
    if (P->mnum > 32767 && !(P->mldc = cp_find_or_add_int(M->c, P->mnum))) return CF_ERR_LIMIT;
    P->call2 = push_len(P->cnum) + push_len(P->mnum) + 3;

    P->entry = (mask & CF_INJ_ENTRY) != 0;
    P->entry_arg = P->entry && spec->entry_arg ? entry_arg_op(M) : 0;
    P->leaf = P->entry && !P->entry_arg && hooks[HOOK_LEAF] && cf_method_trivial(M);
    if (P->leaf) mask &= ~(unsigned)(CF_INJ_RETURN | CF_INJ_EXC_EXIT);
    P->objinit = (mask & CF_INJ_OBJINIT) && strcmp(M->m->sname, "<init>") == 0;
    int rc = mark_sites(M, mask, spec, P);
    if (rc < 0) return rc;
    bool with_class = hooks[HOOK_GETCLASS] != 0; /* objinit: this, this.getClass() */
    M->prologue = (P->entry ? P->call2 + (P->entry_arg ? 1 : 0) : 0) + (P->objinit ? (with_class ? 8 : 4) : 0);
    if (mask & CF_INJ_EXC_EXIT) {
        plan_exc_exit(M, P);
        if (P->cstart != NONE) M->epilogue = P->call2 + 1;
    }
    if (!M->prologue && !P->nret && !P->nnew && !P->nclone && !P->ndefine && !P->nsite && !M->epilogue)
        return CF_M_NOTHING;

    /* the hooks' arguments on top of what the method itself keeps on the stack */
    uint32_t extra = P->nret ? 2 : (P->nnew + P->nclone + P->ndefine) ? 1 : 0;
    if (P->site_extra > extra) extra = P->site_extra;
    uint32_t ms = M->max_stack + extra;
    if (P->entry && ms < (P->entry_arg ? 3u : 2u)) ms = P->entry_arg ? 3 : 2;
    if (P->objinit && ms < (with_class ? 2u : 1u)) ms = with_class ? 2 : 1;
    if (M->epilogue && ms < 3) ms = 3;
    if (ms > 65535u) return CF_M_UNREWRITABLE;
    P->max_stack = ms;
    return 0;
}
