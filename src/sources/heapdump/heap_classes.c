/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The heap dump's view of every loaded class, made at the start of each dump: named
 * (class table, tag = its index) and laid out: its own instance and static fields with
 * their basic types, and for each JVMTI field index where the value goes in the binary
 * layout (own fields first, then the super's).
 */
#include "sources/heapdump/heap_classes.h"

#include <stdlib.h>
#include <string.h>

#include "sources/heapdump/heap_names.h"
#include "sources/host.h"
#include "sources/resolve.h"

/*
 * Links a class that is loaded and not linked yet, without initializing it: JVMTI tells
 * no fields (nor interfaces) of such a class, and the class-data-sharing archive's heap
 * holds objects of classes in that state (jdk.internal.math.FDBigInteger's cache,
 * java.util.jar.Attributes$Name's names). Asking for its public fields through
 * reflection's native method links it, as the JVM may at any time; no Java code of the
 * program runs, and the array it returns is garbage at once. true when it is linked.
 */
bool heap_link_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    jint status = 0;
    if ((*jvmti)->GetClassStatus(jvmti, cls, &status) != JVMTI_ERROR_NONE) return false;
    if (status & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) return true;
    if (status & JVMTI_CLASS_STATUS_ERROR) return false;
    jclass class_class = (*jni)->GetObjectClass(jni, cls);
    jmethodID fields = class_class
        ? (*jni)->GetMethodID(jni, class_class, "getDeclaredFields0", "(Z)[Ljava/lang/reflect/Field;")
        : NULL;
    jobject got = fields ? (*jni)->CallObjectMethod(jni, cls, fields, JNI_TRUE) : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    if (got) (*jni)->DeleteLocalRef(jni, got);
    if (class_class) (*jni)->DeleteLocalRef(jni, class_class);
    return (*jvmti)->GetClassStatus(jvmti, cls, &status) == JVMTI_ERROR_NONE && (status & JVMTI_CLASS_STATUS_PREPARED);
}

/* Own fields of a class, in GetClassFields order. */
static void read_fields(struct walk *w, struct hd_class *c, struct cls_extra *x)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    jint n = 0;
    jfieldID *ids = NULL;
    if (c->is_array) return;
    jvmtiError err = (*jvmti)->GetClassFields(jvmti, x->ref, &n, &ids);
    if (err == JVMTI_ERROR_CLASS_NOT_PREPARED && heap_link_class(jvmti, w->jni, x->ref))
        err = (*jvmti)->GetClassFields(jvmti, x->ref, &n, &ids);
    if (err != JVMTI_ERROR_NONE) return;
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
        uint32_t *bytes = st ? &c->static_bytes : &c->own_bytes;
        x->all_off[i] = *bytes;
        *bytes += hd_type_size(t);
        if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    x->fids = malloc((n ? (size_t)n : 1) * sizeof *x->fids);
    if (x->fids && n) memcpy(x->fids, ids, (size_t)n * sizeof *ids); /* no fields: ids may be NULL */
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    c->static_values = calloc(c->static_bytes ? c->static_bytes : 1, 1);
    if (!c->static_values) w->oom = true;
}

/* The fields of the interfaces class k implements directly and their superinterfaces,
 * those not counted yet in this count (w->stamp). */
