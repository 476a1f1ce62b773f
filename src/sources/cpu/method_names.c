/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/method_names.h"

#include "sources/host.h"
#include "sources/resolve.h"
#include "tables/bci_classes.h"

struct frame *method_names_frame(struct host *h, JNIEnv *jni, uint32_t cnum, uint32_t mnum, bool *for_good)
{
    struct bci_class *c = bci_classes_get(host_bci_classes(h), cnum);
    struct bci_version *v = c && mnum < c->nmethods ? c->version : NULL;
    struct frame *f = v ? atomic_load_explicit(&v->frames[mnum], memory_order_acquire) : NULL;
    bool kept = f != NULL;
    if (!f) {
        jmethodID id = c && mnum < c->nmethods ? atomic_load_explicit(&c->ids[mnum], memory_order_relaxed) : NULL;
        struct method_info *m = id ? methods_of(&h->t.methods, h->jvmti, jni, id) : NULL;
        bool named = m && m->cls != &h->t.classes.unknown; /* else unloaded already: not kept */
        f = frames_of(&h->t.frames, named ? m : &h->t.methods.unknown, -1);
        kept = f && named && v;
        if (kept) atomic_store_explicit(&v->frames[mnum], f, memory_order_release);
    }
    if (for_good) *for_good = kept;
    return f;
}

void method_names_class(struct host *h, JNIEnv *jni, struct bci_class *c)
{
    /* The replay names a method at its first counted call, through the jmethodID; the
     * calls of a copy whose loader was collected before then (a loader per round of
     * work, dropped at once) could not be named, and none of their bytes' other copies
     * may ever come. Named here, on the loading thread, the frames stay with the bytes. */
    for (uint32_t m = 0; m < c->nmethods; m++) method_names_frame(h, jni, c->cnum, m, NULL);
}
