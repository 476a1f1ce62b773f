/* SPDX-License-Identifier: Apache-2.0 */
/* Problems: errors and warnings (at most HD_MAX_MESSAGES of each shown), and the
 * references to IDs: a use of an ID not defined (yet) is noted, a later definition
 * of it too, and at the end one message sums up the uses per record kind and ID kind.
 * Calls only table.c. */
#include "hd.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNDEF_ENTRIES 10000

static void message(hd_state *st, int warn, uint64_t off, const char *fmt, va_list ap)
{
    uint64_t *printed = warn ? &st->printed_warnings : &st->printed_errors;
    if (warn)
        st->warnings++;
    else
        st->errors++;
    if (*printed >= HD_MAX_MESSAGES) return;
    (*printed)++;
    fflush(st->out);
    fprintf(stderr, "%s: %s@0x%llx: ", warn ? "warning" : "error", st->path, (unsigned long long)off);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void hd_error(hd_state *st, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(st, 0, off, fmt, ap);
    va_end(ap);
}

void hd_warning(hd_state *st, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(st, 1, off, fmt, ap);
    va_end(ap);
}

void hd_strict(hd_state *st, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(st, st->lenient, off, fmt, ap);
    va_end(ap);
}

static const char *const kind_name[K_NKINDS] = {
    "string ID",     "class serial",    "frame ID",  "trace serial",
    "thread serial", "class object ID", "object ID", "class ID",
};
static const char *const kind_definer[K_NKINDS] = {
    "STRING", "LOAD_CLASS", "FRAME", "TRACE", "START_THREAD", "LOAD_CLASS", "dumped object", "CLASS_DUMP",
};

/* Undefined record-level references are warnings under --lenient; references
 * inside a heap dump that do not resolve stay errors. */
static int is_warning(const hd_state *st, int kind) { return st->lenient && kind < K_OBJECT; }

#define NO_NEXT ((size_t)-1)

void hd_undefined(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user)
{
    uint64_t *head = hd_map_get(&st->undef_idx[kind], id);
    size_t last = NO_NEXT;
    for (size_t i = head ? (size_t)*head : NO_NEXT; i != NO_NEXT; i = st->undv[i].next) {
        if (st->undv[i].user == user) {
            st->undv[i].count++;
            return;
        }
        last = i;
    }
    if (st->nund >= MAX_UNDEF_ENTRIES) {
        if (is_warning(st, kind))
            st->undef_dropped_warn++;
        else
            st->undef_dropped_err++;
        return;
    }
    HD_GROW(st->undv, st->nund, st->capund);
    st->undv[st->nund] = (hd_undef){kind, id, 1, off, 0, user, NO_NEXT};
    if (last != NO_NEXT)
        st->undv[last].next = st->nund;
    else
        hd_map_put(&st->undef_idx[kind], id, st->nund, NULL);
    st->nund++;
}

void hd_defined(hd_state *st, int kind, uint64_t id, uint64_t off)
{
    if (!st->undef_idx[kind].n) return;
    uint64_t *head = hd_map_get(&st->undef_idx[kind], id);
    for (size_t i = head ? (size_t)*head : NO_NEXT; i != NO_NEXT; i = st->undv[i].next)
        if (!st->undv[i].def_off) st->undv[i].def_off = off;
}

void hd_use(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user, int zero_ok)
{
    if (!st->check || (id == 0 && zero_ok)) return;
    const hd_map *m;
    switch (kind) {
    case K_STRING: m = &st->strings; break;
    case K_CLASS: m = &st->classes_by_serial; break;
    case K_FRAME: m = &st->frames; break;
    case K_TRACE: m = &st->traces; break;
    case K_THREAD: m = &st->threads; break;
    case K_CLASSOBJ: m = &st->classes_by_obj; break;
    default: return;
    }
    if (!hd_map_get(m, id)) hd_undefined(st, kind, id, off, user);
}

#define MAX_EXAMPLES 4

static void put_id(struct buf *sb, int kind, uint64_t id)
{
    int hex = kind == K_STRING || kind == K_FRAME || kind >= K_CLASSOBJ;
    buf_printf(sb, hex ? "0x%llx" : "%llu", (unsigned long long)id);
}

/* A JVM's own heap dump (jcmd GC.heap_dump, -XX:+HeapDumpOnOutOfMemoryError, hprof heap):
 * one heap dump, and no record but those HotSpot's dumper writes (STRING, LOAD_CLASS,
 * FRAME, TRACE and the dump's). A profiler's file has others: this agent's (and the
 * original's) begin with CONTROL_SETTINGS, and a heap dump of ours has it too. */
static int jvm_heap_dump(const hd_state *st)
{
    static const uint8_t HOTSPOT[] = {0x01, 0x02, 0x04, 0x05, 0x0C, 0x1C, 0x2C};
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof HOTSPOT; i++) n += st->rec_count[HOTSPOT[i]];
    return st->heap_dumps == 1 && n == st->records;
}

/* What HotSpot's heap dumps hold by design: it writes no START_THREAD (a thread serial is
 * defined by its ROOT_THREAD_OBJECT) and names its empty trace (thread 0, no frames) in
 * the LOAD_CLASS records it writes before that TRACE (JDK 25). */
