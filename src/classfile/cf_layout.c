/* SPDX-License-Identifier: Apache-2.0 */
/* Layout: every instruction's new offset, given the blobs cf_inject.c put around them, and
 * 16-bit branches that no longer fit widened, the layout redone until nothing changes:
 *   goto -> goto_w, jsr -> jsr_w;
 *   if<cond> L -> if<!cond> +8; goto_w L        (methods without a StackMapTable, or no
 *            island in reach: then cf_infer.c gives the frame after the goto_w)
 *   if<cond> L -> if<cond> T, T: goto_w L       (T is a trampoline in an "island" placed
 *            before a nearby instruction N that has a frame or follows an unconditional
 *            transfer, outside every exception range. The island is
 *            [goto_w N when N can be reached by falling through] T1: goto_w L1, T2: ...
 *            so the only new frames are the ones at T1, T2..., copies of L1, L2... frames.)
 * A method that would pass 65535 bytes is CF_M_TOO_BIG. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_code.h"

static int fits16(int64_t d) { return d >= -32768 && d <= 32767; }

/* Bytes of instruction I placed at offset at. */
static uint32_t isize(const insn_t *I, uint32_t at)
{
    switch (I->kind) {
    case K_TSW:
    case K_LSW: return 1 + swpad(at) + (I->len - 1 - swpad(I->off));
    case K_BR16:
        if (I->widen == W_INPLACE) return (I->op == OP_GOTO || I->op == OP_JSR) ? 5 : 8;
        return 3;
    default: return I->len;
    }
}

