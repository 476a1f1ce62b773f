/* SPDX-License-Identifier: Apache-2.0 */
/* The pieces of an ELF file the unwinder and symbolizer read, bounded (native_elf.h). */
#include "native/native_elf.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native/native_dwarf.h"

#define EHDR_SIZE       64
#define PHDR_SIZE       56
#define SHDR_SIZE       64
#define SYM_SIZE        24
#define PT_LOAD         1
#define PT_NOTE         4
#define PT_GNU_EH_FRAME 0x6474e550u
#define SHT_SYMTAB      2
#define SHT_NOTE        7
#define SHT_NOBITS      8
#define SHT_DYNSYM      11
#define STT_FUNC        2
#define STT_GNU_IFUNC   10
#define NT_GNU_BUILD_ID 3
#define DEBUG_ROOT      "/usr/lib/debug"

/* A reader over [off, off + n) of the file, or an empty bad one when that is outside. */
static struct nd_reader at(const struct ne_file *f, uint64_t off, uint64_t n)
{
    if (off > f->size || n > f->size - off) return (struct nd_reader){f->data, f->data, true};
    return nd_at(f->data + off, (size_t)n);
}

static bool piece_ok(const struct ne_file *f, uint64_t off, uint64_t size)
{
    return off <= f->size && size <= f->size - off;
}

static void read_loads(struct ne_file *f, uint64_t phoff, unsigned phnum)
{
    for (unsigned i = 0; i < phnum; i++) {
        struct nd_reader r = at(f, phoff + (uint64_t)i * PHDR_SIZE, PHDR_SIZE);
        uint32_t type = nd_u32(&r), flags = nd_u32(&r);
        uint64_t off = nd_u64(&r), vaddr = nd_u64(&r);
        nd_u64(&r);
        uint64_t filesz = nd_u64(&r), memsz = nd_u64(&r);
        if (r.bad) return;
        if (type == PT_LOAD && f->nloads < NE_MAX_LOADS && piece_ok(f, off, filesz))
            f->loads[f->nloads++] = (struct ne_load){vaddr, memsz, off, filesz, flags};
        else if (type == PT_GNU_EH_FRAME && piece_ok(f, off, filesz))
            f->eh_frame_hdr = (struct ne_piece){(size_t)off, (size_t)filesz, vaddr};
    }
}

bool ne_vaddr_to_off(const struct ne_file *f, uint64_t vaddr, size_t *off)
{
    for (size_t i = 0; i < f->nloads; i++) {
        const struct ne_load *l = &f->loads[i];
        if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
            *off = (size_t)(l->offset + (vaddr - l->vaddr));
            return true;
        }
    }
    return false;
}

const struct ne_load *ne_load_at_offset(const struct ne_file *f, uint64_t off)
{
    for (size_t i = 0; i < f->nloads; i++)
        if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].filesz) return &f->loads[i];
    return NULL;
}

/* The build ID from the notes in [off, off + size). */
static void read_notes(struct ne_file *f, uint64_t off, uint64_t size)
{
    struct nd_reader r = at(f, off, size);
    for (int i = 0; i < 64 && nd_left(&r) >= 12; i++) {
        uint32_t namesz = nd_u32(&r), descsz = nd_u32(&r), type = nd_u32(&r);
        const uint8_t *name = r.p;
        nd_skip(&r, ((uint64_t)namesz + 3) & ~3ull);
        const uint8_t *desc = r.p;
        nd_skip(&r, ((uint64_t)descsz + 3) & ~3ull);
        if (r.bad) return;
        if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0 && descsz > 0 &&
            descsz <= NE_MAX_BUILD_ID) {
            memcpy(f->build_id, desc, descsz);
            f->build_id_len = descsz;
            return;
        }
    }
}

struct shdr {
    uint32_t name, type, link;
    uint64_t addr, off, size;
};

static bool read_shdr(const struct ne_file *f, uint64_t shoff, uint64_t i, struct shdr *s)
{
    struct nd_reader r = at(f, shoff + i * SHDR_SIZE, SHDR_SIZE);
    s->name = nd_u32(&r);
    s->type = nd_u32(&r);
    nd_u64(&r);
    s->addr = nd_u64(&r);
    s->off = nd_u64(&r);
    s->size = nd_u64(&r);
    s->link = nd_u32(&r);
    if (s->type == SHT_NOBITS) s->size = 0;
    return !r.bad && piece_ok(f, s->off, s->size);
}

