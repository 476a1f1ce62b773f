/* SPDX-License-Identifier: Apache-2.0 */
/* StackMapTable: decoding into full frames (the descriptor gives the initial one), finding
 * the frame at or before an instruction, and encoding frames at new offsets again, each in
 * the most compact form. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_code.h"

/* StackMapTable frame types (JVMS 4.7.4). */
enum {
    SMF_SAME_MAX = 63, /* same_frame: 0..63, the type is the delta */
    SMF_SAME1 = 64,    /* same_locals_1_stack_item: 64..127, delta = type - 64 */
    SMF_SAME1_MAX = 127,
    SMF_SAME1_EXT = 247,
    SMF_CHOP = 248, /* 248..250: chop 3..1 locals */
    SMF_SAME_EXT = 251,
    SMF_APPEND = 252, /* 252..254: append 1..3 locals */
    SMF_FULL = 255
};

/* The class vt of d[0..n) (an array descriptor or a bare class name); with M->readonly the
 * pool is left alone and the index is 0. */
static int class_of(meth_t *M, const char *d, size_t n, vt_t *v)
{
    v->tag = VT_OBJECT;
    if (!M->readonly && !(v->v = (uint16_t)cp_find_or_add_class(M->c, d, n))) return CF_ERR_LIMIT;
    return CF_OK;
}

/* The frame before the first instruction: this (uninitialised in a constructor other than
 * Object's) and the parameters. */
static int init_frame(meth_t *M)
{
    const char *d = M->m->sdesc;
    size_t dl = strlen(d);
    M->init.l = cf_arena_array(&M->c->ar, dl + 1, sizeof(vt_t));
    if (!M->init.l) return CF_ERR_NOMEM;
    uint32_t n = 0;
    if (!(M->m->access & ACC_STATIC)) {
        if (strcmp(M->m->sname, "<init>") == 0 && strcmp(M->c->name, "java/lang/Object") != 0)
            M->init.l[n++].tag = VT_UNINIT_THIS;
        else
            M->init.l[n++] = vt_make(VT_OBJECT, M->c->this_idx);
    }
    if (d[0] != '(') return CF_BAD;
    size_t i = 1;
    while (i < dl && d[i] != ')') {
        size_t e, end = desc_end(d, i, dl, &e);
        if (!end || (d[e] != 'L' && prim_tag(d[e]) < 0)) return CF_BAD;
        vt_t v = vt_make(VT_TOP, 0);
        int rc = CF_OK;
        if (e > i)
            rc = class_of(M, d + i, end - i, &v); /* an array */
        else if (d[e] == 'L')
            rc = class_of(M, d + i + 1, end - i - 2, &v);
        else
            v.tag = (uint8_t)prim_tag(d[e]);
        if (rc != CF_OK) return rc;
        M->init.l[n++] = v;
        i = end;
    }
    if (i >= dl) return CF_BAD;
    M->init.nl = n;
    return CF_OK;
}

static int read_vts(meth_t *M, cf_rd *r, vt_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag = rd_u1(r);
        v[i].tag = (uint8_t)tag;
        v[i].v = 0;
        if (tag > VT_UNINIT) return CF_BAD;
        if (tag == VT_OBJECT) {
            v[i].v = (uint16_t)rd_u2(r);
            if (!cp_is(M->c, v[i].v, CP_CLASS)) return CF_BAD;
        } else if (tag == VT_UNINIT) {
            v[i].v = (uint16_t)rd_u2(r);
            if (!is_start(M, v[i].v)) return CF_BAD;
        }
    }
    return r->bad ? CF_ERR_FORMAT : CF_OK;
}

