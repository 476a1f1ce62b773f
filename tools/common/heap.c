/* SPDX-License-Identifier: Apache-2.0 */
/* HEAP DUMP / HEAP DUMP SEGMENT / HEAP DUMP END records and their sub-records.
 *
 * Pass 1 runs while streaming: it prints, checks the structure, the string / trace /
 * thread / class references that must be defined before, and (with --check) collects the
 * dumped object ids and the CLASS DUMP field layouts. When a dump is complete (HEAP DUMP
 * record, or HEAP DUMP END after segments), pass 2 reads the dump's bodies again from
 * the file (or from a spool copy when the input cannot seek) and resolves every object
 * and class reference, which may point forward.
 * Called by records.c; calls lines.c, problems.c, reader.c, format.c and table.c. */
#include "hd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_NOT_COMPUTED  (-1)
#define SIZE_UNKNOWN       (-2)
#define SIZE_IN_PROGRESS   (-3)
#define MAX_INSTANCE_CHECK (64u << 20) /* larger instances are not decoded in pass 2 */

/* One sub-record other than a CLASS DUMP, as far as its kind has these fields. */
static const char CLASS_DUMP[] = "CLASS_DUMP"; /* the same pointer for every use (problems.c groups by it) */

typedef struct {
    int tag;
    const char *name;
    uint64_t off, obj;
    uint64_t other; /* JNI global ref, frame number, or class ID */
    uint32_t thread, trace, count;
    int type; /* PRIM_ARRAY_DUMP element type */
} sub;

static void add_obj(hd_state *st, uint64_t id)
{
    if (!st->check) return;
    HD_GROW(st->objs, st->nobjs, st->capobjs);
    if (st->nobjs && id < st->objs[st->nobjs - 1]) st->objs_sorted = 0;
    st->objs[st->nobjs++] = id;
}

