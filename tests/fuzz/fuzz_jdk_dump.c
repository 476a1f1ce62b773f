/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the reader of the JVM's own heap dump (sources/heapdump/jdk_dump_reader.c
 * and the jdk_dump_* files it uses), which the agent runs on the file the JVM wrote:
 * pass 1 (jdr_open), then what the agent's caller (sources/heapdump/jdk_dumper.c) does: name the
 * classes (some left unknown, some with a field order), a thread and a hidden object from
 * the marker, then pass 2 (jdr_write) into a writer that reads every byte it is given,
 * so that ASan sees each value the reader hands over. Invariants: a refused dump says
 * why; the writer is called prepare, begin, ..., end; every object ID written is one
 * the caller gave or one of those the reader asked for. Seeds: dumps the unit test
 * builds (marker with this nonce), and real JVM dumps cut short. */
#include "fuzz_target.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/jdk_dump_reader.h"
#include "tables/classes.h"

static const uint64_t NONCE[2] = {0x1122334455667788ull, 0x99AABBCCDDEEFF00ull};
#define BASE 0x50001000u

static struct {
    int prepared, begun, ended;
    uint64_t ids, sum;
} w;

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

static void touch(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) w.sum += p[i];
}

static void object_id(uint32_t id)
{
    /* below BASE: the IDs the caller gave (class mirrors, the thread) */
    if (id >= BASE && id - BASE >= w.ids) broken("an object ID outside those asked for");
}

static void w_prepare(struct hd_session *s, struct hd_class *c, uint32_t n)
{
    if (w.prepared++ || w.begun) broken("prepare twice or late");
    for (uint32_t i = 0; i < n; i++) {
        touch(c[i].static_values, c[i].static_bytes);
        for (uint32_t f = 0; f < c[i].nfields; f++) w.sum += strlen(c[i].fields[f].name) + c[i].fields[f].type;
        for (uint32_t f = 0; f < c[i].nstatics; f++) w.sum += strlen(c[i].statics[f].name) + c[i].statics[f].type;
    }
}
static void w_begin(struct hd_session *s, uint64_t no, uint64_t nb)
{
    if (!w.prepared || w.begun++) broken("begin before prepare, or twice");
}
static void w_root(struct hd_session *s, const struct hd_root_info *r)
{
    if (!w.begun || w.ended) broken("a root outside begin..end");
    if (r->kind != HD_ROOT_THREAD_OBJECT && r->kind != HD_ROOT_STICKY_CLASS) object_id(r->id);
}
static void w_class(struct hd_session *s, const struct hd_class *c)
{
    if (!w.begun || w.ended) broken("a class outside begin..end");
    touch(c->static_values, c->static_bytes);
    w.sum += c->loader_id + (c->super ? c->super->inst_bytes : 0);
}
static void w_inst(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                   const uint8_t *v)
{
    object_id(id);
    touch(v, c->inst_bytes);
}
static void w_obj(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                  uint32_t n, const uint32_t *e)
{
    object_id(id);
    for (uint32_t i = 0; i < n; i++) w.sum += e[i];
}
static void w_prim(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                   uint32_t n, int type, const uint8_t *e)
{
    object_id(id);
    touch(e, (size_t)n * hd_type_size(type));
}
static void w_end(struct hd_session *s)
{
    if (!w.begun || w.ended++) broken("end before begin, or twice");
}
static const struct heap_dump_writer NOTE = {w_prepare, w_begin, w_root, w_class, w_inst, w_obj, w_prim, w_end};

/* What the agent would say of the dump's class k: its class_info (signature from the
 * dump's name), for four classes in five. */
static struct class_info *name_class(struct jdr *r, uint32_t k, struct class_info *ci)
{
    const char *n = jdr_class_name(r, k);
    if (!n || k % 5 == 4) return NULL;
    size_t len = strlen(n);
    char *sig = malloc(len + 3);
    if (!sig) return NULL;
    if (n[0] == '[')
        memcpy(sig, n, len + 1);
    else
        snprintf(sig, len + 3, "L%s;", n);
    ci->serial = 100001 + k;
    ci->object_id = 0x40000000u + k;
    ci->signature = sig;
    ci->name = sig;
    return ci;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    struct jdr *r = jdr_open(data, size, false, NONCE, 5, &why);
    if (!r) {
        if (!why || !why[0]) broken("a dump refused without a reason");
        return 0;
    }
    static const char *inst_order[] = {"x", "y"}, *stat_order[] = {"st", "code"};
    static const struct jdr_order order = {inst_order, 2, stat_order, 2};
    uint32_t n = jdr_class_count(r);
    struct class_info *infos = calloc(n ? n : 1, sizeof *infos);
    for (uint32_t k = 0; infos && k < n; k++) {
        jdr_class_id(r, k);
        if (name_class(r, k, &infos[k])) jdr_set_class(r, k, &infos[k], k % 2 ? &order : NULL);
    }
    jdr_set_thread(r, jdr_marker_element(r, 3), 0x50000010, 200001);
    jdr_hide(r, jdr_marker_element(r, 4));
    uint64_t mon = jdr_marker_element(r, 1);
    memset(&w, 0, sizeof w);
    w.ids = jdr_ids_needed(r);
    if (w.ids && w.ids < 0xA0000000u - BASE) { /* the agent takes its IDs from the same range */
        jdr_write(r, &NOTE, NULL, BASE, &mon, mon ? 1 : 0);
        if (!w.ended) broken("jdr_write did not end the dump");
    }
    jdr_close(r);
    for (uint32_t k = 0; infos && k < n; k++) free(infos[k].signature);
    free(infos);
    return 0;
}
