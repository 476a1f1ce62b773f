/* SPDX-License-Identifier: Apache-2.0 */
/* Native helper of HeapDumpKnown: an object held by a JNI global reference only. */
#include <jni.h>

JNIEXPORT void JNICALL Java_HeapDumpKnown_holdGlobal(JNIEnv *env, jclass cls, jobject o)
{
    (void)cls;
    (*env)->NewGlobalRef(env, o);
}