static int obj_known(const hd_state *st, uint64_t id)
{
    size_t lo = 0, hi = st->nobjs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->objs[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nobjs && st->objs[lo] == id;
}

static void ref_obj(hd_state *st, uint64_t id, uint64_t off, const char *user)
{
    if (id && !obj_known(st, id)) hd_undefined(st, K_OBJECT, id, off, user);
}

static hd_hclass *hclass(hd_state *st, uint64_t id)
{
    uint64_t *slot = hd_map_get(&st->hclasses, id);
    return slot ? &st->hcv[*slot] : NULL;
}

static void ref_class(hd_state *st, uint64_t id, uint64_t off, const char *user)
{
    if (id && !hclass(st, id)) hd_undefined(st, K_HCLASS, id, off, user);
}

static void add_refoff(hd_state *st, uint32_t off)
{
    HD_GROW(st->refoffs, st->nrefoffs, st->caprefoffs);
    st->refoffs[st->nrefoffs++] = off;
}

/* Bytes of a class's own fields, and the offsets of its object fields among them;
 * SIZE_UNKNOWN when a field's type is invalid. */
static int64_t own_fields(hd_state *st, hd_hclass *c)
{
    int64_t own = 0;
    for (uint32_t i = 0; i < c->nfields; i++)
        if (!hd_type_size(st->ftypes[c->ftypes + i], st->idsize)) return SIZE_UNKNOWN;
    c->refs = st->nrefoffs;
    for (uint32_t i = 0; i < c->nfields; i++) {
        int t = st->ftypes[c->ftypes + i];
        if (t == HD_OBJECT) add_refoff(st, (uint32_t)own);
        own += hd_type_size(t, st->idsize);
    }
    c->nrefs = (uint32_t)(st->nrefoffs - c->refs);
    return own;
}

/* The layout of class i and of the supers it needs, with an explicit stack (a chain of
 * supers is as deep as the file makes it): each class is laid out once. A chain that
 * loops, or leads to a class with no CLASS_DUMP (reported as such by pass 2), leaves
 * the size of every class on it unknown. */
static void layout_chain(hd_state *st, size_t i, size_t **chain, size_t *cap)
{
    size_t n = 0;
    hd_hclass *c = &st->hcv[i], *top = NULL; /* top: the laid-out class the chain ends on */
    int64_t sup = 0;
    while (c) {
        HD_GROW(*chain, n, *cap);
        (*chain)[n++] = (size_t)(c - st->hcv);
        c->size = SIZE_IN_PROGRESS;
        hd_hclass *s = c->super ? hclass(st, c->super) : NULL;
        if (c->super && !s) {
            sup = SIZE_UNKNOWN;
        } else if (s && s->size == SIZE_IN_PROGRESS) {
            hd_error(st, s->off, "CLASS_DUMP 0x%llx: its chain of superclasses comes back to it (through 0x%llx)",
                     (unsigned long long)s->id, (unsigned long long)c->id);
            sup = SIZE_UNKNOWN;
        } else if (s && s->size != SIZE_NOT_COMPUTED) {
            top = s;
            sup = s->size;
        } else {
            c = s;
            continue;
        }
        break;
    }
    while (n) {
        c = &st->hcv[(*chain)[--n]];
        int64_t own = sup < 0 ? SIZE_UNKNOWN : own_fields(st, c);
        c->size = sup = own < 0 ? SIZE_UNKNOWN : own + sup;
        c->up = c->size < 0 ? 0 : c->nrefs ? (uint64_t)(c - st->hcv) + 1 : top ? top->up : 0;
        top = c;
    }
}

/* Lays out every class of the dump, before pass 2 reads its instances. */
static void layouts(hd_state *st)
{
    size_t *chain = NULL, cap = 0;
    for (size_t i = 0; i < st->nhc; i++)
        if (st->hcv[i].size == SIZE_NOT_COMPUTED) layout_chain(st, i, &chain, &cap);
    free(chain);
}

/* Pass 2 of an INSTANCE DUMP: the class, the byte count, the object fields. */
static void check_instance(hd_state *st, hd_body *b, const sub *s)
{
    uint32_t nbytes = s->count;
    hd_hclass *c = hclass(st, s->other);
    if (!c) {
        ref_class(st, s->other, s->off, s->name);
        hd_b_skip(b, nbytes);
        return;
    }
    int64_t want = c->size;
    if (want >= 0 && want != (int64_t)nbytes) {
        hd_error(st, s->off,
                 "INSTANCE_DUMP 0x%llx: %u bytes of field values, but class 0x%llx and its supers declare %lld",
                 (unsigned long long)s->obj, nbytes, (unsigned long long)s->other, (long long)want);
        want = SIZE_UNKNOWN;
    }
    if (want < 0 || !c->up || nbytes > MAX_INSTANCE_CHECK) {
        hd_b_skip(b, nbytes);
        return;
    }
    if (st->captmp < nbytes) {
        st->captmp = nbytes;
        st->tmp = hd_xrealloc(st->tmp, st->captmp);
    }
    if (!hd_b_has(b, nbytes) || hd_read(b->r, st->tmp, nbytes) < nbytes) return;
    b->left -= nbytes;
    /* each class visited has an object field in these bytes: at most nbytes / idsize */
    for (const hd_hclass *a = &st->hcv[c->up - 1];;) {
        uint64_t base = (uint64_t)(want - a->size); /* a's fields follow those of the classes below it */
        for (uint32_t k = 0; k < a->nrefs; k++)
            ref_obj(st, hd_load_be(st->tmp + base + st->refoffs[a->refs + k], st->idsize), s->off, s->name);
        const hd_hclass *sup = a->super ? hclass(st, a->super) : NULL;
        if (!sup || !sup->up) break;
        a = &st->hcv[sup->up - 1];
    }
}

/* One part of a CLASS DUMP (p: 0 constant pool, 1 static fields, 2 instance fields):
 * prints it, checks its names and values, and in pass 1 with --check notes the instance
 * field types. Returns 0 when a value of an invalid type leaves the rest unparseable. */
static int class_part(hd_state *st, hd_body *b, uint64_t soff, int pass, uint64_t id, int p, uint32_t *nfields)
{
    static const char *const label[3] = {" cp=", " statics=", " fields="};
    static const char *const what[3] = {"constant pool", "static fields", "instance fields"};
    const char *U = CLASS_DUMP;
    int print = pass == 1 && st->print;
    struct buf *L = &st->line;
    uint16_t n = hd_b_u2(b);
    if (print) buf_put(L, label[p], strlen(label[p]));
    if (print && !n) buf_put(L, "-", 1);
    for (uint32_t i = 0; i < n && !hd_b_bad(b); i++) {
        uint64_t key = p == 0 ? hd_b_u2(b) : hd_b_id(b);
        int type = hd_b_u1(b);
        if (hd_b_bad(b)) break;
        int sz = hd_type_size(type, st->idsize);
        if (!sz) {
            if (pass == 1)
                hd_error(st, soff, "CLASS_DUMP 0x%llx: invalid basic type %d in its %s", (unsigned long long)id, type,
                         what[p]);
            if (p < 2) return 0; /* the value's size is unknown: stop */
        }
        uint64_t v = p < 2 ? hd_b_un(b, sz) : 0;
        if (pass == 1 && p > 0) hd_use(st, K_STRING, key, soff, U, 0);
        if (pass == 2 && p < 2 && type == HD_OBJECT) ref_obj(st, v, soff, U);
        if (pass == 1 && p == 2 && st->check) {
            HD_GROW(st->ftypes, st->nftypes, st->capftypes);
            st->ftypes[st->nftypes++] = (uint8_t)type;
            (*nfields)++;
        }
        if (print) {
            if (i) buf_put(L, ",", 1);
            if (p == 0)
                buf_printf(L, "%llu", (unsigned long long)key);
            else
                hd_put_sid(st, key, 0);
            buf_printf(L, ":%s", sz ? hd_type_name(type) : "?");
            if (p < 2) {
                buf_put(L, "=", 1);
                hd_put_value(L, type, v);
            }
        }
    }
    return 1;
}

/* One CLASS DUMP. Returns 0 when the rest of the record cannot be parsed. */
static int class_dump(hd_state *st, hd_body *b, uint64_t soff, int pass)
{
    const char *U = CLASS_DUMP;
    uint64_t id = hd_b_id(b);
    uint32_t trace = hd_b_u4(b);
    uint64_t super = hd_b_id(b), loader = hd_b_id(b), signers = hd_b_id(b), domain = hd_b_id(b);
    hd_b_id(b); /* two reserved IDs */
    hd_b_id(b);
    uint32_t isize = hd_b_u4(b);
    int print = pass == 1 && st->print;
    if (print) {
        hd_line_begin(st, soff, 1, 0);
        buf_printf(&st->line, "CLASS_DUMP obj=0x%llx name=", (unsigned long long)id);
        hd_put_class_obj(st, id);
        buf_printf(&st->line, " trace=%u super=0x%llx loader=0x%llx signers=0x%llx domain=0x%llx instance_size=%u",
                   trace, (unsigned long long)super, (unsigned long long)loader, (unsigned long long)signers,
                   (unsigned long long)domain, isize);
    }
    if (pass == 2) {
        ref_class(st, super, soff, U);
        ref_obj(st, loader, soff, U);
        ref_obj(st, signers, soff, U);
        ref_obj(st, domain, soff, U);
    }
    size_t ftypes_start = st->nftypes;
    uint32_t nfields = 0;
    int parsed = 1;
    for (int p = 0; p < 3 && parsed; p++) parsed = class_part(st, b, soff, pass, id, p, &nfields);
    if (!parsed || hd_b_bad(b)) {
        st->nftypes = ftypes_start;
        return parsed; /* a short body is reported by the caller */
    }
    if (print) hd_line_end(st);
    if (pass == 1) {
        hd_use(st, K_TRACE, trace, soff, U, 1);
        hd_use(st, K_CLASSOBJ, id, soff, U, 0);
        add_obj(st, id);
        if (st->check && hd_map_put(&st->hclasses, id, st->nhc, NULL)) {
            HD_GROW(st->hcv, st->nhc, st->caphc);
            st->hcv[st->nhc++] = (hd_hclass){id, super, soff, nfields, ftypes_start, SIZE_NOT_COMPUTED, 0, 0, 0};
        } else {
            st->nftypes = ftypes_start; /* a second dump of the class: reported as a duplicate id */
        }
    }
    return 1;
}

/* Reads a sub-record's fields after its tag, and in pass 2 checks the references in an
 * array's or instance's body. Returns 0 when the rest of the record cannot be parsed. */
static int sub_fields(hd_state *st, hd_body *b, sub *s, int pass, const char *rec)
{
    s->obj = hd_b_id(b);
    switch (s->tag) {
    case 0x01: /* ROOT_JNI_GLOBAL */ s->other = hd_b_id(b); break;
    case 0x02:
    case 0x03: /* ROOT_JNI_LOCAL, ROOT_JAVA_FRAME */
        s->thread = hd_b_u4(b);
        s->other = hd_b_u4(b);
        break;
    case 0x04:
    case 0x06: /* ROOT_NATIVE_STACK, ROOT_THREAD_BLOCK */ s->thread = hd_b_u4(b); break;
    case 0x08: /* ROOT_THREAD_OBJECT */
        s->thread = hd_b_u4(b);
        s->trace = hd_b_u4(b);
        break;
    case 0x21: /* INSTANCE_DUMP */
        s->trace = hd_b_u4(b);
        s->other = hd_b_id(b);
        s->count = hd_b_u4(b);
        if (hd_b_bad(b) || !hd_b_has(b, s->count)) break;
        if (pass == 2)
            check_instance(st, b, s);
        else
            hd_b_skip(b, s->count);
        break;
    case 0x22: { /* OBJ_ARRAY_DUMP */
        s->trace = hd_b_u4(b);
        s->count = hd_b_u4(b);
        s->other = hd_b_id(b);
        uint64_t bytes = (uint64_t)s->count * (uint64_t)st->idsize;
        if (hd_b_bad(b) || !hd_b_has(b, bytes)) break;
        if (pass == 1) {
            hd_b_skip(b, bytes);
            break;
        }
        ref_class(st, s->other, s->off, s->name);
        for (uint32_t i = 0; i < s->count && !hd_b_bad(b); i++) ref_obj(st, hd_b_id(b), s->off, s->name);
        break;
    }
    case 0x23: { /* PRIM_ARRAY_DUMP */
        s->trace = hd_b_u4(b);
        s->count = hd_b_u4(b);
        s->type = hd_b_u1(b);
        if (hd_b_bad(b)) break;
        int sz = s->type == HD_OBJECT ? 0 : hd_type_size(s->type, st->idsize);
        if (!sz) {
            if (pass == 1)
                hd_error(st, s->off,
                         "PRIM_ARRAY_DUMP 0x%llx: invalid element type %d; the rest of the %s record is skipped",
                         (unsigned long long)s->obj, s->type, rec);
            return 0;
        }
        if (hd_b_has(b, (uint64_t)s->count * (uint64_t)sz)) hd_b_skip(b, (uint64_t)s->count * (uint64_t)sz);
        break;
    }
    }
    return 1;
}

/* The output line of a sub-record other than a CLASS DUMP. */
static void print_sub(hd_state *st, const sub *s)
{
    struct buf *L = &st->line;
    hd_line_begin(st, s->off, 1, 0);
    buf_printf(L, "%s obj=0x%llx", s->name, (unsigned long long)s->obj);
    switch (s->tag) {
    case 0x01: buf_printf(L, " ref=0x%llx", (unsigned long long)s->other); break;
    case 0x02:
    case 0x03: buf_printf(L, " thread=%u frame=%d", s->thread, (int)(int32_t)s->other); break;
    case 0x04:
    case 0x06: buf_printf(L, " thread=%u", s->thread); break;
    case 0x08: buf_printf(L, " thread=%u trace=%u", s->thread, s->trace); break;
    case 0x21:
        buf_printf(L, " trace=%u class=0x%llx(", s->trace, (unsigned long long)s->other);
        hd_put_class_obj(st, s->other);
        buf_printf(L, ") nbytes=%u", s->count);
        break;
    case 0x22:
        buf_printf(L, " trace=%u n=%u class=0x%llx(", s->trace, s->count, (unsigned long long)s->other);
        hd_put_class_obj(st, s->other);
        buf_put(L, ")", 1);
        break;
    case 0x23: buf_printf(L, " trace=%u n=%u type=%s", s->trace, s->count, hd_type_name(s->type)); break;
    }
    hd_line_end(st);
}

/* ---- thread roots (--check) ---- */

static int on_thread(int tag) { return tag == 0x02 || tag == 0x03 || tag == 0x04 || tag == 0x06 || tag == 0x08; }

/* A thread started before the dump began and not ended before. */
static int live_at_dump(hd_state *st, const hd_thread *t)
{
    uint64_t *end = hd_map_get(&st->thread_ends, t->serial);
    return t->def < st->dump_off && (!end || *end > st->dump_off);
}

/* Pass 1: a root on a thread names a thread (serial 0 is none); a ROOT_THREAD_OBJECT
 * holds the object its START_THREAD names, comes once per thread in a dump, and its trace
 * is of that thread. */
static void check_thread_root(hd_state *st, const sub *s)
{
    if (!s->thread) {
        hd_strict(st, s->off, "%s 0x%llx: thread serial 0 (a thread's root names its START_THREAD)", s->name,
                  (unsigned long long)s->obj);
        return;
    }
    if (s->tag != 0x08) return;
    hd_map_put(&st->root_threads, s->thread, 0, NULL);
    uint64_t *t = hd_map_get(&st->threads, s->thread);
    if (t && st->thv[*t].obj != s->obj)
        hd_strict(st, s->off, "ROOT_THREAD_OBJECT 0x%llx of thread %u: its START_THREAD names object 0x%llx",
                  (unsigned long long)s->obj, s->thread, (unsigned long long)st->thv[*t].obj);
    uint64_t *tr = s->trace ? hd_map_get(&st->traces, s->trace) : NULL;
    if (tr && st->trv[*tr].thread && st->trv[*tr].thread != s->thread)
        hd_strict(st, s->off, "ROOT_THREAD_OBJECT 0x%llx of thread %u: its trace %u is of thread %u",
                  (unsigned long long)s->obj, s->thread, s->trace, st->trv[*tr].thread);
    if (!hd_map_put(&st->dump_threads, s->thread, tr ? 1 + (uint64_t)st->trv[*tr].nframes : 0, NULL))
        hd_error(st, s->off, "%s: thread %u has a second ROOT_THREAD_OBJECT", st->dump_kind, s->thread);
    else if (t && live_at_dump(st, &st->thv[*t]))
        st->dump_live_rooted++;
}

/* Pass 2: a Java frame root numbers a frame of its thread's trace (a warning: a thread
 * may have moved between its stack and the walk of a running program). */
static void check_frame_root(hd_state *st, const sub *s)
{
    uint64_t *n = s->thread ? hd_map_get(&st->dump_threads, s->thread) : NULL;
    if (n && *n && ((int32_t)s->other < 0 || (uint64_t)(int32_t)s->other >= *n - 1))
        hd_warning(st, s->off, "ROOT_JAVA_FRAME 0x%llx: frame %d of thread %u, whose trace has %llu frames",
                   (unsigned long long)s->obj, (int)(int32_t)s->other, s->thread, (unsigned long long)(*n - 1));
}

/* At the dump's end: a thread started and not ended before it has its root in it (a
 * warning: a thread may end while the dump is made). Counted as the records go, so that
 * many threads and many dumps take no time by their product; the threads are looked
 * through for examples only while messages are still shown. */
static void check_threads_alive(hd_state *st)
{
    uint64_t missing = st->dump_live - st->dump_live_rooted;
    if (!missing) return;
    struct buf ex = {0};
    for (size_t i = 0, n = 0; i < st->nth && n < 4 && st->printed_warnings < HD_MAX_MESSAGES; i++) {
        const hd_thread *t = &st->thv[i];
        if (live_at_dump(st, t) && !hd_map_get(&st->dump_threads, t->serial))
            buf_printf(&ex, n++ ? ", %u" : "%u", t->serial);
    }
    if (missing > 4 && ex.len) buf_put(&ex, ", ...", 5);
    hd_warning(st, st->dump_off, "%s: %llu thread%s started and not ended %s no ROOT_THREAD_OBJECT in it%s%s",
               st->dump_kind, (unsigned long long)missing, missing == 1 ? "" : "s", missing == 1 ? "has" : "have",
               ex.len ? ": " : "", ex.len ? hd_buf_text(&ex) : "");
    buf_free(&ex);
}

/* The references of a whole sub-record other than a CLASS DUMP: in pass 1 its thread
 * and trace serials, and the object it dumps; in pass 2 the object a root holds. */
static void sub_refs(hd_state *st, const sub *s, int pass)
{
    int tag = s->tag;
    int dumped = tag >= 0x21 && tag <= 0x23; /* else a root */
    if (pass == 2) {
        if (!dumped) ref_obj(st, s->obj, s->off, s->name);
        if (tag == 0x03) check_frame_root(st, s);
        return;
    }
    if (on_thread(tag)) {
        hd_use(st, K_THREAD, s->thread, s->off, s->name, 1);
        if (st->check) check_thread_root(st, s);
    }
    if (tag == 0x08 || dumped) hd_use(st, K_TRACE, s->trace, s->off, s->name, 1);
    if (dumped) add_obj(st, s->obj);
}

/* Parses sub-records to the end of the body. */
static void subrecords(hd_state *st, hd_body *b, int pass, const char *rec)
{
    uint64_t end = b->r->off + b->left;
    while (b->left && !hd_b_bad(b)) {
        sub s = {0};
        s.off = b->r->off;
        s.tag = hd_b_u1(b);
        s.name = hd_sub_name(s.tag);
        if (!s.name) {
            if (pass == 1)
                hd_error(st, s.off, "%s: unknown sub-record tag 0x%02x; the rest of the record (%llu bytes) is skipped",
                         rec, s.tag, (unsigned long long)b->left);
            return;
        }
        if (pass == 1) {
            st->sub_count[s.tag]++;
            st->subrecords++;
        }
        int parsed = s.tag == 0x20 ? class_dump(st, b, s.off, pass) : sub_fields(st, b, &s, pass, rec);
        if (!parsed) return;
        if (hd_b_bad(b)) {
            if (pass == 1 && b->short_)
                hd_error(st, s.off, "%s: %s sub-record runs past the end of its record (which ends at 0x%llx)", rec,
                         s.name, (unsigned long long)end);
            return;
        }
        if (s.tag == 0x20) continue; /* printed and checked by class_dump */
        if (pass == 1 && st->print) print_sub(st, &s);
        if (pass == 1 && st->visit && st->visit->object && s.tag >= 0x21 && s.tag <= 0x23)
            st->visit->object(st->visit->ctx, st, s.tag, s.trace, s.other, s.type, s.count);
        sub_refs(st, &s, pass);
    }
}

static void dump_open(hd_state *st, uint64_t off, const char *kind)
{
    st->in_dump = 1;
    st->dump_off = off;
    st->dump_live = st->live_threads;
    st->dump_live_rooted = 0;
    st->dump_kind = kind;
    if (st->visit && st->visit->heap_dump) st->visit->heap_dump(st->visit->ctx, st);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The dump is complete: duplicate ids, then pass 2 over its bodies. */
static void dump_close(hd_state *st)
{
    if (st->check) {
        if (!st->objs_sorted) qsort(st->objs, st->nobjs, sizeof *st->objs, cmp_u64);
        for (size_t i = 0, j; i < st->nobjs; i = j) {
            for (j = i + 1; j < st->nobjs && st->objs[j] == st->objs[i];) j++;
            if (j - i > 1)
                hd_error(st, st->dump_off, "%s: object ID 0x%llx is dumped %zu times", st->dump_kind,
                         (unsigned long long)st->objs[i], j - i);
        }
        layouts(st);
        /* one reader for every dump's pass 2: a file of many small dumps would otherwise
         * take a buffer of a MiB for each few bytes */
        hd_reader *r2 = &st->pass2;
        if (!r2->buf) hd_reader_init(r2, st->spool_fd >= 0 ? st->spool_fd : st->fd, 0, 1);
        for (size_t i = 0; i < st->nsegs && !r2->err; i++) {
            r2->pos = r2->len = 0;
            r2->eof = 0;
            r2->file_off = r2->off = st->segs[i].off;
            hd_body b = {r2, st->segs[i].len, st->idsize, 0};
            subrecords(st, &b, 2, st->dump_kind);
        }
        if (r2->err && !st->io_error) st->io_error = r2->err;
        check_threads_alive(st);
        if (st->spool_fd >= 0) {
            if (ftruncate(st->spool_fd, 0) != 0 && !st->io_error) st->io_error = EIO;
            lseek(st->spool_fd, 0, SEEK_SET);
            st->r.tee_len = 0;
        }
    }
    st->heap_dumps++;
    st->in_dump = st->seg_open = 0;
    st->nsegs = st->nobjs = st->nhc = st->nftypes = st->nrefoffs = 0;
    st->objs_sorted = 1;
    hd_map_free(&st->hclasses);
    hd_map_free(&st->dump_threads);
}

void hd_heap_record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time)
{
    const char *name = hd_tag_name(tag);
    if (tag == 0x2C) {
        if (b->left) hd_error(st, off, "HEAP_DUMP_END: record length %llu (must be 0)", (unsigned long long)b->left);
        if (st->print) {
            hd_line_begin(st, off, 0, time);
            buf_put(&st->line, "HEAP_DUMP_END", 13);
            hd_line_end(st);
        }
        if (!st->seg_open)
            hd_error(st, off, "HEAP_DUMP_END without a HEAP_DUMP_SEGMENT before it");
        else
            dump_close(st);
        return;
    }
    if (st->seg_open && tag == 0x0C) {
        hd_error(st, off, "HEAP_DUMP while the HEAP_DUMP_SEGMENTs from 0x%llx are not closed by HEAP_DUMP_END",
                 (unsigned long long)st->dump_off);
        dump_close(st);
    }
    if (tag == 0x1C && st->minor == 1 && st->rec_count[0x1C] == 1)
        hd_error(st, off, "HEAP_DUMP_SEGMENT in a \"JAVA PROFILE 1.0.1\" file (segments need 1.0.2)");
    if (!st->in_dump) dump_open(st, off, name);
    if (tag == 0x1C) st->seg_open = 1;
    if (st->print) {
        hd_line_begin(st, off, 0, time);
        buf_printf(&st->line, "%s length=%llu", name, (unsigned long long)b->left);
        hd_line_end(st);
    }
    uint64_t len = b->left;
    hd_span span = {st->r.off, 0};
    if (st->check && st->spool_fd >= 0) {
        hd_tee_start(&st->r, st->spool_fd);
        span.off = st->r.tee_len;
    }
    subrecords(st, b, 1, name);
    if (st->r.tee_fd >= 0) hd_tee_stop(&st->r);
    span.len = len - b->left;
    if (st->check) {
        HD_GROW(st->segs, st->nsegs, st->capsegs);
        st->segs[st->nsegs++] = span;
    }
    if (tag == 0x0C) dump_close(st);
}

void hd_heap_finish(hd_state *st)
{
    if (!st->seg_open) return;
    hd_error(st, st->dump_off, "the HEAP_DUMP_SEGMENTs from here are not closed by HEAP_DUMP_END");
    dump_close(st);
}

void hd_heap_free(hd_state *st)
{
    free(st->segs);
    free(st->objs);
    free(st->hcv);
    free(st->ftypes);
    free(st->refoffs);
    free(st->tmp);
    hd_reader_free(&st->pass2);
    hd_map_free(&st->hclasses);
    hd_map_free(&st->dump_threads);
}
