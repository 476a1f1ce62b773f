/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Binary profiles (format=b, ours or JDK 8 HPROF's, or a net= capture of one) through the
 * hd engine: CPU_SAMPLES, the last ALLOC_SITES and the objects of the last heap dump,
 * summed by (allocation trace, class) as they stream by, so that a dump of any size
 * takes memory by its sites only. Object sizes are estimated from the dump: a header
 * of two words (one with 4-byte IDs), the fields or elements, rounded up to 8.
 * Calls profile_rows.c, the hd engine (records.c and below) and writers/stack_profile.c.
 */
#include "profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sample {
    uint32_t count, trace;
};
struct site {
    uint32_t cls, trace, counts[4];
};
struct objs {
    uint32_t trace, k;
    uint64_t bytes, n;
};

struct bin {
    struct sample *samples;
    size_t nsamples, capsamples;
    struct site *sites;
    size_t nsites, capsites;
    uint64_t site_totals[4]; /* the last ALLOC_SITES' header: every site's, as counts[] */
    bool have_samples, have_sites, have_heap;
    hd_map class_ix; /* class ID (or 1 << 63 | basic type) -> index into keys */
    uint64_t *keys;
    size_t nkeys, capkeys;
    hd_map agg; /* trace << 32 | class index -> index into objs */
    struct objs *objs;
    size_t nobjs, capobjs;
};

static void on_cpu_samples(void *ctx, const hd_state *st, uint32_t total) { ((struct bin *)ctx)->have_samples = true; }

static void on_cpu_sample(void *ctx, const hd_state *st, uint32_t count, uint32_t trace)
{
    struct bin *b = ctx;
    HD_GROW(b->samples, b->nsamples, b->capsamples);
    b->samples[b->nsamples++] = (struct sample){count, trace};
}

/* Each ALLOC_SITES holds every site so far: the last one is the profile. Its list is
 * cut (the agent's and JDK 8's by live bytes) but its header's totals are the run's. */
static void on_alloc_sites(void *ctx, const hd_state *st, const uint64_t totals[4])
{
    struct bin *b = ctx;
    b->have_sites = true;
    b->nsites = 0;
    memcpy(b->site_totals, totals, sizeof b->site_totals);
}

/* What the header's totals have beyond the rows: the sites the cutoff left out, as one
 * stack (live totals are u4 fields that stop at 4 GiB: never below the rows' sum). */
static void sites_cut(struct pr_collect *c, const struct bin *b)
{
    uint64_t sum[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < b->nsites; i++)
        for (int k = 0; k < 4; k++) sum[k] += b->sites[i].counts[k];
    static const int VIEW_TYPE[4] = {2, 3, 0, 1}; /* inuse_space, inuse_objects, alloc_space, alloc_objects */
    for (int k = 0; k < 4; k++) {
        uint64_t left = b->site_totals[k] > sum[k] ? b->site_totals[k] - sum[k] : 0;
        c->sec[PR_SITES].cut[VIEW_TYPE[k]] = left > INT64_MAX ? INT64_MAX : (int64_t)left;
    }
}

static void on_site(void *ctx, const hd_state *st, uint32_t cls, uint32_t trace, const uint32_t counts[4])
{
    struct bin *b = ctx;
    HD_GROW(b->sites, b->nsites, b->capsites);
    struct site *s = &b->sites[b->nsites++];
    s->cls = cls;
    s->trace = trace;
    memcpy(s->counts, counts, sizeof s->counts);
}

static void on_heap_dump(void *ctx, const hd_state *st)
{
    struct bin *b = ctx;
    b->have_heap = true;
    b->nobjs = 0;
    hd_map_free(&b->agg);
    memset(&b->agg, 0, sizeof b->agg);
}

static void on_object(void *ctx, const hd_state *st, int tag, uint32_t trace, uint64_t class_id, int type, uint32_t n)
{
    struct bin *b = ctx;
    uint64_t header = st->idsize == 8 ? 16 : 8, bytes;
    uint64_t key = tag == 0x23 ? 1ull << 63 | (uint64_t)type : class_id;
    if (tag == 0x21)
        bytes = header + n;
    else
        bytes = header + 4 + (uint64_t)n * (uint64_t)(tag == 0x22 ? st->idsize : hd_type_size(type, st->idsize));
    bytes = (bytes + 7) & ~7ull;
    uint64_t *slot;
    if (hd_map_put(&b->class_ix, key, b->nkeys, &slot)) {
        HD_GROW(b->keys, b->nkeys, b->capkeys);
        b->keys[b->nkeys++] = key;
    }
    uint64_t k = *slot;
    if (hd_map_put(&b->agg, (uint64_t)trace << 32 | k, b->nobjs, &slot)) {
        HD_GROW(b->objs, b->nobjs, b->capobjs);
        b->objs[b->nobjs++] = (struct objs){trace, (uint32_t)k, 0, 0};
    }
    b->objs[*slot].bytes += bytes;
    b->objs[*slot].n++;
}

/* A string's text as a C string, into out ("?" when the file does not define it). */
static const char *text(hd_state *st, uint64_t id, char *out, size_t n)
{
    size_t len;
    const unsigned char *s = hd_string_text(st, id, &len);
    if (!s)
        snprintf(out, n, "?");
    else
        snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
    return out;
}

