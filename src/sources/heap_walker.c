/*
 * heap=dump: the heap at the moment of the dump, after a GC.
 *
 * 1. Every loaded class is named (class table, tag = its class_info) and laid out: its
 *    own instance and static fields with their basic types, and for each JVMTI field
 *    index where the value goes in the binary layout (own fields first, then the super's).
 *    Thread objects are tagged with their thread_info's object ID, so START THREAD and
 *    the dump agree.
 * 2. One JVMTI FollowReferences walk from the roots. Roots become ROOT sub-records. Every
 *    object the walk reaches is first reported as a referee, where it gets its ID (an odd
 *    tag, see tags.h; an array's length rides in the tag's high bits, since JVMTI tells
 *    it only then). Then the walk visits it: the reference to its class comes first, then
 *    its fields or elements (HotSpot reports one object's references together), so the
 *    record of the object being visited is complete when the walk moves to the next one
 *    and is written at once: the dump streams, and the agent keeps nothing per object.
 * 3. The classes (CLASS DUMP, with the static values and loader, signers and protection
 *    domain the walk reported), then the end of the dump.
 *
 * The walk's callbacks run inside the VM (no JNI, no JVMTI but raw memory), with the
 * output lock held by the dumping thread.
 *
 * With heap=sites on too, each object the allocation tracker counted carries its site's
 * trace. Before the walk the tracker tags the objects it counted with their site ids in
 * the dump's environment (alloc_tracker_tag_sites); a site id met when an object is
 * named is noted against its new ID (site_of). Tags mean there: below SITE_TAG_END a
 * site id; odd above it an object's ID; even above it a class (see class_tag_of). An
 * object made before the walk whose constructor runs after it is not counted yet, so
 * it shows no site.
 */
#include "sources/heap_walker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host.h"
#include "sources/alloc_tracker.h"
#include "sources/resolve.h"
#include "tables/ids.h"
#include "tables/sites.h"
#include "tables/tags.h"
#include "util/buf.h"
#include "util/log.h"
#include "tables/heap_records.h"

/* The high bits of an object's tag: an array's length (bits 33..63). */
#define TAG_ID_MASK 0x1FFFFFFFFLL
#define TAG_LEN_SHIFT 33
/* A class's tag: its index in the dump's classes, in bits 34.. (never a pointer, so that
 * a site id taken for a class tag cannot be followed). */
#define CLASS_TAG_SHIFT 34
/* The tracker's site ids are below every object tag of the dump (IDs start above
 * ID_OBJECT_BASE): billions of sites would be needed to reach it. */
#define SITE_TAG_END ((jlong)ID_OBJECT_BASE << 1)

/* What the walker knows of a class beyond what the writers see. */
struct cls_extra {
    jclass ref;                 /* local reference while the dump runs */
    uint32_t nall;              /* fields GetClassFields returned, statics included */
    uint8_t *all_static;        /* per field: static? */
    uint8_t *all_type;          /* per field: enum hd_type */
    uint32_t *all_off;          /* per field: offset among its kind (instance/static) */
    jfieldID *fids;             /* per field: its ID (for objects read through JNI) */
    uint32_t chain;             /* fields of this class and its supers (JVMTI index space) */
    uint32_t nifields;          /* fields of every interface it implements */
    int state;                  /* 0 not laid out, 1 in progress, 2 done */
    int64_t pending;            /* its objects named and not written yet */
    uint32_t stamp;
};

struct walk {
    struct host *h;
    jvmtiEnv *tj;                          /* this dump's own JVMTI environment: its tags */
    JNIEnv *jni;
    const struct heap_dump_writer *wr;
    struct hd_session *s;         /* the sink's */
    struct hd_class *cls;
    struct cls_extra *ext;
    uint32_t ncls;
    uint32_t stamp;
    struct hd_class *object_class;         /* java.lang.Object */

    struct { uint32_t id, serial, site; } *threads;
    uint32_t nthreads;

    /* the object being visited */
    jlong cur;                             /* its tag (an object's: the ID part); 0 none */
    jlong done;                            /* the object written last */
    enum { CUR_NONE, CUR_INSTANCE, CUR_OBJ_ARRAY, CUR_PRIM_ARRAY, CUR_CLASS } cur_kind;
    struct hd_class *cur_cls;
    uint32_t cur_len;
    uint8_t *vals;
    size_t vals_cap;
    uint32_t *elems;
    size_t elems_cap;
    uint8_t *pbuf;
    size_t pbuf_cap;

    uint32_t gref;                         /* JNI global refs numbered from 1 */
    uint32_t *monitors;                    /* objects whose monitor a thread owns */
    uint32_t nmonitors;
    jlong *pending;                        /* tags of objects named but not visited */
    size_t npending, pending_cap;
    jlong *pending_size;                   /* their sizes */
    size_t pending_size_cap;
    uint64_t named_unwritten;              /* objects named since, and not written */
    double t0, t_fetched;                  /* for HPROF_HEAP_TIMES */
    uint32_t *fetch_order;                 /* see write_unvisited */
    size_t fetch_seen;
    bool fetch_bad;
    int arr_base, ref_size;                /* object array size = align8(base + n*ref) */
    uint64_t nobjects, nbytes;
    uint64_t unnamed;                      /* objects of classes the dump does not know */
    /* Two bits per object ID: named (referred to) in this dump, written in it. */
    uint8_t *marks;
    size_t marks_cap;
    uint64_t named;                        /* objects named so far */
    int64_t pending_unknown;               /* see count_pending */
    bool oom;

    /* heap=sites on: objects carry their sites (see the top). */
    struct site_table *sites;
    uint32_t id_first;                     /* the first object ID this dump could hand out */
    uint32_t *site_of;                     /* [ID - id_first]: the object's site id, 0 none */
    size_t site_cap;
};

#include <time.h>
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#define PHASE(what) do { if (getenv("HPROF_HEAP_TIMES")) fprintf(stderr, "heap dump: %-10s %.3f s\n", what, now_s() - t0); } while (0)

static jlong class_tag_of(uint32_t k) { return (jlong)((uint64_t)(k + 1) << CLASS_TAG_SHIFT); }

static struct hd_class *class_of_tag(struct walk *w, jlong tag)
{
    if (!tag_is_class(tag) || (tag & ((1LL << CLASS_TAG_SHIFT) - 1))) return NULL;
    uint64_t k = ((uint64_t)tag >> CLASS_TAG_SHIFT) - 1;
    if (k >= w->ncls || !w->cls[k].info) return NULL;
    return &w->cls[k];
}

/* A tag the allocation tracker set: the site of an object the dump has not named. */
static bool is_site_tag(const struct walk *w, jlong tag) { return w->sites && tag > 0 && tag < SITE_TAG_END; }