/* A section's name, NUL-terminated inside the string section, or "". */
static const char *sec_name(const struct ne_file *f, const struct shdr *strs, uint32_t name)
{
    if (name >= strs->size) return "";
    const char *s = (const char *)f->data + strs->off + name;
    return memchr(s, 0, strs->size - name) ? s : "";
}

static void read_debuglink(struct ne_file *f, const struct shdr *s)
{
    const char *p = (const char *)f->data + s->off;
    size_t n = strnlen(p, s->size);
    if (n == 0 || n >= sizeof f->debuglink || n == s->size || memchr(p, '/', n)) return;
    memcpy(f->debuglink, p, n);
    f->debuglink[n] = 0;
}

/* Symbol tables with their string tables, by type. */
static void take_symtab(const struct ne_file *f, uint64_t shoff, uint64_t shnum, const struct shdr *s,
                        struct ne_piece *syms, struct ne_piece *strs)
{
    struct shdr str;
    if (s->link >= shnum || !read_shdr(f, shoff, s->link, &str)) return;
    *syms = (struct ne_piece){(size_t)s->off, (size_t)s->size, s->addr};
    *strs = (struct ne_piece){(size_t)str.off, (size_t)str.size, str.addr};
}

static void one_section(struct ne_file *f, uint64_t shoff, uint64_t shnum, const struct shdr *strs,
                        const struct shdr *s)
{
    const char *name = sec_name(f, strs, s->name);
    if (s->type == SHT_SYMTAB)
        take_symtab(f, shoff, shnum, s, &f->symtab, &f->symtab_str);
    else if (s->type == SHT_DYNSYM)
        take_symtab(f, shoff, shnum, s, &f->dynsym, &f->dynsym_str);
    else if (s->type == SHT_NOTE && !f->build_id_len)
        read_notes(f, s->off, s->size);
    else if (strcmp(name, ".eh_frame") == 0)
        f->eh_frame = (struct ne_piece){(size_t)s->off, (size_t)s->size, s->addr};
    else if (strcmp(name, ".eh_frame_hdr") == 0 && !f->eh_frame_hdr.size)
        f->eh_frame_hdr = (struct ne_piece){(size_t)s->off, (size_t)s->size, s->addr};
    else if (strcmp(name, ".gnu_debuglink") == 0)
        read_debuglink(f, s);
}

static void read_sections(struct ne_file *f, uint64_t shoff, uint64_t shnum, uint64_t shstrndx)
{
    struct shdr first, strs;
    if (!shoff) return;
    if (!read_shdr(f, shoff, 0, &first)) return;
    if (shnum == 0) shnum = first.size; /* more than 0xff00 sections: the count is here */
    if (shstrndx == 0xffff) shstrndx = first.link;
    if (shnum > NE_MAX_SECTIONS || shstrndx >= shnum || !read_shdr(f, shoff, shstrndx, &strs)) return;
    for (uint64_t i = 1; i < shnum; i++) {
        struct shdr s;
        if (read_shdr(f, shoff, i, &s)) one_section(f, shoff, shnum, &strs, &s);
    }
}

/* Without a section for it, .eh_frame is where .eh_frame_hdr points, to the end of
 * its segment's file bytes (a zero terminator usually ends it first). */
static void eh_frame_from_hdr(struct ne_file *f)
{
    if (f->eh_frame.size || f->eh_frame_hdr.size < 4) return;
    struct nd_reader r = at(f, f->eh_frame_hdr.off, f->eh_frame_hdr.size);
    uint8_t version = nd_u8(&r), enc = nd_u8(&r);
    nd_u16(&r);
    struct nd_bases b = {f->data + f->eh_frame_hdr.off, f->eh_frame_hdr.vaddr, f->eh_frame_hdr.vaddr};
    uint64_t vaddr;
    size_t off;
    if (r.bad || version != 1 || !nd_pointer(&r, enc, &b, &vaddr) || !ne_vaddr_to_off(f, vaddr, &off)) return;
    const struct ne_load *l = ne_load_at_offset(f, off);
    if (!l) return;
    f->eh_frame = (struct ne_piece){off, (size_t)(l->offset + l->filesz - off), vaddr};
}

