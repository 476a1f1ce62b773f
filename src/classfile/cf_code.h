/* SPDX-License-Identifier: Apache-2.0 */
/* The code layer: one method's Code attribute, decoded, laid out again with hooks, written.
 *
 * Files, each calling only the ones after it:
 *   cf_rewrite.c  cf_rewrite_method: the steps below, then the new code and Code attribute
 *   cf_inject.c   where hooks go and the bytes of each hook call
 *   cf_sites.c    allocation sites: their numbers, hooks and the result's list of them
 *   cf_layout.c   new offsets; 16-bit branches that no longer fit, widened
 *   cf_infer.c    the type state after a branch, for one widened by inversion
 *   cf_decode.c   decoding and checking a Code attribute (also cf_check_code)
 *   cf_frames.c   StackMapTable: decoding to full frames, lookups, encoding
 *   cf_tables.c   the other attributes with code offsets: checking and remapping
 *
 * Model. The instructions are decoded into a table (meth_t.in). Each may get a "pre" blob
 * (the return hook, before a return opcode: branches to the return land on the blob) and
 * a "post" blob (dup + a hook after an array allocation, a call of clone or of
 * allocateInstance, then an allocation site's hook). The entry
 * hook is a prologue before the first instruction; the exception exit an epilogue after
 * the last one. Islands of goto_w trampolines may stand before instructions (cf_layout.c).
 */
#ifndef HPROF_CF_CODE_H
#define HPROF_CF_CODE_H

#include "classfile/cf_internal.h"
#include "classfile/cf_opcodes.h"

#define NONE 0xFFFFFFFFu

/* Verification types (StackMapTable verification_type_info tags). VT_VOID is ours: the
 * "type" of a V return descriptor. */
enum {
    VT_TOP,
    VT_INTEGER,
    VT_FLOAT,
    VT_DOUBLE,
    VT_LONG,
    VT_NULL,
    VT_UNINIT_THIS,
    VT_OBJECT,
    VT_UNINIT,
    VT_VOID = 0xFF
};
typedef struct {
    uint8_t tag;
    uint16_t v;
} vt_t; /* v: Class index (VT_OBJECT) or the old
                                                     offset of the `new` (VT_UNINIT) */
static inline vt_t vt_make(uint8_t tag, uint16_t v)
{
    vt_t x;
    x.tag = tag;
    x.v = v;
    return x;
}
static inline int cat2(const vt_t *v) { return v->tag == VT_DOUBLE || v->tag == VT_LONG; }

/* A full frame at instruction idx: nl locals (a Long/Double is one entry), ns stack
 * entries. full: always encoded as a full_frame (the catch-all handler's). */
typedef struct frame_s {
    uint32_t idx, nl, ns, full;
    vt_t *l, *s;
} frame_t;

enum { K_PLAIN, K_BR16, K_BR32, K_TSW, K_LSW }; /* insn_t.kind */
enum { W_NONE, W_INPLACE, W_TRAMPOLINE };       /* insn_t.widen */

typedef struct {
    uint32_t off, len; /* in the old code */
    uint8_t op, kind, widen;
    uint32_t tgt;     /* branch target: instruction index */
    uint32_t sw, nsw; /* switch targets: M->swt[sw .. sw+nsw), default first */
    /* layout */
    uint32_t pre, post, size, start, at; /* start: of the pre blob; at: of the instruction */
    uint32_t hook;                       /* the Methodref the post blob calls, or 0 */
    uint8_t hook_this;                   /* it takes the value on top and `this` (not a dup) */
    /* an allocation site (cf_sites.c): skind CF_SITE_* or 0; its number, the Integer
       holding it past sipush, its element code (arrays), dimensions and type */
    uint8_t skind, scode;
    int32_t snum;
    uint32_t sldc, sdims;
    const char *stype;
    uint32_t ntr, skip, island; /* island before this instruction: ntr trampolines, after a
                                    goto_w over them when skip; island: its offset */
    uint32_t tr;                /* trampoline used (W_TRAMPOLINE) */
    frame_t *nf;                /* inferred frame after an inverted branch (W_INPLACE, with frames) */
} insn_t;