/* Notes the site of an object just given its ID. */
static void note_site(struct walk *w, uint32_t id, jlong site)
{
    if (id < w->id_first) return;
    size_t i = id - w->id_first;
    if (i >= w->site_cap) {
        size_t n = w->site_cap ? w->site_cap : 1u << 16;
        while (n <= i) n *= 2;
        uint32_t *p = realloc(w->site_of, n * sizeof *p);
        if (!p) {
            w->oom = true;
            return;
        }
        memset(p + w->site_cap, 0, (n - w->site_cap) * sizeof *p);
        w->site_of = p;
        w->site_cap = n;
    }
    w->site_of[i] = (uint32_t)site;
}

static uint32_t thread_site(struct walk *w, uint32_t id);

/* The site id of the object with this ID; 0 if it has none. */
static uint32_t site_of_id(struct walk *w, uint32_t id)
{
    if (!w->sites) return 0;
    if (id < w->id_first) return thread_site(w, id);
    size_t i = id - w->id_first;
    return i < w->site_cap ? w->site_of[i] : 0;
}

/* The trace serial an object's record carries: its site's, once that trace is written
 * (a site made after the traces were written, just before the walk, has none). */
static uint32_t trace_of_id(struct walk *w, uint32_t id)
{
    uint32_t s = site_of_id(w, id);
    struct site *site = s ? sites_by_id(w->sites, s) : NULL;
    return site && site->trace && site->trace->written ? site->trace->serial : SERIAL_TRACE_BASE;
}

static struct hd_class *class_of_ref(struct walk *w, jclass c)
{
    struct class_info *ci = classes_of(&w->h->t.classes, w->h->jvmti, c, &w->h->t.ids);
    uint32_t i = ci->serial - SERIAL_CLASS_BASE - 1;
    if (ci->serial <= SERIAL_CLASS_BASE || i >= w->ncls || w->cls[i].info != ci) return NULL;
    return &w->cls[i];
}

#define MARK_NAMED 1u
#define MARK_WRITTEN 2u

/* Sets a mark; true when it was not set before. */
static bool mark(struct walk *w, uint32_t id, unsigned bit)
{
    if (id <= ID_OBJECT_BASE) return false;
    size_t i = id - ID_OBJECT_BASE;
    if (i / 4 >= w->marks_cap) {
        size_t n = w->marks_cap ? w->marks_cap : 1u << 16;
        while (n <= i / 4) n *= 2;
        uint8_t *m = realloc(w->marks, n);
        if (!m) {
            w->oom = true;
            return false;
        }
        memset(m + w->marks_cap, 0, n - w->marks_cap);
        w->marks = m;
        w->marks_cap = n;
    }
    uint8_t m = (uint8_t)(bit << (2 * (i % 4)));
    if (w->marks[i / 4] & m) return false;
    if (bit == MARK_NAMED) {
        w->named++;
        if (!(w->marks[i / 4] & (uint8_t)(MARK_WRITTEN << (2 * (i % 4))))) w->named_unwritten++;
    }
    w->marks[i / 4] |= m;
    return true;
}

/* Objects named and not yet written, per class (NULL: of a class the dump does not know):
 * after the walk, only the classes with some left are searched for them. */
static void count_pending(struct walk *w, struct hd_class *c, int delta)
{
    if (c) w->ext[c - w->cls].pending += delta;
    else w->pending_unknown += delta;
}

static unsigned marks_of(struct walk *w, uint32_t id)
{
    if (id <= ID_OBJECT_BASE) return 0;
    size_t i = id - ID_OBJECT_BASE;
    if (i / 4 >= w->marks_cap) return 0;
    return (w->marks[i / 4] >> (2 * (i % 4))) & 3u;
}

/* The ID of an object reached through JNI, naming it if it has none. */
static uint32_t id_of_object(struct walk *w, jobject o)
{
    if (!o) return 0;
    jvmtiEnv *jvmti = w->tj;
    jlong tag = 0, site = 0;
    (*jvmti)->GetTag(jvmti, o, &tag);
    if (is_site_tag(w, tag)) {
        site = tag;
        tag = 0;
    }
    if (tag_is_class(tag)) {
        struct hd_class *c = class_of_tag(w, tag);
        return c ? c->info->object_id : 0;
    }
    uint32_t id;
    if (tag_is_object(tag)) {
        id = tag_object_id(tag);
    } else {
        id = ids_new_object(&w->h->t.ids);
        if (site) note_site(w, id, site);
        (*jvmti)->SetTag(jvmti, o, tag_for_object_id(id));
    }
    if (mark(w, id, MARK_NAMED)) {
        jclass k = (*w->jni)->GetObjectClass(w->jni, o);
        count_pending(w, k ? class_of_ref(w, k) : NULL, 1);
        if (k) (*w->jni)->DeleteLocalRef(w->jni, k);
    }
    return id;
}

/* ---- step 1: classes ---- */

/* Own fields of a class, in GetClassFields order. */
static void read_fields(struct walk *w, struct hd_class *c, struct cls_extra *x)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    jint n = 0;
    jfieldID *ids = NULL;
    if (c->is_array || (*jvmti)->GetClassFields(jvmti, x->ref, &n, &ids) != JVMTI_ERROR_NONE) return;
    x->nall = (uint32_t)n;
    x->all_static = calloc(n ? (size_t)n : 1, 1);
    x->all_type = calloc(n ? (size_t)n : 1, 1);
    x->all_off = calloc(n ? (size_t)n : 1, sizeof *x->all_off);
    c->fields = calloc(n ? (size_t)n : 1, sizeof *c->fields);
    c->statics = calloc(n ? (size_t)n : 1, sizeof *c->statics);
    if (!x->all_static || !x->all_type || !x->all_off || !c->fields || !c->statics) {
        w->oom = true;
        x->nall = 0;
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
        return;
    }
    for (jint i = 0; i < n; i++) {
        char *name = NULL, *sig = NULL;
        jint mods = 0;
        (*jvmti)->GetFieldName(jvmti, x->ref, ids[i], &name, &sig, NULL);
        (*jvmti)->GetFieldModifiers(jvmti, x->ref, ids[i], &mods);
        int t = (int)hd_type_of(sig ? sig[0] : 'L');
        bool st = (mods & 0x0008) != 0;
        struct hd_field *f = st ? &c->statics[c->nstatics++] : &c->fields[c->nfields++];
        f->name = strdup(name ? name : "?");
        f->type = (uint8_t)t;
        x->all_static[i] = st;
        x->all_type[i] = (uint8_t)t;
        if (st) {
            x->all_off[i] = c->static_bytes;
            c->static_bytes += hd_type_size(t);
        } else {
            x->all_off[i] = c->own_bytes;
            c->own_bytes += hd_type_size(t);
        }
        if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    x->fids = malloc((n ? (size_t)n : 1) * sizeof *x->fids);
    if (x->fids) memcpy(x->fids, ids, (size_t)n * sizeof *ids);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    c->static_values = calloc(c->static_bytes ? c->static_bytes : 1, 1);
    if (!c->static_values) w->oom = true;
}

