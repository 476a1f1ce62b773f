/* SPDX-License-Identifier: Apache-2.0 */
/* NativeWork's JNI library: a known chain Java_NativeWork_spin -> outer -> middle ->
 * inner, each a function of its own (not inlined, not cloned, no tail call), built by
 * tests/integration/cpu_native.sh with -O2 -fomit-frame-pointer: only the DWARF call
 * frame information unwinds it. */
#include <jni.h>

#define KEEP __attribute__((noinline, noclone, visibility("default")))

volatile unsigned long native_chain_sink;

KEEP unsigned long inner(unsigned long n)
{
    unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++) x += (i * i) ^ native_chain_sink;
    return x;
}

KEEP unsigned long middle(unsigned long n)
{
    unsigned long r = inner(n);
    native_chain_sink += r & 1;
    return r + 1;
}

KEEP unsigned long outer(unsigned long n)
{
    unsigned long r = middle(n);
    native_chain_sink += r & 1;
    return r + 1;
}

JNIEXPORT jlong JNICALL Java_NativeWork_spin(JNIEnv *env, jclass cls, jlong n)
{
    unsigned long r = outer((unsigned long)n);
    native_chain_sink += r & 1;
    return (jlong)(r + 1);
}