static const char *class_name(hd_state *st, uint32_t serial, char *out, size_t n)
{
    uint64_t *slot = hd_map_get(&st->classes_by_serial, serial);
    return slot ? text(st, st->clsv[*slot].name, out, n) : (snprintf(out, n, "[class %u]", serial), out);
}

static uint32_t frame_of(struct pr_collect *c, hd_state *st, uint64_t id, hd_map *cache)
{
    uint64_t *slot = hd_map_get(cache, id);
    if (slot) return (uint32_t)*slot;
    char cls[1024], method[1024], file[1024], name[2100];
    uint64_t *fs = hd_map_get(&st->frames, id);
    uint32_t ix;
    if (!fs) {
        snprintf(name, sizeof name, "[frame 0x%llx]", (unsigned long long)id);
        ix = sp_frame(c->p, name, NULL, 0, SP_PSEUDO);
    } else {
        const hd_frame *f = &st->frv[*fs];
        snprintf(name, sizeof name, "%s.%s", class_name(st, f->cls, cls, sizeof cls),
                 text(st, f->method, method, sizeof method));
        text(st, f->source, file, sizeof file);
        ix = sp_frame(c->p, name, strcmp(file, "?") ? file : NULL, f->line, f->line == -3 ? SP_NATIVE : SP_JAVA);
    }
    hd_map_put(cache, id, ix, NULL);
    return ix;
}

static void traces(struct pr_collect *c, hd_state *st)
{
    hd_map cache = {0};
    for (size_t i = 0; i < st->ntr; i++) {
        const hd_trace *t = &st->trv[i];
        prc_trace(c, t->serial, t->thread);
        for (uint32_t k = 0; k < t->nframes; k++) prc_frame(c, frame_of(c, st, st->trframes[t->first + k], &cache));
    }
    hd_map_free(&cache);
}

static void rows(struct pr_collect *c, hd_state *st, struct bin *b)
{
    char name[1024];
    if (b->have_samples) prc_section(c, PR_SAMPLES, false);
    for (size_t i = 0; i < b->nsamples; i++) {
        int64_t v[SP_MAX_TYPES] = {b->samples[i].count};
        prc_row(c, PR_SAMPLES, b->samples[i].trace, 0, v);
    }
    if (b->have_sites) {
        prc_section(c, PR_SITES, true);
        sites_cut(c, b);
    }
    for (size_t i = 0; i < b->nsites; i++) {
        const struct site *s = &b->sites[i];
        int64_t v[SP_MAX_TYPES] = {s->counts[2], s->counts[3], s->counts[0], s->counts[1]};
        uint32_t top = sp_frame(c->p, class_name(st, s->cls, name, sizeof name), NULL, 0, SP_PSEUDO) + 1;
        prc_row(c, PR_SITES, s->trace, top, v);
    }
    if (b->have_heap) prc_section(c, PR_HEAP, true);
    for (size_t i = 0; i < b->nobjs; i++) {
        const struct objs *o = &b->objs[i];
        uint64_t key = b->keys[o->k];
        if (key >> 63) {
            const char *t = hd_type_name((int)(key & 0xff));
            snprintf(name, sizeof name, "%s[]", t ? t : "?");
        } else {
            uint64_t *slot = hd_map_get(&st->classes_by_obj, key);
            if (slot)
                class_name(st, (uint32_t)*slot, name, sizeof name);
            else
                snprintf(name, sizeof name, "[class 0x%llx]", (unsigned long long)key);
        }
        int64_t v[SP_MAX_TYPES] = {(int64_t)o->bytes, (int64_t)o->n};
        prc_row(c, PR_HEAP, o->trace, sp_frame(c->p, name, NULL, 0, SP_PSEUDO) + 1, v);
    }
}

static void free_bin(struct bin *b)
{
    free(b->samples);
    free(b->sites);
    hd_map_free(&b->class_ix);
    free(b->keys);
    hd_map_free(&b->agg);
    free(b->objs);
}

int pr_read_binary(const char *path, int fd, enum pr_section want, struct stack_profile *p, char *err, size_t errlen)
{
    struct bin b;
    memset(&b, 0, sizeof b);
    const hd_visitor visit = {&b, on_cpu_samples, on_cpu_sample, on_alloc_sites, on_site, on_heap_dump, on_object};
    hd_state st;
    hd_state_init(&st, stderr);
    st.path = path;
    st.fd = fd;
    st.visit = &visit;
    hd_reader_init(&st.r, fd, 0, 0);
    hd_run(&st);
    int rc = -1;
    if (st.io_error) {
        snprintf(err, errlen, "error reading it: %s", strerror(st.io_error));
    } else if (!st.idsize) {
        snprintf(err, errlen, "not an HPROF binary profile (bad header)");
    } else {
        struct pr_collect c;
        prc_init(&c, p);
        c.input_bytes = st.r.off;
        want &= ~PR_LAST_DUMP; /* a binary file's records are read as one */
        if (st.time_ms) {
            time_t secs = (time_t)(st.time_ms / 1000);
            struct tm tm;
            char when[64];
            if (localtime_r(&secs, &tm) && strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm))
                sp_set(p, &p->date, "%s", when);
        }
        traces(&c, &st);
        rows(&c, &st, &b);
        rc = prc_finish(&c, want, err, errlen);
        if (!rc && st.errors)
            sp_set(p, &p->note, "the file has %llu problems (hprof-dump --check tells)", (unsigned long long)st.errors);
        prc_free(&c);
    }
    hd_state_free(&st);
    free_bin(&b);
    return rc;
}