/* Reads the frame after prev into f; *delta: its offset delta. */
static int read_frame(meth_t *M, cf_rd *r, const frame_t *prev, frame_t *f, uint32_t *delta)
{
    uint32_t ft = rd_u1(r), cnt;
    int rc;
    f->l = prev->l;
    f->nl = prev->nl;
    f->ns = 0;
    if (ft <= SMF_SAME_MAX) {
        *delta = ft;
    } else if (ft <= SMF_SAME1_MAX || ft == SMF_SAME1_EXT) {
        *delta = ft <= SMF_SAME1_MAX ? ft - SMF_SAME1 : rd_u2(r);
        f->ns = 1;
    } else if (ft < SMF_SAME1_EXT) {
        return CF_BAD; /* reserved */
    } else if (ft < SMF_SAME_EXT) {
        *delta = rd_u2(r);
        cnt = SMF_SAME_EXT - ft;
        if (prev->nl < cnt) return CF_BAD;
        f->nl = prev->nl - cnt;
    } else if (ft == SMF_SAME_EXT) {
        *delta = rd_u2(r);
    } else if (ft < SMF_FULL) {
        *delta = rd_u2(r);
        cnt = ft - SMF_SAME_EXT;
        f->nl = prev->nl + cnt;
        f->l = cf_arena_array(&M->c->ar, f->nl, sizeof(vt_t));
        if (!f->l) return CF_ERR_NOMEM;
        if (prev->nl) memcpy(f->l, prev->l, prev->nl * sizeof(vt_t));
        if ((rc = read_vts(M, r, f->l + prev->nl, cnt)) != CF_OK) return rc;
    } else {
        *delta = rd_u2(r);
        f->nl = rd_u2(r);
        if (r->bad || f->nl > r->n - r->i) return CF_BAD;
        f->l = cf_arena_array(&M->c->ar, f->nl ? f->nl : 1, sizeof(vt_t));
        if (!f->l) return CF_ERR_NOMEM;
        if ((rc = read_vts(M, r, f->l, f->nl)) != CF_OK) return rc;
        f->ns = rd_u2(r);
        if (r->bad || f->ns > r->n - r->i) return CF_BAD;
    }
    if (f->ns) {
        f->s = cf_arena_array(&M->c->ar, f->ns, sizeof(vt_t));
        if (!f->s) return CF_ERR_NOMEM;
        if ((rc = read_vts(M, r, f->s, f->ns)) != CF_OK) return rc;
    }
    return r->bad ? CF_BAD : CF_OK;
}

int cf_frames_decode(meth_t *M)
{
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
        uint32_t delta;
        if ((rc = read_frame(M, &r, prev, f, &delta)) != CF_OK) return rc;
        off = off + delta + 1;
        if (!is_start(M, off)) return CF_BAD;
        f->idx = M->idx[off];
        prev = f;
    }
    if (r.i != r.n) return CF_BAD;
    return CF_OK;
}

/* The number of frames at instructions before idx. */
static uint32_t frames_before(const meth_t *M, uint32_t idx)
{
    uint32_t lo = 0, hi = M->nframes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (M->fr[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const frame_t *cf_frame_at(const meth_t *M, uint32_t idx)
{
    uint32_t k = frames_before(M, idx);
    return (k < M->nframes && M->fr[k].idx == idx) ? &M->fr[k] : NULL;
}

const frame_t *cf_frame_before(const meth_t *M, uint32_t idx, uint32_t *at)
{
    uint32_t k = frames_before(M, idx + 1);
    *at = k ? M->fr[k - 1].idx : 0;
    return k ? &M->fr[k - 1] : &M->init;
}

/* ---- Encoding ------------------------------------------------------------------------- */

/* A frame at a new offset; prio orders frames at the same one (0, an original, first). */
typedef struct {
    uint32_t pos, prio;
    const frame_t *f;
} pframe_t;

static int cmp_pframe(const void *a, const void *b)
{
    const pframe_t *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->prio < y->prio ? -1 : x->prio > y->prio;
}

static int vt_eq(const vt_t *a, const vt_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].tag != b[i].tag || a[i].v != b[i].v) return 0;
    return 1;
}

static void put_vts(struct buf *b, const meth_t *M, const vt_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        buf_u1(b, v[i].tag);
        if (v[i].tag == VT_OBJECT)
            buf_u2(b, v[i].v);
        else if (v[i].tag == VT_UNINIT)
            buf_u2(b, map_insn(M, v[i].v));
    }
}