/* Adds the fields of interface `i` and its superinterfaces not counted yet. */
static uint32_t count_interface_fields(struct walk *w, jclass k)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    jint n = 0;
    jclass *ifs = NULL;
    uint32_t sum = 0;
    if ((*jvmti)->GetImplementedInterfaces(jvmti, k, &n, &ifs) != JVMTI_ERROR_NONE) return 0;
    for (jint i = 0; i < n; i++) {
        struct hd_class *ic = class_of_ref(w, ifs[i]);
        if (ic) {
            struct cls_extra *ix = &w->ext[ic - w->cls];
            if (ix->stamp != w->stamp) {
                ix->stamp = w->stamp;
                sum += ix->nall + count_interface_fields(w, ifs[i]);
            }
        }
        (*w->jni)->DeleteLocalRef(w->jni, ifs[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ifs);
    return sum;
}

/* Fields of every interface class c implements (through its supers too), each counted once. */
static uint32_t interface_fields(struct walk *w, struct hd_class *c)
{
    w->stamp++;
    uint32_t sum = 0;
    for (struct hd_class *k = c; k; k = k->super) sum += count_interface_fields(w, w->ext[k - w->cls].ref);
    return sum;
}

/*
 * The JVMTI field indexes (its FollowReferences field numbering): the fields of every
 * interface the class implements come first, then the fields of java.lang.Object, ...,
 * then the class's own, each class's in GetClassFields order. An interface's own static
 * fields come after those of its superinterfaces.
 */
static void lay_out(struct walk *w, struct hd_class *c)
{
    struct cls_extra *x = &w->ext[c - w->cls];
    if (x->state != 0) return;
    x->state = 1;
    if (c->super) lay_out(w, c->super);
    struct cls_extra *sx = c->super ? &w->ext[c->super - w->cls] : NULL;
    c->inst_bytes = c->own_bytes + (c->super ? c->super->inst_bytes : 0);
    x->chain = x->nall + (sx ? sx->chain : 0);
    if (c->is_array) {
        x->state = 2;
        return;
    }
    uint32_t nif;
    if (c->is_interface) {
        w->stamp++;
        nif = count_interface_fields(w, x->ref);     /* its superinterfaces' fields */
    } else {
        nif = interface_fields(w, c);
    }
    x->nifields = nif;
    /* instance view */
    uint32_t n = c->is_interface ? 0 : nif + x->chain;
    c->nslots = n;
    c->inst_slot_off = malloc((n ? n : 1) * sizeof *c->inst_slot_off);
    c->inst_slot_type = calloc(n ? n : 1, 1);
    /* static view: this class's own fields only */
    uint32_t sbase = c->is_interface ? nif : nif + (sx ? sx->chain : 0);
    uint32_t sn = sbase + x->nall;
    c->nstatic_slots = sn;
    c->static_slot_off = malloc((sn ? sn : 1) * sizeof *c->static_slot_off);
    c->static_slot_type = calloc(sn ? sn : 1, 1);
    if (!c->inst_slot_off || !c->inst_slot_type || !c->static_slot_off || !c->static_slot_type) {
        w->oom = true;
        c->nslots = c->nstatic_slots = 0;
        x->state = 2;
        return;
    }
    for (uint32_t i = 0; i < n; i++) c->inst_slot_off[i] = -1;
    for (uint32_t i = 0; i < sn; i++) c->static_slot_off[i] = -1;
    for (uint32_t j = 0; j < x->nall; j++) {
        if (!x->all_static[j]) continue;
        c->static_slot_off[sbase + j] = (int32_t)x->all_off[j];
        c->static_slot_type[sbase + j] = x->all_type[j];
    }
    if (!c->is_interface) {
        for (struct hd_class *k = c; k; k = k->super) {
            struct cls_extra *kx = &w->ext[k - w->cls];
            struct cls_extra *ksx = k->super ? &w->ext[k->super - w->cls] : NULL;
            uint32_t base = nif + (ksx ? ksx->chain : 0);
            uint32_t start = c->inst_bytes - k->inst_bytes;    /* k's own values start here */
            for (uint32_t j = 0; j < kx->nall; j++) {
                if (kx->all_static[j] || base + j >= n) continue;
                c->inst_slot_off[base + j] = (int32_t)(start + kx->all_off[j]);
                c->inst_slot_type[base + j] = kx->all_type[j];
            }
        }
    }
    x->state = 2;
}

static int load_classes(struct walk *w)
{
    struct host *h = w->h;
    jvmtiEnv *jvmti = h->jvmti;
    JNIEnv *jni = w->jni;
    jint n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return -1;
    (*jni)->EnsureLocalCapacity(jni, n + 64);
    for (jint i = 0; i < n; i++) classes_of(&h->t.classes, jvmti, all[i], &h->t.ids);
    w->ncls = classes_count(&h->t.classes);
    w->cls = calloc(w->ncls ? w->ncls : 1, sizeof *w->cls);
    w->ext = calloc(w->ncls ? w->ncls : 1, sizeof *w->ext);
    if (!w->cls || !w->ext) {
        for (jint i = 0; i < n; i++) (*jni)->DeleteLocalRef(jni, all[i]);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
        return -1;
    }
    for (jint i = 0; i < n; i++) {
        struct class_info *ci = classes_of(&h->t.classes, jvmti, all[i], &h->t.ids);
        uint32_t k = ci->serial - SERIAL_CLASS_BASE - 1;
        if (ci->serial <= SERIAL_CLASS_BASE || k >= w->ncls || w->cls[k].info) {
            (*jni)->DeleteLocalRef(jni, all[i]);
            continue;
        }
        w->cls[k].info = ci;
        w->ext[k].ref = all[i];
        (*w->tj)->SetTag(w->tj, all[i], class_tag_of(k));
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);

    for (uint32_t k = 0; k < w->ncls; k++) {
        struct hd_class *c = &w->cls[k];
        struct cls_extra *x = &w->ext[k];
        if (!c->info) continue;
        const char *sig = c->info->signature;
        c->is_array = sig[0] == '[';
        if (c->is_array) c->elem_type = (uint8_t)hd_type_of(sig[1]);
        jint mods = 0;
        (*jvmti)->GetClassModifiers(jvmti, x->ref, &mods);
        c->is_interface = (mods & 0x0200) != 0;
        jclass sup = (*jni)->GetSuperclass(jni, x->ref);
        if (sup) {
            c->super = class_of_ref(w, sup);
            (*jni)->DeleteLocalRef(jni, sup);
        }
        if (strcmp(sig, "Ljava/lang/Object;") == 0) w->object_class = c;
        read_fields(w, c, x);
    }
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->cls[k].info) lay_out(w, &w->cls[k]);
    /* Let go of the classes before the walk, or they would show as JNI local roots. */
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->ext[k].ref) {
            (*jni)->DeleteLocalRef(jni, w->ext[k].ref);
            w->ext[k].ref = NULL;
        }
    return 0;
}

