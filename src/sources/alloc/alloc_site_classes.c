/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/alloc/alloc_site_classes.h"

#include <stdio.h>
#include <string.h>

#include "sources/alloc/alloc_exact.h"
#include "sources/alloc/alloc_state.h"
#include "sources/resolve.h"

/* Names every class loaded so far (at VM init, or when attached), so that a site's
 * class is found by its signature. */
void alloc_name_loaded_classes(struct host *h, JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    /* GetLoadedClasses makes a local reference per class before n is known: a frame
     * with room for them (HotSpot only counts the room, -Xcheck:jni checks it). */
    if ((*jni)->PushLocalFrame(jni, 1 << 16) != 0) return;
    if ((*h->jvmti)->GetLoadedClasses(h->jvmti, &n, &classes) != JVMTI_ERROR_NONE) {
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    for (jint i = 0; i < n; i++) {
        /* what naming makes is let go of class by class */
        if ((*jni)->PushLocalFrame(jni, 16) == 0) {
            classes_of(&h->t.classes, h->jvmti, jni, classes[i], &h->t.ids);
            (*jni)->PopLocalFrame(jni, NULL);
        }
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)classes);
    (*jni)->PopLocalFrame(jni, NULL);
}

static struct class_info *class_named(struct host *h, JNIEnv *jni, const char *sig, int depth);

/* The class of an array of references: made from its element's (a JNI array of length
 * 0, on a thread whose own allocations are not counted meanwhile). */
static struct class_info *array_class(struct host *h, JNIEnv *jni, const char *sig, int depth)
{
    struct class_info *elem = class_named(h, jni, sig + 1, depth + 1);
    jweak m = elem ? atomic_load(&elem->mirror) : NULL;
    jclass ec = m ? (*jni)->NewLocalRef(jni, m) : NULL;
    if (!ec) return NULL;
    jobjectArray a = (*jni)->NewObjectArray(jni, 0, ec, NULL);
    struct class_info *ci = NULL;
    if (a) {
        jclass ac = (*jni)->GetObjectClass(jni, a);
        ci = classes_of(&h->t.classes, h->jvmti, jni, ac, &h->t.ids);
        (*jni)->DeleteLocalRef(jni, ac);
        (*jni)->DeleteLocalRef(jni, a);
    }
    (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, ec);
    return ci;
}

/* A class by its signature: named already (prepared classes are), else made or found
 * (primitive arrays, the boot loader's classes). NULL when not found. */
static struct class_info *class_named(struct host *h, JNIEnv *jni, const char *sig, int depth)
{
    struct class_info *ci = classes_by_signature(&h->t.classes, sig);
    if (ci || depth > 255) return ci;
    bool primitive_array = sig[0] == '[' && sig[strspn(sig, "[")] != 'L';
    if (sig[0] == '[' && !primitive_array) return array_class(h, jni, sig, depth);
    char name[1024];
    if (primitive_array)
        snprintf(name, sizeof name, "%s", sig);
    else if (sig[0] == 'L' && strlen(sig) > 2)
        snprintf(name, sizeof name, "%.*s", (int)strlen(sig) - 2, sig + 1);
    else
        return NULL;
    jclass cls = (*jni)->FindClass(jni, name);
    if (!cls) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    ci = classes_of(&h->t.classes, h->jvmti, jni, cls, &h->t.ids);
    (*jni)->DeleteLocalRef(jni, cls);
    return ci;
}

struct class_info *alloc_site_class(struct host *h, JNIEnv *jni, struct alloc_site *s)
{
    struct class_info *ci = atomic_load_explicit(&s->cls, memory_order_acquire);
    if (ci) return ci;
    ci = class_named(h, jni, s->signature, 0);
    ci = classes_canonical(ci);
    if (ci) atomic_store_explicit(&s->cls, ci, memory_order_release);
    return ci;
}

/* Bytes of every instance of a class `new` makes: measured once on an object made
 * through the JNI functions as they were (ours would count it), on a thread whose own
 * allocations are not counted meanwhile. 0 when not known. */
uint64_t alloc_instance_size(struct host *h, JNIEnv *jni, struct class_info *ci)
{
    int64_t size = atomic_load_explicit(&ci->instance_size, memory_order_relaxed);
    if (size > 0) return (uint64_t)size;
    struct alloc_tracker *t = alloc_of(h);
    jweak m = atomic_load(&ci->mirror);
    jclass cls = m ? (*jni)->NewLocalRef(jni, m) : NULL;
    if (!cls || !t->jni_table) return 0;
    jobject obj = t->jni_table->AllocObject(jni, cls);
    (*jni)->ExceptionClear(jni);
    if (obj) {
        size = (int64_t)alloc_exact_object_size(h, obj, ci);
        (*jni)->DeleteLocalRef(jni, obj);
    }
    (*jni)->DeleteLocalRef(jni, cls);
    return size > 0 ? (uint64_t)size : 0;
}