/* A goto_w in the island before instruction host, to instruction tgt; order: creation. */
typedef struct {
    uint32_t host, tgt, pos, order;
} tramp_t;

struct cf_infer_state;

typedef struct {
    cf_class *c;
    cf_method *m;
    int readonly; /* add nothing to the constant pool (only checking) */
    uint32_t max_stack, max_locals, code_len;
    const uint8_t *code;
    uint32_t nexc;
    const uint8_t *exc; /* nexc entries of 8 bytes */
    uint32_t nattr;
    cf_attr *attrs;
    int smt; /* index of StackMapTable in attrs, or -1 */
    uint32_t ninsn;
    insn_t *in;    /* ninsn + 1: in[ninsn] is a sentinel that only holds an island */
    uint32_t *idx; /* for each code byte, the instruction containing it */
    uint32_t *swt;
    frame_t init; /* the frame the descriptor implies */
    uint32_t nframes;
    frame_t *fr; /* the StackMapTable's frames, by instruction */
    /* layout */
    uint32_t prologue, epilogue, body_end, total;
    tramp_t *tr; /* sorted by host once the layout is final */
    uint32_t ntr, trcap;
    uint32_t *tr_slot; /* tr_slot[order]: where trampoline `order` went in tr */
    /* frame inference: the state after instruction memo_b, run from the frame at memo_from */
    struct cf_infer_state *memo;
    uint32_t memo_from, memo_b;
} meth_t;

/* What cf_inject.c plans for one method, and the values its hook calls push. */
typedef struct {
    const uint32_t *hooks; /* HOOK_* */
    int32_t cnum, mnum;
    uint32_t mldc;  /* Integer for mnum when it does not fit sipush */
    uint32_t call2; /* bytes of "push cnum; push mnum; invokestatic" */
    int entry, objinit, exc_skipped;
    int leaf;          /* a trivial method: the leaf hook at entry, nothing at exits */
    uint8_t entry_arg; /* spec->entry_arg: the opcode pushing the entry hook's object, else 0 */
    unsigned nret, nnew, nclone, nsite;
    unsigned ndefine;    /* class definers' hooks (post blobs like a clone's) */
    uint32_t site_extra; /* stack the site hooks take above an allocation's result */
    uint32_t cstart;     /* first instruction the catch-all covers, or NONE */
    uint32_t split;      /* in a constructor, cstart: no island may serve across it */
    uint32_t max_stack;
} inject_t;

/* ---- Small helpers on the decoded code. ---------------------------------------------- */

static inline int32_t s32(const uint8_t *p) { return (int32_t)be_load_u4(p); }
static inline uint32_t swpad(uint32_t pc) { return (4 - ((pc + 1) & 3)) & 3; } /* switch padding */

static inline int is_start(const meth_t *M, int64_t off)
{
    return off >= 0 && off < (int64_t)M->code_len && M->in[M->idx[off]].off == (uint32_t)off;
}

/* Old code offsets to new ones (valid after layout): the start of the instruction's blobs,
 * the same but 0 kept at 0 (so an entry hook stays inside ranges from 0), the instruction
 * itself. Offsets at or past the end map to the end of the body. */
static inline uint32_t map_tgt(const meth_t *M, uint32_t old)
{
    return old >= M->code_len ? M->body_end : M->in[M->idx[old]].start;
}
static inline uint32_t map_start(const meth_t *M, uint32_t old) { return old == 0 ? 0 : map_tgt(M, old); }
static inline uint32_t map_insn(const meth_t *M, uint32_t old)
{
    return old >= M->code_len ? M->body_end : M->in[M->idx[old]].at;
}

/* The verification type of primitive descriptor letter ch, or -1. */
static inline int prim_tag(char ch)
{
    switch (ch) {
    case 'B':
    case 'C':
    case 'I':
    case 'S':
    case 'Z': return VT_INTEGER;
    case 'F': return VT_FLOAT;
    case 'D': return VT_DOUBLE;
    case 'J': return VT_LONG;
    default: return -1;
    }
}

/* The end of the field descriptor at d[i..n) (after its ';' or its letter), or 0 when it
 * runs out; *elem is set to the index of its element type (past the '['s). The letter of
 * a primitive is not checked. */
