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

/* m's table compiled from its file (or its image in memory: the vDSO) and published to
 * the handlers: an empty one where the file cannot be read now (deleted, replaced by
 * something that is not ELF), so that it is not tried again. 0, or -1 out of memory. */
static int build(struct nmod *m)
{
    struct ne_file f;
    int rc = m->image ? ne_parse(m->image, m->image_size, &f) : ne_open(m->path, &f);
    struct nc_table *t = rc == 0 ? compile(&f) : calloc(1, sizeof *t);
    if (rc == 0 && !m->image) ne_close(&f);
    if (!t) return -1;
    /* The rows before the pointer: a handler's acquire load sees them whole. */
    atomic_store_explicit(&m->cfi, t, memory_order_release);
    return 0;
}

void nsp_want(const struct native_space *s, const struct nmod *m)
{
    /* Both objects live in the snapshot's malloc'd memory: only the handlers' view of
     * them is const. Relaxed: the agent reads the count, then each flag, and a flag seen
     * late is seen at the next drain. */
    atomic_store_explicit((_Atomic bool *)&m->wanted, true, memory_order_relaxed);
    atomic_fetch_add_explicit((_Atomic uint32_t *)&s->wants, 1, memory_order_relaxed);
}

size_t nsp_build_wanted(struct native_space *s)
{
    size_t built = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct nmod *m = &s->mods[i];
        if (!atomic_load_explicit(&m->wanted, memory_order_relaxed) || atomic_load(&m->cfi)) continue;
        if (build(m) == 0) built++;
    }
    return built;
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

/* One executable file mapping into m, its table compiled now unless lazy. 0 made, 1
 * skipped, -1 out of memory. */
static int one_module(struct native_space *s, const struct nm_range *r, struct native_space *prev, bool lazy,
                      struct nmod *m)
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
        atomic_init(&m->cfi, atomic_load(&old->cfi));
        m->image = old->image;
        m->image_size = old->image_size;
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
    if (in_memory) {
        m->image = f.data;
        m->image_size = f.size;
    }
    struct nc_table *t = lazy ? NULL : compile(&f);
    if (!in_memory) ne_close(&f);
    if (!lazy && !t) {
        free(m->path);
        return -1;
    }
    atomic_init(&m->cfi, t);
    /* A library new in a rebuild was loaded to be called: wanted before any walk asks. */
    atomic_init(&m->wanted, lazy && prev);
    if (lazy && prev) atomic_fetch_add(&s->wants, 1);
    return 0;
}

struct native_space *nsp_new(struct nm_maps *maps, struct native_space *prev, bool lazy)
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
        int rc = one_module(s, r, prev, lazy, &s->mods[s->n]);
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
    struct nc_table *cfi = atomic_load(&m->cfi);
    if (m->owns) {
        if (cfi) nc_free(cfi);
        free(cfi);
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
