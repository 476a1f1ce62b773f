/* SPDX-License-Identifier: Apache-2.0 */
#include "tables/monitors.h"

#include <stdlib.h>
#include <string.h>

#include "tables/classes.h"
#include "tables/traces.h"
#include "util/rank.h"

struct monitor_key {
    struct trace *trace;
    struct class_info *cls;
    bool juc;
};

static uint64_t key_hash(const struct monitor_key *k)
{
    return hash_mix64((uint64_t)(uintptr_t)k->trace * 31u ^ hash_mix64((uint64_t)(uintptr_t)k->cls) ^ k->juc);
}

static bool key_eq(const struct cmap_node *n, const void *key)
{
    const struct monitor_entry *e = (const struct monitor_entry *)n;
    const struct monitor_key *k = key;
    return e->trace == k->trace && e->cls == k->cls && e->juc == k->juc;
}

static struct cmap_node *make(const void *key, void *ctx)
{
    const struct monitor_key *k = key;
    struct monitor_table *t = ctx;
    struct monitor_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->trace = k->trace;
    e->cls = k->cls;
    e->juc = k->juc;
    atomic_init(&e->ns, 0);
    atomic_init(&e->count, 0);
    if (registry_add(&t->all, e) == UINT32_MAX) {
        free(e);
        return NULL;
    }
    return &e->node;
}

void monitors_init(struct monitor_table *t)
{
    cmap_init(&t->map);
    registry_init(&t->all);
}

void monitors_destroy(struct monitor_table *t)
{
    for (uint32_t i = 0; i < registry_count(&t->all); i++) free(registry_get(&t->all, i));
    registry_destroy(&t->all);
    cmap_destroy(&t->map);
}

struct monitor_entry *monitors_of(struct monitor_table *t, struct trace *trace, struct class_info *cls, bool juc)
{
    if (cls && cls->canonical) cls = cls->canonical; /* every loader's class of a name: one row */
    struct monitor_key k = {trace, cls, juc};
    return (struct monitor_entry *)cmap_intern(&t->map, key_hash(&k), &k, key_eq, make, t, NULL);
}

void monitors_add(struct monitor_entry *e, uint64_t ns)
{
    atomic_fetch_add_explicit(&e->ns, ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->count, 1, memory_order_relaxed);
}

uint32_t monitors_count(struct monitor_table *t) { return registry_count(&t->all); }
struct monitor_entry *monitors_at(struct monitor_table *t, uint32_t i) { return registry_get(&t->all, i); }

static uint64_t ns_of(const void *row) { return ((const struct monitor_row *)row)->ns; }

static int by_time_desc(const void *x, const void *y)
{
    const struct monitor_row *a = x, *b = y;
    if (a->ns != b->ns) return a->ns < b->ns ? 1 : -1;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    uint32_t sa = a->entry->trace ? a->entry->trace->serial : 0;
    uint32_t sb = b->entry->trace ? b->entry->trace->serial : 0;
    return (sa > sb) - (sa < sb);
}

void monitors_rank(struct monitor_table *t, bool take, double cutoff, struct monitor_times *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = monitors_count(t);
    if (n == 0) return;
    struct monitor_row *rows = calloc(n, sizeof *rows);
    if (!rows) return;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct monitor_entry *e = monitors_at(t, i);
        uint64_t count = take ? atomic_exchange(&e->count, 0) : atomic_load(&e->count);
        uint64_t ns = take ? atomic_exchange(&e->ns, 0) : atomic_load(&e->ns);
        if (!count && !ns) continue;
        rows[k].entry = e;
        rows[k].ns = ns;
        rows[k].count = count;
        out->total_ns += ns;
        out->total_count += count;
        k++;
    }
    if (k == 0) {
        free(rows);
        return;
    }
    out->rows = rows;
    out->nall = k;
    out->nrows = (int)rank_rows(rows, (size_t)k, sizeof *rows, by_time_desc, ns_of, out->total_ns, cutoff, 1);
}

void monitor_snapshot_free(struct monitor_snapshot *s)
{
    for (int i = 0; i < s->nmons; i++) {
        free(s->mons[i].enter_waiters);
        free(s->mons[i].notify_waiters);
    }
    free(s->mons);
    free(s->threads);
    free(s->contended.rows);
    free(s->waits.rows);
    memset(s, 0, sizeof *s);
}