static inline size_t desc_end(const char *d, size_t i, size_t n, size_t *elem)
{
    while (i < n && d[i] == '[') i++;
    *elem = i;
    if (i >= n) return 0;
    if (d[i] != 'L') return i + 1;
    const char *semi = memchr(d + i, ';', n - i);
    return semi ? (size_t)(semi - d) + 1 : 0;
}

/* ---- Across the code layer. Steps of cf_rewrite_method return 0 to go on, else the
 *      method's final answer: a CF_M_* status (> 0) or a CF_ERR_* (< 0). ------------- */

/* cf_decode.c: decodes and checks method mi into *M (zeroed first). readonly: only check,
 * adding nothing to the constant pool. CF_OK or CF_ERR_*. */
int cf_code_analyse(meth_t *M, cf_class *c, unsigned mi, int readonly);

/* cf_frames.c */
int cf_frames_decode(meth_t *M);
const frame_t *cf_frame_at(const meth_t *M, uint32_t idx); /* NULL: no frame there */
/* The last frame at or before instruction idx (the initial frame if none); *at: its index. */
const frame_t *cf_frame_before(const meth_t *M, uint32_t idx, uint32_t *at);
/* The new StackMapTable body into *s: the old frames, one per trampoline, one per inverted
 * branch, and handler (when not NULL) at body_end. */
int cf_frames_encode(const meth_t *M, const frame_t *handler, struct buf *s);

/* cf_tables.c */
enum { A_OTHER, A_LNT, A_LVT, A_TA, A_SMT, A_CRT };
int cf_attr_kind(const meth_t *M, uint32_t i);
int cf_tables_check(const meth_t *M);
/* Patches the code offsets in copy, a copy of attribute i of kind A_LNT/LVT/CRT/TA. */
int cf_tables_remap(const meth_t *M, uint32_t i, int kind, uint8_t *copy);

/* cf_infer.c: the frame right after the conditional branch at instruction b, or NULL. */
frame_t *cf_infer_after(meth_t *M, uint32_t b);

/* cf_layout.c: lays the code out until every branch fits; counts the widened branches. */
int cf_layout_fit(meth_t *M, const inject_t *P, unsigned debug, unsigned *widened);

/* cf_inject.c */
/* Plans the hooks of method M->m: its blobs' sizes, prologue, epilogue, max_stack. */
int cf_inject_plan(meth_t *M, unsigned mask, const cf_inject_spec *spec, const uint32_t hooks[CF_HOOKS], inject_t *P);
void cf_inject_call(struct buf *b, const inject_t *P, uint32_t hook); /* push cnum, mnum; call */
void cf_inject_prologue(struct buf *b, const inject_t *P);
void cf_inject_post(struct buf *b, const insn_t *I, const uint32_t *hooks);
void cf_inject_epilogue(struct buf *b, const inject_t *P);

/* cf_sites.c */
/* Numbers I when it allocates and the spec hooks its kind: its site fields, post blob, the
 * plan's counts. 0, or CF_ERR_LIMIT / CF_ERR_NOMEM when no Integer could hold the number. */
int cf_sites_mark(meth_t *M, insn_t *I, const cf_inject_spec *spec, inject_t *P);
/* Whether I calls a JDK native that returns an object the VM made (Unsafe.allocateInstance,
 * Array.newArray, ...): MADE_ONE; one whose result holds more objects it made: MADE_ALL. */
int cf_sites_made(const meth_t *M, const insn_t *I);
/* Numbers I, a call whose result the VM made (made: MADE_ONE or MADE_ALL), as a site of
 * kind CF_SITE_CALL with the hook after it; as cf_sites_mark. */
int cf_sites_mark_call(meth_t *M, insn_t *I, int made, const cf_inject_spec *spec, inject_t *P);
/* Whether I reads the bytes of the class MethodHandles.Lookup is about to define
 * (getfield ClassDefiner.bytes in its defineClass(ZLjava/lang/Object;)). */
int cf_sites_definer(const meth_t *M, const insn_t *I);
void cf_sites_emit(struct buf *b, const insn_t *I, const uint32_t *hooks); /* the site blob */
/* Appends the method's hooked sites, with their final offsets, to res->sites. */
int cf_sites_report(cf_result *res, const meth_t *M, const inject_t *P);

#endif