int ne_parse(const uint8_t *data, size_t size, struct ne_file *f)
{
    memset(f, 0, sizeof *f);
    f->data = data;
    f->size = size;
    if (size < EHDR_SIZE || memcmp(data, "\177ELF", 4) != 0 || data[4] != 2 || data[5] != 1) return -1;
    struct nd_reader r = at(f, 16, EHDR_SIZE - 16);
    f->type = nd_u16(&r);
    nd_u16(&r); /* machine: the caller's concern (x86-64 unwinding rules) */
    nd_u32(&r);
    nd_u64(&r);
    uint64_t phoff = nd_u64(&r), shoff = nd_u64(&r);
    nd_u32(&r);
    nd_u16(&r);
    uint16_t phentsize = nd_u16(&r), phnum = nd_u16(&r), shentsize = nd_u16(&r), shnum = nd_u16(&r);
    uint16_t shstrndx = nd_u16(&r);
    if (phentsize == PHDR_SIZE) read_loads(f, phoff, phnum);
    if (shentsize == SHDR_SIZE) read_sections(f, shoff, shnum, shstrndx);
    if (!f->build_id_len)
        for (unsigned i = 0; phentsize == PHDR_SIZE && i < phnum; i++) {
            struct nd_reader p = at(f, phoff + (uint64_t)i * PHDR_SIZE, PHDR_SIZE);
            uint32_t type = nd_u32(&p);
            nd_u32(&p);
            uint64_t off = nd_u64(&p);
            nd_skip(&p, 16);
            uint64_t filesz = nd_u64(&p);
            if (!p.bad && type == PT_NOTE) read_notes(f, off, filesz);
        }
    eh_frame_from_hdr(f);
    return 0;
}

int ne_open(const char *path, struct ne_file *f)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= EHDR_SIZE)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return -1;
    if (ne_parse(p, (size_t)st.st_size, f) != 0) {
        munmap(p, (size_t)st.st_size);
        memset(f, 0, sizeof *f);
        return -1;
    }
    return 0;
}

void ne_close(struct ne_file *f)
{
    if (f->data) munmap((void *)f->data, f->size);
    memset(f, 0, sizeof *f);
}

/* The function symbols of one table: defined (a section index), with an address. */
static void add_symbols(const struct ne_file *f, const struct ne_piece *syms, const struct ne_piece *strs,
                        struct ns_table *t)
{
    size_t n = syms->size / SYM_SIZE;
    for (size_t i = 1; i < n && t->n < NS_MAX_SYMBOLS; i++) {
        struct nd_reader r = nd_at(f->data + syms->off + i * SYM_SIZE, SYM_SIZE);
        uint32_t name = nd_u32(&r);
        uint8_t info = nd_u8(&r);
        nd_u8(&r);
        uint16_t shndx = nd_u16(&r);
        uint64_t value = nd_u64(&r), size = nd_u64(&r);
        unsigned type = info & 0xf;
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == 0 || value == 0 || name >= strs->size) continue;
        const char *s = (const char *)f->data + strs->off + name;
        const char *e = memchr(s, 0, strs->size - name);
        if (e && e > s) ns_add(t, value, size, s, (size_t)(e - s));
    }
}

void ne_symbols(const struct ne_file *f, struct ns_table *t)
{
    if (f->symtab.size) add_symbols(f, &f->symtab, &f->symtab_str, t);
    if (f->dynsym.size) add_symbols(f, &f->dynsym, &f->dynsym_str, t);
}

static bool exists(const char *p) { return access(p, R_OK) == 0; }

bool ne_debug_file(const struct ne_file *f, const char *path, char *out, size_t cap)
{
    if (f->build_id_len >= 2) {
        char hex[2 * NE_MAX_BUILD_ID + 1];
        for (size_t i = 0; i < f->build_id_len; i++) snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
        int n = snprintf(out, cap, DEBUG_ROOT "/.build-id/%.2s/%s.debug", hex, hex + 2);
        if (n > 0 && (size_t)n < cap && exists(out)) return true;
    }
    if (!f->debuglink[0] || path[0] != '/') return false;
    const char *slash = strrchr(path, '/');
    int n = snprintf(out, cap, DEBUG_ROOT "%.*s/%s", (int)(slash - path), path, f->debuglink);
    if (n > 0 && (size_t)n < cap && !strstr(out, "/../") && exists(out)) return true;
    n = snprintf(out, cap, DEBUG_ROOT "/%s", f->debuglink);
    return n > 0 && (size_t)n < cap && exists(out);
}
