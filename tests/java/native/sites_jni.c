/* SPDX-License-Identifier: Apache-2.0 */
/* JNI allocations for the heap=sites test: AllocObject (no constructor) and NewObject. */
#include <jni.h>

JNIEXPORT jobject JNICALL Java_SitesKnown_allocObject(JNIEnv *env, jclass self, jclass c)
{
    return (*env)->AllocObject(env, c);
}

JNIEXPORT jobject JNICALL Java_SitesKnown_newObject(JNIEnv *env, jclass self, jclass c)
{
    jmethodID init = (*env)->GetMethodID(env, c, "<init>", "()V");
    return init ? (*env)->NewObject(env, c, init) : NULL;
}