/* Writes f, the frame after prev, at offset delta past it. */
static void encode_frame(struct buf *b, const meth_t *M, const frame_t *prev, const frame_t *f, uint32_t delta)
{
    int same = !f->full && f->nl == prev->nl && vt_eq(f->l, prev->l, f->nl);
    if (same && f->ns == 0) {
        if (delta <= SMF_SAME_MAX)
            buf_u1(b, delta);
        else {
            buf_u1(b, SMF_SAME_EXT);
            buf_u2(b, delta);
        }
    } else if (same && f->ns == 1) {
        if (delta <= SMF_SAME_MAX)
            buf_u1(b, SMF_SAME1 + delta);
        else {
            buf_u1(b, SMF_SAME1_EXT);
            buf_u2(b, delta);
        }
        put_vts(b, M, f->s, 1);
    } else if (!f->full && f->ns == 0 && f->nl > prev->nl && f->nl - prev->nl <= 3 && vt_eq(f->l, prev->l, prev->nl)) {
        buf_u1(b, SMF_SAME_EXT + (f->nl - prev->nl));
        buf_u2(b, delta);
        put_vts(b, M, f->l + prev->nl, f->nl - prev->nl);
    } else if (!f->full && f->ns == 0 && f->nl < prev->nl && prev->nl - f->nl <= 3 && vt_eq(f->l, prev->l, f->nl)) {
        buf_u1(b, SMF_SAME_EXT - (prev->nl - f->nl));
        buf_u2(b, delta);
    } else {
        buf_u1(b, SMF_FULL);
        buf_u2(b, delta);
        buf_u2(b, f->nl);
        put_vts(b, M, f->l, f->nl);
        buf_u2(b, f->ns);
        put_vts(b, M, f->s, f->ns);
    }
}

/* Every frame the new code needs, by new offset, one per offset. */
static pframe_t *collect_frames(const meth_t *M, const frame_t *handler, uint32_t *count)
{
    uint32_t n = M->nframes + M->ntr + (handler ? 1 : 0);
    for (uint32_t j = 0; j < M->ninsn; j++) n += M->in[j].nf != NULL;
    pframe_t *pf = cf_arena_array(&M->c->ar, n ? n : 1, sizeof(pframe_t));
    if (!pf) return NULL;
    uint32_t k = 0;
    for (uint32_t j = 0; j < M->nframes; j++) {
        pf[k].pos = M->in[M->fr[j].idx].start;
        pf[k++].f = &M->fr[j];
    }
    for (uint32_t j = 0; j < M->ntr; j++) {
        pf[k].pos = M->tr[j].pos;
        pf[k].prio = 1;
        pf[k++].f = cf_frame_at(M, M->tr[j].tgt);
    }
    for (uint32_t j = 0; j < M->ninsn; j++) /* after "if<!cond> +8; goto_w" */
        if (M->in[j].nf) {
            pf[k].pos = M->in[j].at + 8;
            pf[k].prio = 1;
            pf[k++].f = M->in[j].nf;
        }
    if (handler) {
        pf[k].pos = M->body_end;
        pf[k].prio = 1;
        pf[k++].f = handler;
    }
    qsort(pf, n, sizeof(pframe_t), cmp_pframe);
    /* one frame per position: an original frame wins over an inferred one */
    k = 0;
    for (uint32_t j = 0; j < n; j++)
        if (k == 0 || pf[k - 1].pos != pf[j].pos) pf[k++] = pf[j];
    *count = k;
    return pf;
}

int cf_frames_encode(const meth_t *M, const frame_t *handler, struct buf *s)
{
    uint32_t n;
    const pframe_t *pf = collect_frames(M, handler, &n);
    if (!pf) return CF_ERR_NOMEM;
    if (n > 0xFFFF) return CF_M_UNREWRITABLE;
    buf_u2(s, n);
    const frame_t *prev = &M->init;
    int64_t prev_pos = -1;
    for (uint32_t k = 0; k < n; k++) {
        encode_frame(s, M, prev, pf[k].f, (uint32_t)((int64_t)pf[k].pos - prev_pos - 1));
        prev = pf[k].f;
        prev_pos = pf[k].pos;
    }
    return 0;
}
