/* SPDX-License-Identifier: Apache-2.0 */
/* A library as a JNI library would be, for test_native_unwind and bench/native-walk:
 * outer -> middle -> inner, built without frame pointers (only .eh_frame can unwind
 * it); inner spins until told to stop. No tail calls (each caller works on the result),
 * nothing inlined. */
#include <stdint.h>

__attribute__((visibility("default"))) volatile int native_chain_inside; /* 1 while inner spins */
__attribute__((visibility("default"))) volatile int native_chain_stop;
__attribute__((visibility("default"))) volatile uint64_t native_chain_spins;

/* A frame that needs its stack (an array the spin reads) so that its CFA moves. */
__attribute__((noinline, visibility("default"))) uint64_t native_chain_inner(uint64_t n)
{
    volatile uint64_t pad[8];
    for (int i = 0; i < 8; i++) pad[i] = n + (uint64_t)i;
    native_chain_inside = 1;
    while (!native_chain_stop) native_chain_spins += pad[native_chain_spins & 7] & 1;
    native_chain_inside = 0;
    return pad[3] + native_chain_spins;
}

__attribute__((noinline, visibility("default"))) uint64_t native_chain_middle(uint64_t n)
{
    volatile uint64_t pad[4] = {n, n + 1, n + 2, n + 3};
    return native_chain_inner(pad[1]) * 3 + pad[2];
}

__attribute__((noinline, visibility("default"))) uint64_t native_chain_outer(uint64_t n)
{
    return native_chain_middle(n + 1) * 5 + 7;
}
