/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded reads of DWARF's words, LEB128 numbers and encoded pointers (native_dwarf.h). */
#include "native/native_dwarf.h"

#include <string.h>

/* n bytes little-endian, or 0 and bad when fewer are left. */
static uint64_t fixed(struct nd_reader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

uint8_t nd_u8(struct nd_reader *r) { return (uint8_t)fixed(r, 1); }
uint16_t nd_u16(struct nd_reader *r) { return (uint16_t)fixed(r, 2); }
uint32_t nd_u32(struct nd_reader *r) { return (uint32_t)fixed(r, 4); }
uint64_t nd_u64(struct nd_reader *r) { return fixed(r, 8); }

void nd_skip(struct nd_reader *r, uint64_t n)
{
    if (r->bad || (uint64_t)(r->end - r->p) < n) {
        r->bad = true;
        return;
    }
    r->p += n;
}

/* The bytes of one LEB128 number into *v; its bit count into *shift. */
static void leb(struct nd_reader *r, uint64_t *v, unsigned *shift, uint8_t *last)
{
    *v = 0;
    *shift = 0;
    *last = 0;
    for (int i = 0; i < 10; i++) {
        if (r->bad || r->p >= r->end) break;
        uint8_t b = *r->p++;
        if (*shift == 63 && (b & 0x7e)) break; /* bits beyond 64 */
        *v |= (uint64_t)(b & 0x7f) << *shift;
        *shift += 7;
        *last = b;
        if (!(b & 0x80)) return;
    }
    r->bad = true;
    *v = 0;
}

uint64_t nd_uleb(struct nd_reader *r)
{
    uint64_t v;
    unsigned shift;
    uint8_t last;
    leb(r, &v, &shift, &last);
    return v;
}

int64_t nd_sleb(struct nd_reader *r)
{
    uint64_t v;
    unsigned shift;
    uint8_t last;
    leb(r, &v, &shift, &last);
    if (!r->bad && shift < 64 && (last & 0x40)) v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* The value part of an encoded pointer (low four bits). */
static bool pointer_value(struct nd_reader *r, uint8_t fmt, uint64_t *v)
{
    switch (fmt) {
    case DW_EH_PE_absptr: *v = nd_u64(r); break;
    case DW_EH_PE_uleb128: *v = nd_uleb(r); break;
    case DW_EH_PE_udata2: *v = nd_u16(r); break;
    case DW_EH_PE_udata4: *v = nd_u32(r); break;
    case DW_EH_PE_udata8: *v = nd_u64(r); break;
    case DW_EH_PE_sleb128: *v = (uint64_t)nd_sleb(r); break;
    case DW_EH_PE_sdata2: *v = (uint64_t)(int64_t)(int16_t)nd_u16(r); break;
    case DW_EH_PE_sdata4: *v = (uint64_t)(int64_t)(int32_t)nd_u32(r); break;
    case DW_EH_PE_sdata8: *v = nd_u64(r); break;
    default: return false;
    }
    return !r->bad;
}

bool nd_pointer(struct nd_reader *r, uint8_t enc, const struct nd_bases *b, uint64_t *out)
{
    uint64_t at = b->section_vaddr + (uint64_t)(r->p - b->section);
    uint64_t v;
    if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect)) return false;
    if (!pointer_value(r, enc & 0x0f, &v)) return false;
    switch (enc & 0x70) {
    case 0: break;
    case DW_EH_PE_pcrel: v += at; break;
    case DW_EH_PE_datarel:
        if (!b->data_vaddr) return false;
        v += b->data_vaddr;
        break;
    default: return false;
    }
    *out = v;
    return true;
}
