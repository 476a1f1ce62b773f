/* SPDX-License-Identifier: Apache-2.0 */
/* NativeWork's JNI library: a known chain Java_NativeWork_spin -> outer -> middle ->
 * inner, each a function of its own (not inlined, not cloned, no tail call), built by
 * tests/integration/cpu_native.sh with -O2 -fomit-frame-pointer: only the DWARF call
 * frame information unwinds it. With -DODD_CFA, inner's call frame address is given by a
 * DWARF expression from its first instruction on (rsp + 8, true, but a rule the agent's
 * unwinder does not follow): the walk stops there, and says so. */
#include <jni.h>

#define KEEP __attribute__((noinline, noclone, visibility("default")))

volatile unsigned long native_chain_sink;

KEEP unsigned long inner(unsigned long n)
{
#ifdef ODD_CFA
    /* DW_CFA_def_cfa_expression, 2 bytes: DW_OP_breg7 (rsp) 8 */
    __asm__ volatile(".cfi_escape 0x0f, 0x02, 0x77, 0x08");
#endif
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
