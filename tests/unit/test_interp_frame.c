/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreted frames (sources/hotspot/interp_frame.c) and the call stub's
 * (entry_frame.h): the words read from a frame pointer, only inside the stack given; and the check of what was read against a walked
 * frame, through a fake VM's structures laid out as the VMStructs offsets say, which
 * answers false instead of faulting for an address where nothing is mapped. */
#include <stdint.h>
#include <string.h>

#include "sources/hotspot/entry_frame.h"
#include "sources/hotspot/interp_frame.h"
#include "unit.h"

static uintptr_t stack[64];

/* A fake Method -> ConstMethod (bytecodes after it) -> ConstantPool -> InstanceKlass ->
 * jmethodID array, at the offsets below. */
static uintptr_t method[4], const_method[16], pool[4], klass[4], ids[4];

/* The call stub's frame (sources/hotspot/entry_frame.h): its JavaCallWrapper, just
 * above it, holds the last Java frame from before the call. */
static void entry_frames(void)
{
    static uintptr_t st[64];
    struct entry_layout e = {.stub_return = 0x5000, .sp_at = 8, .pc_at = 16, .fp_at = 24, .size = 32, .ok = true};
    uintptr_t lo = (uintptr_t)st, hi = (uintptr_t)(st + 64);
    uintptr_t *fp = st + 10, *wrapper = st + 14;
    fp[-ENTRY_WRAPPER_WORD] = (uintptr_t)wrapper;
    wrapper[1] = (uintptr_t)(st + 30); /* sp */
    wrapper[2] = 0x1230;               /* pc */
    wrapper[3] = (uintptr_t)(st + 40); /* fp */
    uintptr_t sp = 0, pc = 0, jfp = 0;
    CHECK(entry_returns_to(&e, 0x5000) && !entry_returns_to(&e, 0x5008), "entry frame: the stub's return address");
    CHECK(entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp) && sp == (uintptr_t)(st + 30) && pc == 0x1230 &&
              jfp == (uintptr_t)(st + 40),
          "entry frame: the last Java frame before the call, from the wrapper");
    wrapper[2] = 0;
    st[29] = 0x4560;
    CHECK(entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp) && pc == 0x4560,
          "entry frame: a pc not filled in is the return address under its sp");
    wrapper[1] = 0;
    CHECK(entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp) && sp == 0,
          "entry frame: none before the thread's first call into Java");
    wrapper[1] = (uintptr_t)(st + 12);
    CHECK(!entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp),
          "entry frame: a last frame below the wrapper is refused");
    fp[-ENTRY_WRAPPER_WORD] = (uintptr_t)(st + 62);
    CHECK(!entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp),
          "entry frame: so is a wrapper whose fields would leave the stack");
    fp[-ENTRY_WRAPPER_WORD] = (uintptr_t)(st + 4);
    CHECK(!entry_frame_caller(&e, (uintptr_t)fp, lo, hi, &sp, &pc, &jfp) &&
              !entry_frame_caller(&e, (uintptr_t)(st + 2), lo, hi, &sp, &pc, &jfp),
          "entry frame: and a wrapper below the stub's frame, or a frame pointer too low to hold one");
    e.ok = false;
    CHECK(!entry_returns_to(&e, 0x5000), "entry frame: nothing without the VM's tables");
}