static int jvm_normal(hd_state *st, const hd_undef *u)
{
    if (u->kind == K_THREAD) return hd_map_get(&st->root_threads, u->id) != NULL;
    uint64_t *t = u->kind == K_TRACE && u->def_off ? hd_map_get(&st->traces, u->id) : NULL;
    return t && !st->trv[*t].nframes && !st->trv[*t].thread;
}

/* What HotSpot's dumps hold by a defect: an object array that refers to objects the dump
 * leaves out (JDK 17 and 25 with CDS: the archived heap's array of roots holds the mirrors of
 * archived classes that are not loaded, which the dumper skips). In the JVM's own dumps
 * only; any such array, not the roots' alone: nothing in the file names that array (an
 * Object[] under a ROOT_JNI_GLOBAL, split into several since JDK 22), and what is kept
 * of a reference to an undumped ID here is its first user's offset. */
static int jvm_defect(const hd_undef *u) { return u->kind == K_OBJECT && !strcmp(u->user, "OBJ_ARRAY_DUMP"); }

/* Array classes loaded again (records.c): HotSpot's defect in the JVM's own dumps, a
 * class object ID defined twice (an error) in any other file. */
static void report_array_reloads(hd_state *st, int jvm)
{
    if (!st->array_reloads) return;
    if (jvm)
        hd_warning(st, st->array_reload_off,
                   "LOAD_CLASS: %llu array classes loaded again, each under a second serial with the same name: "
                   "HotSpot's heap dumper in JDK 17 writes every array class twice (a defect of the JVM; "
                   "read here as one class)",
                   (unsigned long long)st->array_reloads);
    else
        hd_error(st, st->array_reload_off,
                 "LOAD_CLASS: %llu array classes loaded again, each under a second serial with the same name "
                 "(their class object IDs defined again): only the JVM's own heap dumps (JDK 17) may, and this "
                 "file is not one",
                 (unsigned long long)st->array_reloads);
}

/* One message per (user record, kind, defined later or never): the number of IDs,
 * a few of them with their use counts, and the first use's offset. */
void hd_report_undefined(hd_state *st)
{
    int jvm = jvm_heap_dump(st);
    report_array_reloads(st, jvm);
    uint8_t *done = hd_xrealloc(NULL, st->nund + 1);
    memset(done, 0, st->nund + 1);
    for (size_t i = 0; jvm && i < st->nund; i++) done[i] = jvm_normal(st, &st->undv[i]);
    struct buf sb = {0};
    for (size_t i = 0; i < st->nund; i++) {
        if (done[i]) continue;
        hd_undef *g = &st->undv[i];
        int later = g->def_off != 0;
        uint64_t ids = 0, uses = 0, first = g->first_off;
        sb.len = 0;
        for (size_t j = i; j < st->nund; j++) {
            hd_undef *u = &st->undv[j];
            if (done[j] || u->kind != g->kind || u->user != g->user || (u->def_off != 0) != later) continue;
            done[j] = 1;
            ids++;
            uses += u->count;
            if (u->first_off < first) first = u->first_off;
            if (ids > MAX_EXAMPLES) continue;
            if (ids > 1) buf_put(&sb, ", ", 2);
            put_id(&sb, u->kind, u->id);
            if (u->count > 1 && later)
                buf_printf(&sb, " (%llu uses; %s at 0x%llx)", (unsigned long long)u->count, kind_definer[u->kind],
                           (unsigned long long)u->def_off);
            else if (later)
                buf_printf(&sb, " (%s at 0x%llx)", kind_definer[u->kind], (unsigned long long)u->def_off);
            else if (u->count > 1)
                buf_printf(&sb, " (%llu uses)", (unsigned long long)u->count);
        }
        if (ids > MAX_EXAMPLES) buf_printf(&sb, ", ... (%llu uses in all)", (unsigned long long)uses);
        int defect = jvm && jvm_defect(g);
        void (*say)(hd_state *, uint64_t, const char *, ...) =
            is_warning(st, g->kind) || defect ? hd_warning : hd_error;
        const char *what = kind_name[g->kind], *definer = kind_definer[g->kind], *list = hd_buf_text(&sb);
        if (g->kind >= K_OBJECT)
            say(st, first, "%s refers to %llu %s%s that %s in this heap dump: %s%s", g->user, (unsigned long long)ids,
                what, ids > 1 ? "s" : "",
                g->kind == K_OBJECT ? (ids > 1 ? "are not dumped" : "is not dumped")
                                    : (ids > 1 ? "have no CLASS_DUMP" : "has no CLASS_DUMP"),
                list,
                defect ? "; HotSpot's heap dumper leaves out objects that an array of the CDS archived "
                         "heap holds (seen in JDK 17 and 25: a defect of the JVM, a warning here)"
                       : "");
        else if (later)
            say(st, first, "%s uses %llu %s%s before the %s that defines %s: %s", g->user, (unsigned long long)ids,
                what, ids > 1 ? "s" : "", definer, ids > 1 ? "them" : "it", list);
        else
            say(st, first, "%s uses %llu %s%s that no %s defines: %s", g->user, (unsigned long long)ids, what,
                ids > 1 ? "s" : "", definer, list);
    }
    buf_free(&sb);
    free(done);
    if (st->undef_dropped_err)
        hd_error(st, 0, "%llu more references to undefined IDs (not listed)",
                 (unsigned long long)st->undef_dropped_err);
    if (st->undef_dropped_warn)
        hd_warning(st, 0, "%llu more references to undefined IDs (not listed)",
                   (unsigned long long)st->undef_dropped_warn);
}