static uint32_t count_interface_fields(struct walk *w, jclass k)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    jint n = 0;
    jclass *ifs = NULL;
    uint32_t sum = 0;
    if ((*jvmti)->GetImplementedInterfaces(jvmti, k, &n, &ifs) != JVMTI_ERROR_NONE) return 0;
    for (jint i = 0; i < n; i++) {
        struct hd_class *ic = walk_class_of_ref(w, ifs[i]);
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

/* Fields of every interface class c implements (through its supers too), each counted
 * once; for an interface, its superinterfaces'. */
static uint32_t interface_fields(struct walk *w, struct hd_class *c)
{
    w->stamp++;
    if (c->is_interface) return count_interface_fields(w, w->ext[c - w->cls].ref);
    uint32_t sum = 0;
    for (struct hd_class *k = c; k; k = k->super) sum += count_interface_fields(w, w->ext[k - w->cls].ref);
    return sum;
}

/* Where each JVMTI field index's value goes: `sbase` is the index of the class's first
 * own field among its statics' indexes. */
static void fill_slots(struct walk *w, struct hd_class *c, uint32_t nif, uint32_t sbase)
{
    struct cls_extra *x = &w->ext[c - w->cls];
    for (uint32_t i = 0; i < c->nslots; i++) c->inst_slot_off[i] = -1;
    for (uint32_t i = 0; i < c->nstatic_slots; i++) c->static_slot_off[i] = -1;
    for (uint32_t j = 0; j < x->nall; j++) {
        if (!x->all_static[j]) continue;
        c->static_slot_off[sbase + j] = (int32_t)x->all_off[j];
        c->static_slot_type[sbase + j] = x->all_type[j];
    }
    if (c->is_interface) return;
    for (struct hd_class *k = c; k; k = k->super) {
        struct cls_extra *kx = &w->ext[k - w->cls];
        struct cls_extra *ksx = k->super ? &w->ext[k->super - w->cls] : NULL;
        uint32_t base = nif + (ksx ? ksx->chain : 0);
        uint32_t start = c->inst_bytes - k->inst_bytes; /* k's own values start here */
        for (uint32_t j = 0; j < kx->nall; j++) {
            if (kx->all_static[j] || base + j >= c->nslots) continue;
            c->inst_slot_off[base + j] = (int32_t)(start + kx->all_off[j]);
            c->inst_slot_type[base + j] = kx->all_type[j];
        }
    }
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
    uint32_t nif = interface_fields(w, c);
    uint32_t n = c->is_interface ? 0 : nif + x->chain; /* instance view */
    uint32_t sbase = c->is_interface ? nif : nif + (sx ? sx->chain : 0);
    uint32_t sn = sbase + x->nall; /* static view: own fields */
    c->nslots = n;
    c->inst_slot_off = malloc((n ? n : 1) * sizeof *c->inst_slot_off);
    c->inst_slot_type = calloc(n ? n : 1, 1);
    c->nstatic_slots = sn;
    c->static_slot_off = malloc((sn ? sn : 1) * sizeof *c->static_slot_off);
    c->static_slot_type = calloc(sn ? sn : 1, 1);
    if (!c->inst_slot_off || !c->inst_slot_type || !c->static_slot_off || !c->static_slot_type) {
        w->oom = true;
        c->nslots = c->nstatic_slots = 0;
    } else {
        fill_slots(w, c, nif, sbase);
    }
    x->state = 2;
}

/* A view for every loaded class, at the index its serial gives, tagged with it; its
 * local reference kept in ext[].ref until the layout is done. -1: cannot. */
static int name_classes(struct walk *w)
{
    struct host *h = w->h;
    jvmtiEnv *jvmti = h->jvmti;
    JNIEnv *jni = w->jni;
    jint n = 0;
    jclass *all = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE) return -1;
    (*jni)->EnsureLocalCapacity(jni, n + 64);
    for (jint i = 0; i < n; i++) classes_of(&h->t.classes, jvmti, jni, all[i], &h->t.ids);
    w->ncls = classes_count(&h->t.classes);
    w->cls = calloc(w->ncls ? w->ncls : 1, sizeof *w->cls);
    w->ext = calloc(w->ncls ? w->ncls : 1, sizeof *w->ext);
    for (jint i = 0; i < n; i++) {
        struct class_info *ci = classes_of(&h->t.classes, jvmti, jni, all[i], &h->t.ids);
        uint32_t k = ci->serial - SERIAL_CLASS_BASE - 1;
        if (!w->cls || !w->ext || ci->serial <= SERIAL_CLASS_BASE || k >= w->ncls || w->cls[k].info) {
            (*jni)->DeleteLocalRef(jni, all[i]);
            continue;
        }
        w->cls[k].info = ci;
        w->ext[k].ref = all[i];
        (*w->tj)->SetTag(w->tj, all[i], walk_class_tag(k));
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    return w->cls && w->ext ? 0 : -1;
}

/* What class k is: array or not, interface or not, its super, its fields. */
static void describe_class(struct walk *w, uint32_t k)
{
    jvmtiEnv *jvmti = w->h->jvmti;
    JNIEnv *jni = w->jni;
    struct hd_class *c = &w->cls[k];
    struct cls_extra *x = &w->ext[k];
    const char *sig = c->info->signature;
    c->is_array = sig[0] == '[';
    if (c->is_array) c->elem_type = (uint8_t)hd_type_of(sig[1]);
    jint mods = 0;
    (*jvmti)->GetClassModifiers(jvmti, x->ref, &mods);
    c->is_interface = (mods & 0x0200) != 0;
    jclass sup = (*jni)->GetSuperclass(jni, x->ref);
    if (sup) {
        c->super = walk_class_of_ref(w, sup);
        (*jni)->DeleteLocalRef(jni, sup);
    }
    if (strcmp(sig, "Ljava/lang/Object;") == 0) w->object_class = c;
    read_fields(w, c, x);
}

int walk_load_classes(struct walk *w)
{
    if (name_classes(w) != 0) return -1;
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->cls[k].info) describe_class(w, k);
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->cls[k].info) lay_out(w, &w->cls[k]);
    /* Let go of the classes before the walk, or they would show as JNI local roots. */
    for (uint32_t k = 0; k < w->ncls; k++)
        if (w->ext[k].ref) {
            (*w->jni)->DeleteLocalRef(w->jni, w->ext[k].ref);
            w->ext[k].ref = NULL;
        }
    return 0;
}

void walk_free_classes(struct walk *w)
{
    for (uint32_t k = 0; w->cls && w->ext && k < w->ncls; k++) {
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
}
