/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/bci/hidden_classes.h"

#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/bci/bci_spec.h"
#include "sources/host.h"
#include "util/log.h"

#define HIDDEN_CLASS 2 /* ClassDefiner.classFlags: MethodHandleNatives.Constants.HIDDEN_CLASS */

/* The definer's classFlags, or 0 when it has none (another JDK's layout). */
static jint class_flags(JNIEnv *jni, jobject definer)
{
    jclass cls = (*jni)->GetObjectClass(jni, definer);
    jfieldID f = cls ? (*jni)->GetFieldID(jni, cls, "classFlags", "I") : NULL;
    jint flags = f ? (*jni)->GetIntField(jni, definer, f) : 0;
    if (!f) (*jni)->ExceptionClear(jni);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    return flags;
}

/* The class file's bytes instrumented, as a new array; NULL to define them as they are
 * (the hook then returns the original). */
static jbyteArray instrumented(struct host *h, JNIEnv *jni, jbyteArray bytes)
{
    jsize len = (*jni)->GetArrayLength(jni, bytes);
    uint8_t *data = len > 0 ? malloc((size_t)len) : NULL;
    if (!data) return NULL;
    (*jni)->GetByteArrayRegion(jni, bytes, 0, len, (jbyte *)data);
    cf_inject_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.tracker_class = TRACKER_CLASS;
    spec.filter = bci_spec_filter;
    bci_spec_sites(h, &spec);
    cf_result res;
    jbyteArray out = NULL;
    int rc = cf_instrument(data, (size_t)len, &spec, &res);
    if (rc == CF_OK && res.len <= INT32_MAX && (out = (*jni)->NewByteArray(jni, (jsize)res.len)) != NULL) {
        (*jni)->SetByteArrayRegion(jni, out, 0, (jsize)res.len, (const jbyte *)res.data);
        for (unsigned i = 0; i < res.site_count; i++) alloc_tracker_add_site(h, 0, &res.sites[i]);
    }
    if ((*jni)->ExceptionCheck(jni)) { /* out of memory: the class as it came */
        (*jni)->ExceptionClear(jni);
        if (out) (*jni)->DeleteLocalRef(jni, out);
        out = NULL;
    }
    cf_result_free(&res);
    free(data);
    return out;
}

/* Tracker.instrumentHidden: the bytes ClassDefiner is about to define; a hidden class's
 * instrumented (numbered 0: the sites need no class number), another's as they are (the
 * class-file hook sees it). */
static jbyteArray JNICALL native_instrument_hidden(JNIEnv *jni, jclass tracker, jbyteArray bytes, jobject definer)
{
    struct host *h = host_get();
    if (!h || !bytes || !definer || !(class_flags(jni, definer) & HIDDEN_CLASS)) return bytes;
    jbyteArray out = instrumented(h, jni, bytes);
    return out ? out : bytes;
}

void hidden_classes_bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    JNINativeMethod natives[] = {{"instrumentHidden", "([BLjava/lang/Object;)[B", (void *)native_instrument_hidden}};
    jfieldID on = (*jni)->GetStaticFieldID(jni, tracker, "hiddenOn", "Z");
    if (!on || (*jni)->RegisterNatives(jni, tracker, natives, 1) != 0) {
        (*jni)->ExceptionClear(jni);
        log_warning("heap=sites,callers=sampled: the Tracker class does not match this agent; "
                    "allocations in hidden classes are not counted");
        return;
    }
    (*jni)->SetStaticBooleanField(jni, tracker, on, JNI_TRUE);
}
