/* SPDX-License-Identifier: Apache-2.0 */
/* .eh_frame's CIEs and FDEs into a sorted table of rows (native_cfi.h). */
#include "native/native_cfi.h"

#include <stdlib.h>
#include <string.h>

#include "native/native_cfi_run.h"
#include "native/native_dwarf.h"

#define MAX_AUG 16 /* augmentation strings are a few letters */

/* One record: its bytes after the length, and where the next one starts. */
struct record {
    const uint8_t *body, *end;
    uint32_t id;
    const uint8_t *id_at;
};

/* The record at p; false at the end (a zero length) or when it does not fit. */
static bool next_record(const uint8_t **p, const uint8_t *end, struct record *rec)
{
    struct nd_reader r = nd_at(*p, (size_t)(end - *p));
    uint64_t len = nd_u32(&r);
    if (r.bad || len == 0) return false;
    if (len == 0xffffffffu) len = nd_u64(&r);
    if (r.bad || len < 4 || len > nd_left(&r)) return false;
    rec->id_at = r.p;
    rec->end = r.p + len;
    rec->id = nd_u32(&r);
    rec->body = r.p;
    *p = rec->end;
    return true;
}

/* The augmentation data after "z": the FDE pointer encoding is what we need. */
static bool read_augmentation(struct nd_reader *r, const char *aug, const struct nd_bases *b, struct ncr_cie *c)
{
    uint64_t len = nd_uleb(r);
    if (r->bad || len > nd_left(r)) return false;
    struct nd_reader a = nd_at(r->p, (size_t)len);
    nd_skip(r, len);
    for (const char *s = aug + 1; *s; s++) {
        uint64_t ignored;
        uint8_t enc;
        switch (*s) {
        case 'R': c->fde_enc = nd_u8(&a); break;
        case 'L': nd_u8(&a); break;
        case 'P':
            enc = nd_u8(&a);
            if (enc == DW_EH_PE_omit || !nd_pointer(&a, enc & 0x0f, b, &ignored)) return false;
            break;
        case 'S':
        case 'B':
        case 'G': break;
        default: return !a.bad; /* the rest is skipped by its length */
        }
        if (a.bad) return false;
    }
    return true;
}

/* The CIE whose record starts at p; false when malformed or not for x86-64's return
 * address (register 16). */
static bool read_cie(const uint8_t *p, const uint8_t *eh_end, const struct nd_bases *b, struct ncr_cie *c)
{
    struct record rec;
    if (!next_record(&p, eh_end, &rec) || rec.id != 0) return false;
    struct nd_reader r = nd_at(rec.body, (size_t)(rec.end - rec.body));
    memset(c, 0, sizeof *c);
    uint8_t version = nd_u8(&r);
    char aug[MAX_AUG + 1];
    size_t n = 0;
    for (uint8_t ch; (ch = nd_u8(&r)) != 0 && !r.bad;)
        if (n < MAX_AUG)
            aug[n++] = (char)ch;
        else
            return false;
    aug[n] = 0;
    if (r.bad || (version != 1 && version != 3)) return false;
    if (strstr(aug, "eh")) nd_u64(&r);
    c->code_align = nd_uleb(&r);
    c->data_align = nd_sleb(&r);
    uint64_t ra = version == 1 ? nd_u8(&r) : nd_uleb(&r);
    if (r.bad || ra != 16 || c->code_align == 0) return false;
    c->fde_enc = DW_EH_PE_absptr;
    if (aug[0] == 'z') {
        c->has_z = true;
        if (!read_augmentation(&r, aug, b, c)) return false;
    } else if (aug[0] && strcmp(aug, "eh") != 0) {
        return false; /* an augmentation we cannot step over */
    }
    c->insns = r.p;
    c->insns_len = (size_t)(rec.end - r.p);
    return !r.bad;
}

/* One FDE. 0 taken or skipped (counted), -1 out of memory or past the bound. */
static int one_fde(const struct record *rec, const uint8_t *eh, const uint8_t *eh_end, uint64_t base,
                   const struct nd_bases *b, struct nc_table *t, struct ncr_rows *rows)
{
    struct ncr_cie cie;
    t->stats.fdes++;
    /* The CIE pointer counts back from itself to the CIE's length field. */
    if (rec->id > (size_t)(rec->id_at - eh) || !read_cie(rec->id_at - rec->id, eh_end, b, &cie)) {
        t->stats.bad_cies++;
        return 0;
    }
    struct nd_reader r = nd_at(rec->body, (size_t)(rec->end - rec->body));
    uint64_t begin, range;
    if (!nd_pointer(&r, cie.fde_enc, b, &begin) || !nd_pointer(&r, cie.fde_enc & 0x0f, b, &range)) goto bad;
    if (cie.has_z) nd_skip(&r, nd_uleb(&r));
    if (r.bad) goto bad;
    if (begin == 0 || range == 0) return 0; /* discarded by the linker */
    if (begin < base || begin - base >= ((uint64_t)1 << 32) || range > ((uint64_t)1 << 32) - (begin - base)) goto bad;
    int rc = ncr_run(&cie, r.p, nd_left(&r), begin, begin + range, base, b, rows);
    if (rc < 0) return -1;
    if (rc == 0) return 0;
bad:
    t->stats.bad_fdes++;
    return 0;
}

/* By pc; at one pc a real row before an end row, then in the order made. */
static int cmp_row(const void *a, const void *b)
{
    const struct nc_row *x = a, *y = b;
    if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
    if ((x->cfa == NC_CFA_NONE) != (y->cfa == NC_CFA_NONE)) return x->cfa == NC_CFA_NONE ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* Sorts the rows and keeps one per pc. (qsort is not stable: the address tie-break is
 * only a preference among rows of overlapping FDEs, which a sane file does not have.) */
static void sort_rows(struct nc_table *t)
{
    if (t->n > 1) qsort(t->rows, t->n, sizeof *t->rows, cmp_row);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (n > 0 && t->rows[n - 1].pc == t->rows[i].pc) continue;
        t->rows[n++] = t->rows[i];
    }
    t->n = n;
}

int nc_compile(const uint8_t *eh, size_t size, uint64_t eh_vaddr, uint64_t base, struct nc_table *t)
{
    memset(t, 0, sizeof *t);
    t->base = base;
    struct ncr_rows rows = {0};
    struct nd_bases b = {eh, eh_vaddr, 0};
    const uint8_t *p = eh, *end = eh + size;
    struct record rec;
    while (p < end && next_record(&p, end, &rec)) {
        if (rec.id == 0) {
            t->stats.cies++;
            continue;
        }
        if (one_fde(&rec, eh, end, base, &b, t, &rows) != 0) {
            t->stats.rows_dropped++;
            if (rows.n >= NC_MAX_ROWS) break;
            free(rows.rows);
            memset(t, 0, sizeof *t);
            return -1;
        }
    }
    t->rows = rows.rows;
    t->n = rows.n;
    sort_rows(t);
    return 0;
}

void nc_free(struct nc_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

const struct nc_row *nc_find(const struct nc_table *t, uint64_t vaddr)
{
    if (vaddr < t->base || vaddr - t->base >= ((uint64_t)1 << 32)) return NULL;
    uint32_t pc = (uint32_t)(vaddr - t->base);
    size_t lo = 0, hi = t->n;
    while (lo < hi) { /* the first row above pc */
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].pc <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || t->rows[lo - 1].cfa == NC_CFA_NONE) return NULL;
    return &t->rows[lo - 1];
}
