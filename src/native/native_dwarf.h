/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded reading of DWARF's little pieces from a byte range: fixed-size little-endian
 * words, LEB128 numbers and the pointer encodings of .eh_frame (DW_EH_PE_*, LSB Core
 * spec, "DWARF Extensions"). A read past the end sets bad and returns 0; the caller
 * checks bad once after a group of reads. Pure, no allocation.
 */
#ifndef HPROF_NATIVE_DWARF_H
#define HPROF_NATIVE_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nd_reader {
    const uint8_t *p, *end;
    bool bad;
};

/* Where relative pointers count from: the section's bytes and its address when loaded. */
struct nd_bases {
    const uint8_t *section; /* the first byte of the section holding the pointers */
    uint64_t section_vaddr; /* its address (pcrel) */
    uint64_t data_vaddr;    /* DW_EH_PE_datarel base (.eh_frame_hdr's address), 0 none */
};

#define DW_EH_PE_absptr   0x00
#define DW_EH_PE_uleb128  0x01
#define DW_EH_PE_udata2   0x02
#define DW_EH_PE_udata4   0x03
#define DW_EH_PE_udata8   0x04
#define DW_EH_PE_sleb128  0x09
#define DW_EH_PE_sdata2   0x0a
#define DW_EH_PE_sdata4   0x0b
#define DW_EH_PE_sdata8   0x0c
#define DW_EH_PE_pcrel    0x10
#define DW_EH_PE_datarel  0x30
#define DW_EH_PE_indirect 0x80
#define DW_EH_PE_omit     0xff

static inline struct nd_reader nd_at(const uint8_t *p, size_t n) { return (struct nd_reader){p, p + n, false}; }
static inline size_t nd_left(const struct nd_reader *r) { return r->bad ? 0 : (size_t)(r->end - r->p); }

uint8_t nd_u8(struct nd_reader *r);
uint16_t nd_u16(struct nd_reader *r);
uint32_t nd_u32(struct nd_reader *r);
uint64_t nd_u64(struct nd_reader *r);
/* LEB128: at most 10 bytes; more, or bits beyond 64, set bad. */
uint64_t nd_uleb(struct nd_reader *r);
int64_t nd_sleb(struct nd_reader *r);
/* Skips n bytes. */
void nd_skip(struct nd_reader *r, uint64_t n);
/* An encoded pointer; false (and bad, for a short read) for an encoding we do not take:
 * indirect, textrel, funcrel, aligned, or datarel without a base. DW_EH_PE_omit is the
 * caller's to check. */
bool nd_pointer(struct nd_reader *r, uint8_t enc, const struct nd_bases *b, uint64_t *out);

#endif
