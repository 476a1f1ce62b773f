/* SPDX-License-Identifier: Apache-2.0 */
/* The loaded native code as an immutable snapshot (native_modules.h). */
#include "native/native_modules.h"

#include <stdlib.h>
#include <string.h>

#include "native/native_elf.h"

#define VDSO "[vdso]"

/* The ELF address pcs of a file's table count from: its lowest load segment's. */
static uint64_t lowest_vaddr(const struct ne_file *f)
{
    uint64_t v = UINT64_MAX;
    for (size_t i = 0; i < f->nloads; i++)
        if (f->loads[i].vaddr < v) v = f->loads[i].vaddr & ~(uint64_t)0xfff;
    return v == UINT64_MAX ? 0 : v;
}

/* The load bias of a mapping of f: the segment holding the mapping's file offset is at
 * its ELF address plus the bias. False when no segment holds that offset. */
static bool bias_of(const struct ne_file *f, const struct nm_range *r, uint64_t *bias)
{
    const struct ne_load *l = ne_load_at_offset(f, r->offset);
    if (!l) return false;
    *bias = (uint64_t)r->start - r->offset - (l->vaddr - l->offset);
    return true;
}

static struct nc_table *compile(const struct ne_file *f)
{
    struct nc_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (f->eh_frame.size &&
        nc_compile(f->data + f->eh_frame.off, f->eh_frame.size, f->eh_frame.vaddr, lowest_vaddr(f), t) != 0)
        memset(t, 0, sizeof *t);
    return t;
}

/* A module of prev that is this same file at this same place, or NULL. */
static struct nmod *same_in(struct native_space *prev, const char *path, const struct nm_range *r)
{
    if (!prev) return NULL;
    for (size_t i = 0; i < prev->n; i++) {
        struct nmod *m = &prev->mods[i];
        if (m->owns && m->start == r->start && m->end == r->end && strcmp(m->path, path) == 0) return m;
    }
    return NULL;
}

/* One executable file mapping into m. 0 made, 1 skipped, -1 out of memory. */
static int one_module(struct native_space *s, const struct nm_range *r, struct native_space *prev, struct nmod *m)
{
    const char *path = nm_maps_path(&s->maps, r);
    memset(m, 0, sizeof *m);
    m->path = strdup(path);
    if (!m->path) return -1;
    const char *slash = strrchr(m->path, '/');
    m->name = slash ? slash + 1 : m->path;
    m->start = r->start;
    m->end = r->end;
    m->owns = true;
    struct nmod *old = same_in(prev, path, r);
    if (old) {
        m->bias = old->bias;
        m->cfi = old->cfi;
        m->syms = old->syms;
        m->syms_tried = old->syms_tried;
        m->owns = false; /* until the whole snapshot is built: a failure leaves prev whole */
        m->taken = old;
        return 0;
    }
    struct ne_file f;
    bool in_memory = strcmp(path, VDSO) == 0; /* mapped readable, whole, from its ELF header on */
    int rc = in_memory ? ne_parse((const uint8_t *)r->start, r->end - r->start, &f) : ne_open(path, &f);
    if (rc != 0 || !bias_of(&f, r, &m->bias)) {
        if (f.data && !in_memory) ne_close(&f);
        s->elf_failures++;
        free(m->path);
        return 1;
    }
    m->cfi = compile(&f);
    if (in_memory) {
        m->image = f.data;
        m->image_size = f.size;
    } else {
        ne_close(&f);
    }
    if (!m->cfi) {
        free(m->path);
        return -1;
    }
    return 0;
}

struct native_space *nsp_new(struct nm_maps *maps, struct native_space *prev)
{
    struct native_space *s = calloc(1, sizeof *s);
    if (!s) {
        nm_maps_free(maps);
        return NULL;
    }
    s->maps = *maps;
    memset(maps, 0, sizeof *maps);
    s->mods = calloc(s->maps.nranges ? s->maps.nranges : 1, sizeof *s->mods);
    if (!s->mods) goto fail;
    for (size_t i = 0; i < s->maps.nranges && s->n < NMOD_MAX; i++) {
        const struct nm_range *r = &s->maps.ranges[i];
        const char *path = nm_maps_path(&s->maps, r);
        if (!(r->perms & NM_PERM_X) || (path[0] != '/' && strcmp(path, VDSO) != 0)) continue;
        int rc = one_module(s, r, prev, &s->mods[s->n]);
        if (rc < 0) goto fail;
        if (rc == 0) s->n++;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->mods[i].taken) {
            s->mods[i].taken->owns = false;
            s->mods[i].owns = true;
            s->mods[i].taken = NULL;
        }
    return s;
fail:
    nsp_free(s);
    return NULL;
}

static void free_module(struct nmod *m)
{
    if (m->owns) {
        if (m->cfi) nc_free(m->cfi);
        free(m->cfi);
        if (m->syms) ns_free(m->syms);
        free(m->syms);
    }
    free(m->path);
}

void nsp_free(void *space)
{
    struct native_space *s = space;
    for (size_t i = 0; s->mods && i < s->n; i++) free_module(&s->mods[i]);
    free(s->mods);
    nm_maps_free(&s->maps);
    free(s);
}

const struct nmod *nsp_module(const struct native_space *s, uintptr_t pc)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->mods[mid].end <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->mods[lo].start <= pc ? &s->mods[lo] : NULL;
}