/* Thread objects carry their thread_info's object ID; the map gives their serials. */
static int by_id(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static void tag_threads(struct walk *w)
{
    struct host *h = w->h;
    struct thread_table *t = &h->t.threads;
    pthread_mutex_lock(&t->lock);
    uint32_t n = threads_count(t);
    w->threads = calloc(n ? n : 1, sizeof *w->threads);
    for (uint32_t i = 0; w->threads && i < n; i++) {
        struct thread_info *ti = threads_at(t, i);
        if (!ti || !ti->ref) continue;
        jlong site = 0;
        if (w->sites) (*w->tj)->GetTag(w->tj, ti->ref, &site);
        (*w->tj)->SetTag(w->tj, ti->ref, tag_for_object_id(ti->object_id));
        w->threads[w->nthreads].id = ti->object_id;
        w->threads[w->nthreads].serial = ti->serial;
        w->threads[w->nthreads].site = is_site_tag(w, site) ? (uint32_t)site : 0;
        w->nthreads++;
    }
    pthread_mutex_unlock(&t->lock);
    if (w->threads) qsort(w->threads, w->nthreads, sizeof *w->threads, by_id);
}

/* The index in w->threads of the thread object with this ID; nthreads if none. */
static uint32_t thread_index(struct walk *w, uint32_t id)
{
    uint32_t lo = 0, hi = w->nthreads;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (w->threads[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->nthreads && w->threads[lo].id == id ? lo : w->nthreads;
}

static uint32_t thread_serial(struct walk *w, jlong thread_tag)
{
    if (!tag_is_object(thread_tag)) return 0;
    uint32_t i = thread_index(w, tag_object_id(thread_tag));
    return i < w->nthreads ? w->threads[i].serial : 0;
}

static uint32_t thread_site(struct walk *w, uint32_t id)
{
    uint32_t i = thread_index(w, id);
    return i < w->nthreads ? w->threads[i].site : 0;
}

jobject *heap_owned_monitors(struct host *h, JNIEnv *jni, uint32_t *count)
{
    jvmtiEnv *jvmti = h->jvmti;
    jvmtiCapabilities caps;
    jobject *out = NULL;
    uint32_t n = 0;
    size_t cap = 0;
    jint nt = 0;
    jthread *all = NULL;
    *count = 0;
    memset(&caps, 0, sizeof caps);
    if ((*jvmti)->GetCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE || !caps.can_get_owned_monitor_info ||
        (*jvmti)->GetAllThreads(jvmti, &nt, &all) != JVMTI_ERROR_NONE)
        return NULL;
    for (jint i = 0; i < nt; i++) {
        jint k = 0;
        jobject *owned = NULL;
        if ((*jvmti)->GetOwnedMonitorInfo(jvmti, all[i], &k, &owned) == JVMTI_ERROR_NONE) {
            for (jint j = 0; j < k; j++) {
                if (grow_array((void **)&out, &cap, (size_t)n + 1, sizeof *out)) out[n++] = owned[j];
                else (*jni)->DeleteLocalRef(jni, owned[j]);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)owned);
        }
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    *count = n;
    return out;
}

/* The monitor roots of this dump, named. */
static void find_monitors(struct walk *w)
{
    uint32_t n = 0;
    jobject *owned = heap_owned_monitors(w->h, w->jni, &n);
    w->monitors = calloc(n ? n : 1, sizeof *w->monitors);
    for (uint32_t i = 0; i < n; i++) {
        if (w->monitors) w->monitors[w->nmonitors++] = id_of_object(w, owned[i]);
        (*w->jni)->DeleteLocalRef(w->jni, owned[i]);
    }
    free(owned);
}

/* Object array sizes (text sz=): fitted to what JVMTI says of a few small arrays. */
static void measure_arrays(struct walk *w)
{
    JNIEnv *jni = w->jni;
    jvmtiEnv *jvmti = w->h->jvmti;
    jlong sz[4] = {0, 0, 0, 0};
    jclass obj = (*jni)->FindClass(jni, "java/lang/Object");
    for (int n = 0; obj && n < 4; n++) {
        jobjectArray arr = (*jni)->NewObjectArray(jni, n, obj, NULL);
        if (arr) {
            (*jvmti)->GetObjectSize(jvmti, arr, &sz[n]);
            (*jni)->DeleteLocalRef(jni, arr);
        }
    }
    if (obj) (*jni)->DeleteLocalRef(jni, obj);
    (*jni)->ExceptionClear(jni);
    w->arr_base = 16;
    w->ref_size = 4;
    for (int r = 4; r <= 8; r += 4)
        for (int base = 8; base <= 32; base++) {
            bool fits = true;
            for (int n = 0; n < 4; n++)
                if (((base + n * r + 7) & ~7) != sz[n]) fits = false;
            if (fits) {
                w->arr_base = base;
                w->ref_size = r;
                return;
            }
        }
}

/* ---- step 2: the walk ---- */

static void put_be(uint8_t *p, int type, jvalue v)
{
    uint64_t x;
    switch (type) {
    case HD_BOOLEAN: p[0] = v.z; return;
    case HD_BYTE: p[0] = (uint8_t)v.b; return;
    case HD_CHAR: x = v.c; break;
    case HD_SHORT: x = (uint16_t)v.s; break;
    case HD_INT: x = (uint32_t)v.i; break;
    case HD_FLOAT: { uint32_t u; memcpy(&u, &v.f, 4); x = u; break; }
    case HD_LONG: x = (uint64_t)v.j; break;
    case HD_DOUBLE: memcpy(&x, &v.d, 8); break;
    default: x = (uint32_t)v.i; break;
    }
    unsigned n = hd_type_size(type);
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(x >> (8 * (n - 1 - i)));
}



/* Writes the object being visited (its record is complete). */
static void finish(struct walk *w)
{
    uint32_t id = (uint32_t)(w->cur >> 1);
    struct hd_class *c = w->cur_cls;
    switch (w->cur_kind) {
    case CUR_INSTANCE:
        w->wr->instance(w->s, id, trace_of_id(w, id), c, c->obj_size, w->vals);
        break;
    case CUR_OBJ_ARRAY: {
        uint32_t size = (uint32_t)(((uint64_t)w->arr_base + (uint64_t)w->cur_len * (uint64_t)w->ref_size + 7) & ~7ull);
        w->wr->obj_array(w->s, id, trace_of_id(w, id), c, size, w->cur_len, w->elems);
        break;
    }
    case CUR_PRIM_ARRAY:        /* no elements were reported: an empty array */
        w->wr->prim_array(w->s, id, trace_of_id(w, id), c, 16, 0, c->elem_type, NULL);
        break;
    default: break;
    }
    if (mark(w, id, MARK_WRITTEN)) count_pending(w, c, -1);
    w->done = w->cur;
    w->cur = 0;
    w->cur_kind = CUR_NONE;
}

/* The walk moved to object `tag` (of class `class_tag`): start its record. */
static void begin(struct walk *w, jlong tag, jlong class_tag)
{
    jlong id = tag_is_class(tag) ? tag : tag & TAG_ID_MASK;
    if (w->cur == id) return;
    if (w->cur_kind != CUR_NONE) finish(w);
    w->cur = id;
    w->cur_kind = CUR_NONE;
    if (id == w->done) return;          /* more of an object already written: ignored */
    if (tag_is_class(tag)) {
        w->cur_cls = class_of_tag(w, tag);
        w->cur_kind = w->cur_cls ? CUR_CLASS : CUR_NONE;
        if (w->cur_cls) w->cur_cls->visited = true;
        return;
    }
    struct hd_class *c = class_of_tag(w, class_tag);
    w->cur_cls = c;
    w->cur_kind = CUR_NONE;
    if (!c || !tag_is_object(tag)) {
        if (!tag_is_class(tag)) w->unnamed++;
        return;
    }
    if (c->is_array) {
        uint32_t len = (uint32_t)((uint64_t)tag >> TAG_LEN_SHIFT);
        w->cur_len = len;
        if (c->elem_type == HD_OBJECT) {
            if (!grow_array((void **)&w->elems, &w->elems_cap, len ? len : 1, sizeof *w->elems)) {
                w->oom = true;
                return;
            }
            memset(w->elems, 0, (size_t)len * sizeof *w->elems);
            w->cur_kind = CUR_OBJ_ARRAY;
        } else {
            w->cur_kind = CUR_PRIM_ARRAY;
        }
        return;
    }
    if (!grow_array((void **)&w->vals, &w->vals_cap, c->inst_bytes ? c->inst_bytes : 1, 1)) {
        w->oom = true;
        return;
    }
    memset(w->vals, 0, c->inst_bytes);
    w->cur_kind = CUR_INSTANCE;
}

/* Gives an object reached for the first time its ID (arrays: with their length). */
static jlong name_referee(struct walk *w, jlong *tag_ptr, jint length, jlong class_tag)
{
    jlong tag = *tag_ptr;
    if (is_site_tag(w, tag)) {
        uint32_t id = ids_new_object(&w->h->t.ids);
        note_site(w, id, tag);
        tag = tag_for_object_id(id);
    }
    if (tag_is_class(tag)) return tag;
    if (!tag) tag = tag_for_object_id(ids_new_object(&w->h->t.ids));
    if (length >= 0) tag = (tag & TAG_ID_MASK) | ((jlong)(uint64_t)(uint32_t)length << TAG_LEN_SHIFT);
    *tag_ptr = tag;
    if (mark(w, tag_object_id(tag), MARK_NAMED)) count_pending(w, class_of_tag(w, class_tag), 1);
    return tag;
}

static uint32_t id_of_tag(struct walk *w, jlong tag)
{
    if (tag_is_class(tag)) {
        struct hd_class *c = class_of_tag(w, tag);
        return c ? c->info->object_id : 0;
    }
    return tag_is_object(tag) ? tag_object_id(tag) : 0;
}

static void root(struct walk *w, int kind, uint32_t id, uint32_t serial, int frame, const char *name)
{
    struct hd_root_info r = {.kind = kind, .id = id, .thread_serial = serial, .frame = frame,
                             .trace_serial = SERIAL_TRACE_BASE, .name = name};
    if (kind == HD_ROOT_JNI_GLOBAL) r.gref = ++w->gref;
    w->wr->root(w->s, &r);
}

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data)
{
    struct walk *w = user_data;
    jlong tag = name_referee(w, tag_ptr, length, class_tag);
    uint32_t id = id_of_tag(w, tag);
    if (length < 0 && !tag_is_class(tag)) {
        struct hd_class *c = class_of_tag(w, class_tag);
        if (c && !c->obj_size) c->obj_size = (uint32_t)size;
    }
    if (!referrer_tag_ptr) {                  /* a root */
        if (w->cur_kind != CUR_NONE) finish(w);
        switch (kind) {
        case JVMTI_HEAP_REFERENCE_JNI_GLOBAL: root(w, HD_ROOT_JNI_GLOBAL, id, 0, 0, NULL); break;
        case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: {
            struct hd_class *c = class_of_tag(w, tag);
            root(w, HD_ROOT_STICKY_CLASS, id, 0, 0, c ? c->info->name : "<Unknown Class>");
            break;
        }
        case JVMTI_HEAP_REFERENCE_MONITOR: root(w, HD_ROOT_MONITOR_USED, id, 0, 0, NULL); break;
        case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
            root(w, HD_ROOT_JAVA_FRAME, id, thread_serial(w, info->stack_local.thread_tag), info->stack_local.depth,
                 NULL);
            break;
        case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
            root(w, HD_ROOT_JNI_LOCAL, id, thread_serial(w, info->jni_local.thread_tag), info->jni_local.depth, NULL);
            break;
        case JVMTI_HEAP_REFERENCE_THREAD: {
            uint32_t serial = thread_serial(w, tag);
            root(w, HD_ROOT_THREAD_OBJECT, id, serial, 0, NULL);
            root(w, HD_ROOT_THREAD_BLOCK, id, serial, 0, NULL);
            break;
        }
        default: root(w, HD_ROOT_UNKNOWN, id, 0, 0, NULL); break;
        }
        return JVMTI_VISIT_OBJECTS;
    }
    begin(w, *referrer_tag_ptr, referrer_class_tag);
    struct hd_class *c = w->cur_cls;
    switch (w->cur_kind) {
    case CUR_INSTANCE:
        if (kind == JVMTI_HEAP_REFERENCE_FIELD) {
            jint i = info->field.index;
            if (i >= 0 && (uint32_t)i < c->nslots && c->inst_slot_off[i] >= 0 && c->inst_slot_type[i] == HD_OBJECT)
                be_store_u4(w->vals + c->inst_slot_off[i], id);
        }
        break;
    case CUR_OBJ_ARRAY:
        if (kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT) {
            jint i = info->array.index;
            if (i >= 0 && (uint32_t)i < w->cur_len) w->elems[i] = id;
        }
        break;
    case CUR_CLASS:
        switch (kind) {
        case JVMTI_HEAP_REFERENCE_STATIC_FIELD: {
            jint i = info->field.index;
            if (i >= 0 && (uint32_t)i < c->nstatic_slots && c->static_slot_off[i] >= 0 && c->static_slot_type[i] == HD_OBJECT)
                be_store_u4(c->static_values + c->static_slot_off[i], id);
            break;
        }
        case JVMTI_HEAP_REFERENCE_CLASS_LOADER: c->loader_id = id; break;
        case JVMTI_HEAP_REFERENCE_SIGNERS: c->signers_id = id; break;
        case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN: c->domain_id = id; break;
        default: break;
        }
        break;
    default: break;
    }
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL on_primitive_field(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                       jlong object_class_tag, jlong *object_tag_ptr, jvalue value,
                                       jvmtiPrimitiveType value_type, void *user_data)
{
    struct walk *w = user_data;
    begin(w, *object_tag_ptr, object_class_tag);
    struct hd_class *c = w->cur_cls;
    int t = (int)hd_type_of((char)value_type);
    jint i = info->field.index;
    if (w->cur_kind == CUR_INSTANCE && kind == JVMTI_HEAP_REFERENCE_FIELD) {
        if (i >= 0 && (uint32_t)i < c->nslots && c->inst_slot_off[i] >= 0 && c->inst_slot_type[i] == t)
            put_be(w->vals + c->inst_slot_off[i], t, value);
    } else if (w->cur_kind == CUR_CLASS && kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) {
        if (i >= 0 && (uint32_t)i < c->nstatic_slots && c->static_slot_off[i] >= 0 && c->static_slot_type[i] == t)
            put_be(c->static_values + c->static_slot_off[i], t, value);
    }
    return 0;
}

static jint JNICALL on_array_values(jlong class_tag, jlong size, jlong *tag_ptr, jint count,
                                    jvmtiPrimitiveType element_type, const void *elements, void *user_data)
{
    struct walk *w = user_data;
    begin(w, *tag_ptr, class_tag);
    if (w->cur_kind != CUR_PRIM_ARRAY) return 0;
    int t = (int)hd_type_of((char)element_type);
    unsigned es = hd_type_size(t);
    size_t n = (size_t)(count > 0 ? count : 0);
    if (!grow_array((void **)&w->pbuf, &w->pbuf_cap, n * es + 1, 1)) {
        w->oom = true;
        return 0;
    }
    const uint8_t *src = elements;
    uint8_t *dst = w->pbuf;
    if (es == 1) {
        memcpy(dst, src, n);
    } else {
        for (size_t i = 0; i < n; i++, src += es, dst += es)
            for (unsigned k = 0; k < es; k++) dst[k] = src[es - 1 - k];   /* little- to big-endian */
    }
    uint32_t id = (uint32_t)(w->cur >> 1);
    w->wr->prim_array(w->s, id, trace_of_id(w, id), w->cur_cls, (uint32_t)size, (uint32_t)n, t, w->pbuf);
    if (mark(w, id, MARK_WRITTEN)) count_pending(w, w->cur_cls, -1);
    w->cur_kind = CUR_NONE;
    w->done = w->cur;
    return 0;
}

/* Text header counts: every object in the heap after the GC. */
static jint JNICALL on_count(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    w->nobjects++;
    w->nbytes += (uint64_t)size;
    return 0;
}

/* ---- objects the walk named but did not visit ---- */

/*
 * HotSpot's walk reports references to some objects it then never visits (objects of the
 * class-data-sharing archive, int.class and the other primitive mirrors). They are found
 * by their marks, read through JNI and written after the walk; what they refer to may
 * need the same, so this goes round until nothing is left.
 *
 * JNI needs references to them, which JVMTI gives for tags (GetObjectsWithTags) at a cost
 * of (tagged objects x tags asked for). So they are fetched with one tag for all: a pass
 * over the instances of the classes that have some (count_pending) notes their IDs in heap
 * order and gives them the one tag; the objects fetched for it are numbered 1, 2, 3 ... in
 * a JVMTI environment of their own, where a second pass sees only them, in heap order,
 * which matches the numbers to the IDs; then their IDs are put back. (Should a full GC move them in between, the order check fails
 * and they are left out, with an error.)
 */
#define TAG_FETCH ((jlong)((1ull << 62) | 1u))          /* ID 0: never an object's */

static jint JNICALL on_find_unvisited(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    jlong tag = *tag_ptr;
    if (!tag_is_object(tag) || marks_of(w, tag_object_id(tag)) != MARK_NAMED) return 0;
    if (!grow_array((void **)&w->pending, &w->pending_cap, w->npending + 1, sizeof *w->pending) ||
        !grow_array((void **)&w->pending_size, &w->pending_size_cap, w->npending + 1, sizeof *w->pending_size)) {
        w->oom = true;
        return 0;
    }
    w->pending_size[w->npending] = size;
    w->pending[w->npending++] = tag;
    *tag_ptr = TAG_FETCH;
    return 0;
}

/* Second pass, in an environment where only the fetched objects carry tags (their
 * numbers): object number i is, in heap order, the k-th one the first pass found. */
static jint JNICALL on_number_unvisited(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data)
{
    struct walk *w = user_data;
    size_t k = w->fetch_seen++;
    uint64_t i = ((uint64_t)*tag_ptr >> 1) - 1;
    if (k >= w->npending || i >= w->npending || w->pending_size[k] != size) {
        w->fetch_bad = true;
        return 0;
    }
    w->fetch_order[i] = (uint32_t)k;
    return 0;
}

static jvalue read_field(JNIEnv *jni, jobject o, jfieldID f, int type)
{
    jvalue v;
    memset(&v, 0, sizeof v);
    switch (type) {
    case HD_BOOLEAN: v.z = (*jni)->GetBooleanField(jni, o, f); break;
    case HD_BYTE: v.b = (*jni)->GetByteField(jni, o, f); break;
    case HD_CHAR: v.c = (*jni)->GetCharField(jni, o, f); break;
    case HD_SHORT: v.s = (*jni)->GetShortField(jni, o, f); break;
    case HD_INT: v.i = (*jni)->GetIntField(jni, o, f); break;
    case HD_LONG: v.j = (*jni)->GetLongField(jni, o, f); break;
    case HD_FLOAT: v.f = (*jni)->GetFloatField(jni, o, f); break;
    case HD_DOUBLE: v.d = (*jni)->GetDoubleField(jni, o, f); break;
    default: break;
    }
    return v;
}

static void write_prim_array_jni(struct walk *w, jobject o, uint32_t id, struct hd_class *c, uint32_t size)
{
    JNIEnv *jni = w->jni;
    jsize n = (*jni)->GetArrayLength(jni, o);
    unsigned es = hd_type_size(c->elem_type);
    if (!grow_array((void **)&w->pbuf, &w->pbuf_cap, (size_t)n * es + 1, 1)) {
        w->oom = true;
        return;
    }
    void *p = w->pbuf;
    switch (c->elem_type) {
    case HD_BOOLEAN: (*jni)->GetBooleanArrayRegion(jni, o, 0, n, p); break;
    case HD_BYTE: (*jni)->GetByteArrayRegion(jni, o, 0, n, p); break;
    case HD_CHAR: (*jni)->GetCharArrayRegion(jni, o, 0, n, p); break;
    case HD_SHORT: (*jni)->GetShortArrayRegion(jni, o, 0, n, p); break;
    case HD_INT: (*jni)->GetIntArrayRegion(jni, o, 0, n, p); break;
    case HD_LONG: (*jni)->GetLongArrayRegion(jni, o, 0, n, p); break;
    case HD_FLOAT: (*jni)->GetFloatArrayRegion(jni, o, 0, n, p); break;
    case HD_DOUBLE: (*jni)->GetDoubleArrayRegion(jni, o, 0, n, p); break;
    default: break;
    }
    if (es > 1) {
        uint8_t *q = w->pbuf;
        for (jsize i = 0; i < n; i++, q += es)
            for (unsigned k = 0; k < es / 2; k++) {
                uint8_t t = q[k];
                q[k] = q[es - 1 - k];
                q[es - 1 - k] = t;
            }
    }
    w->wr->prim_array(w->s, id, trace_of_id(w, id), c, size, (uint32_t)n, c->elem_type, w->pbuf);
}

static void write_object_jni(struct walk *w, jobject o, jlong tag)
{
    JNIEnv *jni = w->jni;
    uint32_t id = tag_object_id(tag);
    jclass k = (*jni)->GetObjectClass(jni, o);
    struct hd_class *c = k ? class_of_ref(w, k) : NULL;
    if (k) (*jni)->DeleteLocalRef(jni, k);
    if (mark(w, id, MARK_WRITTEN)) count_pending(w, c, -1);
    /* A class loaded while the dump ran has no CLASS DUMP: the object is written as a plain
     * java.lang.Object, so that what refers to it still resolves. */
    if (!c) c = w->object_class;
    if (!c) return;
    jlong size = 0;
    (*w->h->jvmti)->GetObjectSize(w->h->jvmti, o, &size);
    if (c->is_array && c->elem_type != HD_OBJECT) {
        write_prim_array_jni(w, o, id, c, (uint32_t)size);
    } else if (c->is_array) {
        jsize n = (*jni)->GetArrayLength(jni, o);
        if (!grow_array((void **)&w->elems, &w->elems_cap, (size_t)n + 1, sizeof *w->elems)) {
            w->oom = true;
            return;
        }
        for (jsize i = 0; i < n; i++) {
            jobject e = (*jni)->GetObjectArrayElement(jni, o, i);
            w->elems[i] = id_of_object(w, e);
            if (e) (*jni)->DeleteLocalRef(jni, e);
        }
        w->wr->obj_array(w->s, id, trace_of_id(w, id), c, (uint32_t)size, (uint32_t)n, w->elems);
    } else {
        if (!grow_array((void **)&w->vals, &w->vals_cap, (size_t)c->inst_bytes + 1, 1)) {
            w->oom = true;
            return;
        }
        memset(w->vals, 0, c->inst_bytes);
        for (struct hd_class *h = c; h; h = h->super) {
            struct cls_extra *x = &w->ext[h - w->cls];
            uint32_t start = c->inst_bytes - h->inst_bytes;
            for (uint32_t j = 0; j < x->nall && x->fids; j++) {
                if (x->all_static[j]) continue;
                uint8_t *p = w->vals + start + x->all_off[j];
                if (x->all_type[j] == HD_OBJECT) {
                    jobject v = (*jni)->GetObjectField(jni, o, x->fids[j]);
                    be_store_u4(p, id_of_object(w, v));
                    if (v) (*jni)->DeleteLocalRef(jni, v);
                } else {
                    put_be(p, x->all_type[j], read_field(jni, o, x->fids[j], x->all_type[j]));
                }
            }
        }
        w->wr->instance(w->s, id, trace_of_id(w, id), c, (uint32_t)size, w->vals);
    }
}

/* The classes that still have objects named and not written, as local references; NULL
 * (and *n = 0) when objects of unknown classes are among them: then the whole heap is read. */
static jclass *pending_classes(struct walk *w, jint *n)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    JNIEnv *jni = w->jni;
    *n = 0;
    if (w->pending_unknown > 0) return NULL;
    jint all_n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &all_n, &all) != JVMTI_ERROR_NONE) return NULL;
    (*jni)->EnsureLocalCapacity(jni, all_n + 256);
    jclass *keep = malloc(((size_t)all_n + 1) * sizeof *keep);
    for (jint i = 0; i < all_n; i++) {
        struct hd_class *c = keep ? class_of_ref(w, all[i]) : NULL;
        if (c && w->ext[c - w->cls].pending > 0) keep[(*n)++] = all[i];
        else (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    return keep;
}

/* One pass over the heap, or over the instances of each of the classes (same order each time). */
static void heap_pass(jvmtiEnv *env, jint heap_filter, jclass *classes, jint n, jvmtiHeapCallbacks *cb, struct walk *w)
{
    if (!classes) {
        (*env)->IterateThroughHeap(env, heap_filter, NULL, cb, w);
        return;
    }
    for (jint i = 0; i < n; i++) (*env)->IterateThroughHeap(env, heap_filter, classes[i], cb, w);
}

static void write_unvisited(struct walk *w)
{
    jvmtiEnv *jvmti = w->tj;
    JNIEnv *jni = w->jni;
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = on_find_unvisited;
    for (int round = 0; round < 32 && !w->oom; round++) {
        w->npending = 0;
        jint nclasses = 0;
        jclass *classes = pending_classes(w, &nclasses);
        if (classes && !nclasses) {
            free(classes);
            break;                                /* nothing left anywhere */
        }
        heap_pass(jvmti, 0, classes, nclasses, &cb, w);
        if (!w->npending) {
            for (jint i = 0; i < nclasses; i++) (*jni)->DeleteLocalRef(jni, classes[i]);
            free(classes);
            break;
        }
        if (getenv("HPROF_HEAP_TIMES"))
            fprintf(stderr, "heap dump: round %d: %zu objects not visited (%.3f s)\n", round, w->npending, now_s() - w->t0);
        jobject *objs = NULL;
        jint got = 0;
        (*jni)->EnsureLocalCapacity(jni, (jint)w->npending + 256);
        jlong fetch = TAG_FETCH;
        if ((*jvmti)->GetObjectsWithTags(jvmti, 1, &fetch, &got, &objs, NULL) != JVMTI_ERROR_NONE) got = 0;
        w->t_fetched = now_s();
        w->fetch_order = calloc(w->npending + 1, sizeof *w->fetch_order);
        w->fetch_seen = 0;
        w->fetch_bad = !w->fetch_order || (size_t)got != w->npending;
        jvmtiEnv *nj = NULL;
        jvmtiCapabilities caps;
        memset(&caps, 0, sizeof caps);
        caps.can_tag_objects = 1;
        if ((*w->h->vm)->GetEnv(w->h->vm, (void **)&nj, JVMTI_VERSION_1_2) != JNI_OK ||
            (*nj)->AddCapabilities(nj, &caps) != JVMTI_ERROR_NONE)
            w->fetch_bad = true;
        for (jint i = 0; i < got && !w->fetch_bad; i++) (*nj)->SetTag(nj, objs[i], tag_for_object_id((uint32_t)i + 1));
        if (!w->fetch_bad) {
            jvmtiHeapCallbacks cb2;
            memset(&cb2, 0, sizeof cb2);
            cb2.heap_iteration_callback = on_number_unvisited;
            heap_pass(nj, JVMTI_HEAP_FILTER_UNTAGGED, classes, nclasses, &cb2, w);
            if (w->fetch_seen != w->npending) w->fetch_bad = true;
        }
        if (nj) (*nj)->DisposeEnvironment(nj);
        for (jint i = 0; i < nclasses; i++) (*jni)->DeleteLocalRef(jni, classes[i]);
        free(classes);
        if (getenv("HPROF_HEAP_TIMES")) fprintf(stderr, "heap dump: numbered (%.3f s, fetched at %.3f s)\n", now_s() - w->t0, w->t_fetched - w->t0);
        w->named_unwritten = 0;
        if (!w->fetch_bad) {
            for (jint i = 0; i < got; i++) (*jvmti)->SetTag(jvmti, objs[i], w->pending[w->fetch_order[i]]);
            for (jint i = 0; i < got; i++) write_object_jni(w, objs[i], w->pending[w->fetch_order[i]]);
        }
        for (jint i = 0; i < got; i++) (*jni)->DeleteLocalRef(jni, objs[i]);
        if (objs) (*jvmti)->Deallocate(jvmti, (unsigned char *)objs);
        free(w->fetch_order);
        w->fetch_order = NULL;
        if (w->fetch_bad) {
            log_error("the heap moved while the heap dump was being read; %zu objects are missing from it",
                      w->npending);
            break;
        }
        if (!w->named_unwritten) break;          /* they named nothing new: all done */
    }
}

static void free_walk(struct walk *w)
{
    for (uint32_t k = 0; k < w->ncls; k++) {
        struct cls_extra *x = &w->ext[k];
        hd_class_free(&w->cls[k]);
        free(x->all_static);
        free(x->all_type);
        free(x->all_off);
        free(x->fids);
        if (x->ref) (*w->jni)->DeleteLocalRef(w->jni, x->ref);
    }
    free(w->cls);
    free(w->ext);
    free(w->threads);
    free(w->vals);
    free(w->elems);
    free(w->pbuf);
    free(w->marks);
    free(w->pending);
    free(w->pending_size);
    free(w->monitors);
    free(w->site_of);
}

/*
 * The environment whose tags name the objects: one of the dump's own, let go of at its
 * end, so that the JVM's tag table (what naming every object costs) is freed at once and
 * later GCs do not carry it. Object IDs are new at every dump; classes and threads keep
 * theirs. 0 on success.
 */
static int take_env(struct walk *w)
{
    struct host *h = w->h;
    w->id_first = atomic_load(&h->t.ids.next_object);
    w->sites = alloc_tracker_sites(h);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*h->vm)->GetEnv(h->vm, (void **)&w->tj, JVMTI_VERSION_1_2) != JNI_OK) return -1;
    if ((*w->tj)->AddCapabilities(w->tj, &caps) == JVMTI_ERROR_NONE) return 0;
    (*w->tj)->DisposeEnvironment(w->tj);
    return -1;
}