static void layout(meth_t *M)
{
    uint32_t pos = M->prologue;
    for (uint32_t i = 0; i <= M->ninsn; i++) {
        insn_t *I = &M->in[i];
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

static int is_uncond(const insn_t *I)
{
    unsigned op = I->op;
    return op == OP_GOTO || op == OP_GOTO_W || op == OP_RET || op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH ||
        (op >= OP_IRETURN && op <= OP_RETURN) || op == OP_ATHROW;
}

/* Where islands may go (only in methods with a StackMapTable): before instruction p (or at
 * the end, p == ninsn) when no exception range covers p-1, and p either follows an
 * unconditional transfer or has a frame (then the island starts with a goto_w over
 * itself). Sets *hosts to them, in order. */
static int find_hosts(meth_t *M, uint32_t **hosts, uint32_t *nh)
{
    int32_t *cov = cf_arena_array(&M->c->ar, (size_t)M->ninsn + 1, sizeof(int32_t));
    uint8_t *hasf = cf_arena_alloc(&M->c->ar, (size_t)M->ninsn + 1);
    uint32_t *h = cf_arena_array(&M->c->ar, (size_t)M->ninsn + 1, sizeof(uint32_t));
    if (!cov || !h || !hasf) return CF_ERR_NOMEM;
    for (uint32_t i = 0; i < M->nexc; i++) {
        const uint8_t *e = M->exc + 8 * i;
        cov[M->idx[be_load_u2(e)]]++;
        cov[M->idx[be_load_u2(e + 2)]]--;
    }
    for (uint32_t k = 0; k < M->nframes; k++) hasf[M->fr[k].idx] = 1;
    int32_t depth = 0; /* ranges covering p-1 */
    uint32_t n = 0;
    for (uint32_t p = 0; p <= M->ninsn; p++) {
        int after_jump = p > 0 && is_uncond(&M->in[p - 1]);
        if ((p == 0 || depth == 0) && (after_jump || (p < M->ninsn && hasf[p]))) {
            h[n++] = p;
            M->in[p].skip = !after_jump;
        }
        if (p < M->ninsn) depth += cov[p];
    }
    *hosts = h;
    *nh = n;
    return 0;
}

/* The island nearest the branch at instruction bi (among the nearest host on each side),
 * for a trampoline to tgt; NONE when none is in reach. No island after split serves a
 * target before it. */
static uint32_t pick_host(const meth_t *M, const uint32_t *hosts, uint32_t nh, uint32_t bi, uint32_t tgt,
                          uint32_t split)
{
    uint32_t lo = 0, hi = nh;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (hosts[mid] < bi)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t best = NONE;
    int64_t bestd = 0;
    const int64_t at = M->in[bi].at;
    for (int side = 0; side < 2; side++) {
        for (uint32_t k = 0; k < 64; k++) { /* past the hosts split rules out, a bounded look */
            int64_t j = side ? (int64_t)lo + k : (int64_t)lo - 1 - k;
            if (j < 0 || j >= (int64_t)nh) break;
            uint32_t h = hosts[j];
            if (split != NONE && h > split && tgt < split) continue;
            int64_t d = (int64_t)M->in[h].island - at;
            if (d < 0) d = -d;
            if (best == NONE || d < bestd) {
                best = h;
                bestd = d;
            }
            break;
        }
    }
    if (best != NONE && bestd > 30000) best = NONE; /* slack: later widening moves code */
    return best;
}

/* The trampoline to tgt in the island before h, added if new; NONE when out of memory. */
static uint32_t trampoline(meth_t *M, uint32_t h, uint32_t tgt)
{
    uint32_t t;
    for (t = 0; t < M->ntr; t++)
        if (M->tr[t].host == h && M->tr[t].tgt == tgt) return t;
    if (M->ntr == M->trcap) {
        uint32_t nc = M->trcap * 2 + 8;
        tramp_t *n = cf_arena_array(&M->c->ar, nc, sizeof(tramp_t));
        if (!n) return NONE;
        if (M->ntr) memcpy(n, M->tr, M->ntr * sizeof(tramp_t));
        M->tr = n;
        M->trcap = nc;
    }
    M->tr[t].host = h;
    M->tr[t].tgt = tgt;
    M->tr[t].order = t;
    M->ntr++;
    M->in[h].ntr++;
    return t;
}

/* Widens the 16-bit branch at instruction i that no longer fits (see the top). */
static int widen(meth_t *M, uint32_t i, const uint32_t *hosts, uint32_t nh, uint32_t split, unsigned debug)
{
    insn_t *I = &M->in[i];
    if (I->op == OP_GOTO || I->op == OP_JSR || M->smt < 0) {
        I->widen = W_INPLACE;
        return 0;
    }
    uint32_t h =
        (!(debug & CF_DEBUG_NO_ISLANDS) && cf_frame_at(M, I->tgt)) ? pick_host(M, hosts, nh, i, I->tgt, split) : NONE;
    if (h == NONE) {
        /* no island in reach: invert, with an inferred frame after the goto_w */
        if (!(I->nf = cf_infer_after(M, i))) return CF_M_UNREWRITABLE;
        I->widen = W_INPLACE;
        return 0;
    }
    uint32_t t = trampoline(M, h, I->tgt);
    if (t == NONE) return CF_ERR_NOMEM;
    I->widen = W_TRAMPOLINE;
    I->tr = t;
    return 0;
}

static int cmp_tramp(const void *a, const void *b)
{
    const tramp_t *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the trampolines by island (in creation order within one) and gives each its offset. */
static int place_trampolines(meth_t *M)
{
    if (!M->ntr) return 0;
    qsort(M->tr, M->ntr, sizeof(tramp_t), cmp_tramp);
    M->tr_slot = cf_arena_array(&M->c->ar, M->ntr, sizeof(uint32_t));
    if (!M->tr_slot) return CF_ERR_NOMEM;
    uint32_t k = 0;
    for (uint32_t t = 0; t < M->ntr; t++) {
        const insn_t *H = &M->in[M->tr[t].host];
        if (t == 0 || M->tr[t].host != M->tr[t - 1].host) k = 0;
        M->tr[t].pos = H->island + 5 * (H->skip + k++);
        M->tr_slot[M->tr[t].order] = t;
    }
    return 0;
}

int cf_layout_fit(meth_t *M, const inject_t *P, unsigned debug, unsigned *widened)
{
    uint32_t *hosts = NULL, nh = 0;
    int rc;
    if (M->smt >= 0 && (rc = find_hosts(M, &hosts, &nh)) != 0) return rc;
    *widened = 0;
    for (int iter = 0;; iter++) {
        layout(M);
        if (M->total > 65535) return CF_M_TOO_BIG;
        if (iter > 64) return CF_M_UNREWRITABLE; /* a cap against surprises */
        int changed = 0;
        for (uint32_t i = 0; i < M->ninsn; i++) {
            insn_t *I = &M->in[i];
            if (I->kind != K_BR16 || I->widen) continue;
            if (fits16((int64_t)M->in[I->tgt].start - I->at) && !(debug & CF_DEBUG_WIDEN_ALL)) continue;
            changed = 1;
            ++*widened;
            if ((rc = widen(M, i, hosts, nh, P->split, debug)) != 0) return rc;
        }
        if (!changed) break;
    }
    if ((rc = place_trampolines(M)) != 0) return rc;
    /* a final check of every short branch */
    for (uint32_t i = 0; i < M->ninsn; i++) {
        const insn_t *I = &M->in[i];
        if (I->kind != K_BR16) continue;
        if (I->widen == W_NONE && !fits16((int64_t)M->in[I->tgt].start - I->at)) return CF_M_UNREWRITABLE;
        if (I->widen == W_TRAMPOLINE && !fits16((int64_t)M->tr[M->tr_slot[I->tr]].pos - I->at))
            return CF_M_UNREWRITABLE;
    }
    return 0;
}
