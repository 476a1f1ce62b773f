/* SPDX-License-Identifier: Apache-2.0 */
/* The agent of bench/java/TagCost.java (see there): one way of holding an object per call. */
#include <jni.h>
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

static jvmtiEnv *env;
static jlong next_tag = 1;
static jweak *refs;
static size_t nrefs, cap, sweep_at = 200000;

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    return (*env)->AddCapabilities(env, &caps) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}

/* Drops the references of collected objects; the next sweep waits until the log doubles. */
static void sweep(JNIEnv *jni)
{
    size_t kept = 0;
    for (size_t i = 0; i < nrefs; i++) {
        if ((*jni)->IsSameObject(jni, refs[i], NULL))
            (*jni)->DeleteWeakGlobalRef(jni, refs[i]);
        else
            refs[kept++] = refs[i];
    }
    nrefs = kept;
    sweep_at = kept * 2 > 200000 ? kept * 2 : 200000;
}

JNIEXPORT void JNICALL Java_TagCost_hold(JNIEnv *jni, jclass k, jobject o, jint mode)
{
    jlong tag;
    jclass c;
    switch (mode) {
    case 1: (*env)->SetTag(env, o, next_tag++); break;
    case 2:
        if (nrefs == cap) {
            cap = cap ? cap * 2 : 1024;
            refs = realloc(refs, cap * sizeof *refs);
            if (!refs) abort();
        }
        refs[nrefs++] = (*jni)->NewWeakGlobalRef(jni, o);
        if (nrefs >= sweep_at) sweep(jni);
        break;
    case 3: (*env)->GetTag(env, o, &tag); break;
    case 4:
        c = (*jni)->GetObjectClass(jni, o);
        (*jni)->DeleteLocalRef(jni, c);
        break;
    }
}