int main(void)
{
    struct interp_layout l = {.ok = true,
                              .code_lo = 0x1000,
                              .code_hi = 0x2000,
                              .const_method = 8,
                              .constants = 16,
                              .idnum = 24,
                              .const_size = 32,
                              .holder = 8,
                              .jmethod_ids = 24};
    uintptr_t lo = (uintptr_t)stack, hi = (uintptr_t)(stack + 64);
    uintptr_t *fp = stack + 20;
    fp[-INTERP_METHOD_WORD] = (uintptr_t)method;
    uintptr_t bcp = (uintptr_t)const_method + 32 + 7; /* bci 7 */
    fp[-INTERP_BCP_WORD] = bcp;
    fp[0] = (uintptr_t)(stack + 40);
    fp[1] = 0x1234;
    uintptr_t m = 0, b = 0, pc = 0, next = 0;
    CHECK(interp_frame_read((uintptr_t)fp, lo, hi, &m, &b, &pc, &next) && m == (uintptr_t)method && b == bcp &&
              pc == 0x1234 && next == (uintptr_t)(stack + 40),
          "interp frame: Method*, bytecode pointer, caller's pc and frame pointer");
    CHECK(!interp_frame_read((uintptr_t)(stack + 4), lo, hi, &m, &b, &pc, &next),
          "interp frame: a frame pointer whose words below would leave the stack is refused");
    CHECK(!interp_frame_read((uintptr_t)(stack + 63), lo, hi, &m, &b, &pc, &next) &&
              !interp_frame_read(hi, lo, hi, &m, &b, &pc, &next),
          "interp frame: so is one whose caller's words would");
    CHECK(!interp_frame_read((uintptr_t)fp + 3, lo, hi, &m, &b, &pc, &next), "interp frame: and a misaligned one");
    CHECK(interp_returns_to(&l, 0x1800) && !interp_returns_to(&l, 0x2000), "interp frame: the interpreter's code");

    jmethodID id = (jmethodID)(uintptr_t)0xabc0;
    method[1] = (uintptr_t)const_method; /* Method::_constMethod at 8 */
    const_method[2] = (uintptr_t)pool;   /* ConstMethod::_constants at 16 */
    uint16_t idnum = 2;
    memcpy((char *)const_method + 24, &idnum, sizeof idnum); /* _method_idnum at 24 */
    pool[1] = (uintptr_t)klass;                              /* ConstantPool::_pool_holder at 8 */
    klass[3] = (uintptr_t)ids;                               /* _methods_jmethod_ids at 24 */
    ids[0] = 3;                                              /* length, then the IDs */
    ids[3] = (uintptr_t)id;
    CHECK(interp_frame_is(&l, (uintptr_t)method, bcp, id, 7), "interp frame: the walked frame's method and bci");
    CHECK(!interp_frame_is(&l, (uintptr_t)method, bcp, id, 6), "interp frame: another bci is not it");
    CHECK(!interp_frame_is(&l, (uintptr_t)method, bcp, (jmethodID)(uintptr_t)0xdef0, 7),
          "interp frame: another method is not it");
    uintptr_t code = (uintptr_t)const_method + 32;
    CHECK(interp_frame_is(&l, (uintptr_t)method, code, id, -1) && interp_frame_is(&l, (uintptr_t)method, 0, id, -1),
          "interp frame: a native method's (location -1), its bytecode pointer at the start or 0");
    CHECK(!interp_frame_is(&l, (uintptr_t)method, bcp, id, -1) && !interp_frame_is(&l, (uintptr_t)method, 0, id, 0),
          "interp frame: but not elsewhere, nor 0 for a Java method's");
    fp[-INTERP_BCP_WORD] = 0;
    CHECK(!interp_frame_read((uintptr_t)fp, lo, hi, &m, &b, &pc, &next) &&
              interp_frame_read_any((uintptr_t)fp, lo, hi, &m, &b, &pc, &next) && m == (uintptr_t)method && b == 0,
          "interp frame: no bytecode pointer is a Java method's refused, a native method's read");
    idnum = 3;
    memcpy((char *)const_method + 24, &idnum, sizeof idnum);
    CHECK(!interp_frame_is(&l, (uintptr_t)method, bcp, id, 7), "interp frame: a method number past the IDs is not it");
    CHECK(!interp_frame_is(&l, 0x10, 0x10 + 8, id, 0) && !interp_frame_is(&l, UINTPTR_MAX - 4, bcp, id, 7),
          "interp frame: a Method* where nothing is mapped answers no, without a fault");
    l.ok = false;
    CHECK(!interp_frame_is(&l, (uintptr_t)method, bcp, id, 7), "interp frame: nothing without the VM's tables");
    entry_frames();
    return UNIT_DONE();
}