static void release_env(struct walk *w) { (*w->tj)->DisposeEnvironment(w->tj); }

void heap_walker_dump(struct host *h, JNIEnv *jni, struct heap_sink *sink)
{
    jvmtiEnv *jvmti = h->jvmti;
    struct walk *w = calloc(1, sizeof *w);
    if (!w) {
        log_error("out of memory for the heap dump");
        return;
    }
    w->h = h;
    w->jni = jni;
    if (take_env(w) != 0) {
        log_error("cannot get a JVMTI environment for the heap dump; no heap dump written");
        free(w);
        return;
    }
    w->wr = sink->wr;
    w->s = sink->s;
    (*jni)->PushLocalFrame(jni, 64);
    double t0 = now_s();
    w->t0 = t0;

    /* Not at VM death with ZGC or Shenandoah: their threads have stopped by then and a
     * forced GC would never return. The reference walk reports only reachable objects
     * anyway. */
    if (host_can_force_gc(h)) (*jvmti)->ForceGarbageCollection(jvmti);
    PHASE("gc");
    if (w->sites) alloc_tracker_tag_sites(h, w->tj);
    if (load_classes(w) != 0 || w->oom) {
        log_error("cannot read the loaded classes; no heap dump written");
        release_env(w);
        free_walk(w);
        free(w);
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    PHASE("classes");
    tag_threads(w);
    find_monitors(w);
    if (h->opt->format != 'b') {
        measure_arrays(w);
        jvmtiHeapCallbacks count;
        memset(&count, 0, sizeof count);
        count.heap_iteration_callback = on_count;
        (*w->tj)->IterateThroughHeap(w->tj, 0, NULL, &count, w);
    }

    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = on_reference;
    cb.primitive_field_callback = on_primitive_field;
    cb.array_primitive_value_callback = on_array_values;

    sink->open(sink);
    w->wr->prepare(w->s, w->cls, w->ncls);
    w->wr->begin(w->s, w->nobjects, w->nbytes);
    for (uint32_t i = 0; i < w->nmonitors; i++) root(w, HD_ROOT_MONITOR_USED, w->monitors[i], 0, 0, NULL);
    jvmtiError err = (*w->tj)->FollowReferences(w->tj, 0, NULL, NULL, &cb, w);
    if (w->cur_kind != CUR_NONE) finish(w);
    PHASE("walk");
    write_unvisited(w);
    PHASE("unvisited");
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->cls[k].info) w->wr->class_dump(w->s, &w->cls[k]);
    w->wr->end(w->s);
    sink->close(sink);
    PHASE("end");
    if (err != JVMTI_ERROR_NONE) log_error("the heap walk failed (JVMTI error %d); the heap dump is incomplete", (int)err);
    if (w->oom) log_error("out of memory during the heap dump; some values are missing");
    release_env(w);
    PHASE("restored");
    free_walk(w);
    free(w);
    (*jni)->PopLocalFrame(jni, NULL);
}
