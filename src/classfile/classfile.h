/* SPDX-License-Identifier: Apache-2.0 */
/* Class-file reader/writer and bytecode instrumenter (pure C, no JVMTI/JNI).
 *
 * Reads class files of versions 45 to 69 (JDK 1.1 to JDK 25), writes them back byte for
 * byte, and injects static calls to a tracker class:
 *   - at method entry:             Tracker.entry(cnum, mnum)
 *   - before every return opcode:  Tracker.return(cnum, mnum)
 *   - after newarray/anewarray/multianewarray: dup + Tracker.newarray(array)
 *   - after calls of clone()Ljava/lang/Object;: dup + Tracker.clone(copy) or .vclone(copy)
 *   - at entry of java/lang/Object.<init>:      Tracker.objinit(this)
 *   - allocation sites (heap=sites,callers=sampled), each numbered by spec->site_fn:
 *       after new:            push number; Tracker.newsite(number)   (the uninitialised
 *                             reference stays on the stack untouched)
 *       after newarray/anewarray: dup; arraylength; push number; push element code;
 *                             Tracker.arraysite(length, number, code); code: newarray's atype
 *                             (4 boolean .. 11 long), 12 for anewarray (references)
 *       after multianewarray: dup; push number; Tracker.multisite(array, number)
 *     Counting after the instruction leaves out allocations that threw. push number is
 *     iconst/bipush/sipush, or ldc/ldc_w of an Integer added to the constant pool.
 *   - after a call of a JDK native whose result the VM made without a `new` (a site of
 *     kind CF_SITE_CALL, numbered too): dup; push number; Tracker.allocinst(object,
 *     number) after Unsafe.allocateInstance (jdk/internal/misc or sun/misc: method
 *     handles, deserialisation), Array.newArray, the newInstance0 of reflection's native
 *     accessors (jdk/internal/reflect) and a clone() that surely runs Object.clone
 *     (super.clone(), an array's); Tracker.madeall(object, number) after
 *     Array.multiNewArray and Class.getDeclaredFields0, getDeclaredMethods0,
 *     getDeclaredConstructors0 and getRecordComponents0 (the result holds more such)
 *   - optionally an exception exit: a catch-all handler over the body (in constructors
 *     starting after the super()/this() call) that calls the return hook and rethrows.
 * mnum is the method's index in the class file's methods array (res->methods[mnum]).
 * Everything the insertions move is fixed: branch and switch offsets, exception tables,
 * LineNumberTable, LocalVariable(Type)Table, CharacterRangeTable, StackMapTable, type
 * annotations with code offsets, max_stack. A 16-bit branch that no longer fits becomes
 * goto_w / jsr_w, or for a conditional either "if<!cond> +8; goto_w" (with a StackMapTable
 * frame inferred for the instruction after it) or a jump to a nearby island of goto_w
 * trampolines. A method that would pass 65535 bytes is left as it was (CF_M_TOO_BIG).
 *
 * Inputs are untrusted: a malformed class gives an error code and no output, never a crash,
 * and every allocation is bounded by a multiple of the input size. All functions are
 * reentrant (no global state), so the agent may call them from any thread.
 *
 * Usage:
 *     cf_inject_spec spec = { .tracker_class = "hprof/Tracker",
 *         .entry_name = "CallSite", .entry_desc = "(II)V",
 *         .return_name = "ReturnSite", .return_desc = "(II)V",
 *         .newarray_name = "NewArray", .newarray_desc = "(Ljava/lang/Object;)V",
 *         .exception_exit = 1, .cnum = next_class_number, .filter = my_filter };
 *     cf_result res;
 *     int rc = cf_instrument(bytes, len, &spec, &res);
 *     if (rc == CF_OK)  copy res.data/res.len into JVMTI-allocated memory for the VM
 *     if (rc >= 0)     keep res.methods[mnum].name/.desc to map (cnum, mnum) back
 *     cf_result_free(&res);
 *
 * Notes for the agent (what the JDK tests in tests/tools/classfile_jdk.sh taught):
 *  - The tracker class itself is never instrumented; methods the tracker calls (e.g.
 *    java/lang/Thread.currentThread) must be filtered out by the agent.
 *  - An empty finalize()V (java/lang/Object's, say) is never instrumented (CF_M_FILTERED):
 *    HotSpot registers a finalizer for every object of a class whose finalize is not empty.
 *  - java/lang/Object.<init> never gets the exception exit (C2 on JDK 17 crashed compiling
 *    it with a handler); it counts in exc_exit_skipped.
 *  - A tracker on -Xbootclasspath/a (or AddToBootstrapClassLoaderSearch) cannot be loaded
 *    by code that runs during VM genesis: instrumented java.base classes used that early
 *    fail with NoClassDefFoundError. Leave classes hooked before VMInit alone (or
 *    retransform them later), as the old hprof did for its "system classes". A no-op
 *    tracker placed inside java.base itself works from the very start (see the tests).
 *  - Cost: about 2 s for all 26,000 classes of a JDK on one thread (~80 us a class).
 */
#ifndef HPROF_CLASSFILE_H
#define HPROF_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

/* Return codes. */
enum {
    CF_OK = 0,           /* success; for cf_instrument: result->data holds the new class */
    CF_UNCHANGED = 1,    /* cf_instrument: nothing was injected; keep the original bytes */
    CF_ERR_FORMAT = -1,  /* malformed or truncated class file */
    CF_ERR_VERSION = -2, /* class-file version outside 45..69 */
    CF_ERR_LIMIT = -3,   /* a class-file limit would be exceeded (constant pool full, ...) */
    CF_ERR_NOMEM = -4,   /* out of memory, or the allocation cap for this input was reached */
    CF_ERR_ARG = -5      /* bad arguments */
};
const char *cf_strerror(int rc);

#define CF_MAJOR_MIN 45
#define CF_MAJOR_MAX 69

/* ---- Reading and writing ------------------------------------------------------------ */

typedef struct cf_class cf_class;

/* Flags for cf_parse. */
#define CF_PARSE_DEEP \
    1u /* also decode every Code attribute: instructions, branch and switch
                            targets, exception table, StackMapTable, type annotations */

/* Parses buf[0..len). The class keeps pointers into buf: buf must outlive it.
 * On success *out is set (free with cf_free); on error *out is NULL. */
int cf_parse(const uint8_t *buf, size_t len, unsigned flags, cf_class **out);
void cf_free(cf_class *c);

/* Serialises the class into a malloc'd buffer (caller frees with free()). For a class
 * that was only parsed, the output is byte-identical to the input. */
int cf_write(const cf_class *c, uint8_t **out, size_t *out_len);

/* Accessors. Strings are NUL-terminated copies owned by the class. */
const char *cf_class_name(const cf_class *c); /* internal form, e.g. "java/lang/String" */
unsigned cf_major(const cf_class *c);
unsigned cf_cp_tag(const cf_class *c, unsigned index); /* 0 for unusable slots */
unsigned cf_method_count(const cf_class *c);
const char *cf_method_name(const cf_class *c, unsigned i);
const char *cf_method_desc(const cf_class *c, unsigned i);
long cf_method_code_length(const cf_class *c, unsigned i); /* -1 when there is no Code */

/* ---- Instrumentation ---------------------------------------------------------------- */

/* Injection kinds, also used as the mask a filter returns. */
enum {
    CF_INJ_ENTRY = 1,       /* entry hook */
    CF_INJ_RETURN = 2,      /* hook before each return opcode */
    CF_INJ_OBJINIT = 4,     /* objinit hook (only ever applies to java/lang/Object.<init>) */
    CF_INJ_NEWARRAY = 8,    /* hook after array allocations */
    CF_INJ_EXC_EXIT = 16,   /* catch-all calling the return hook, then rethrowing */
    CF_INJ_CLONE = 32,      /* hooks after calls of Object.clone */
    CF_INJ_SITES = 64,      /* site hooks after new/newarray/anewarray/multianewarray */
    CF_INJ_ALLOCINST = 128, /* hooks after calls of Unsafe.allocateInstance and of the other
                               JDK natives that return what the VM made (cf_sites_made) */
    CF_INJ_DEFINER = 256,   /* the hook on the bytes of the classes Lookup defines */
    CF_INJ_ALL = 511
};

/* Allocation sites numbered by the agent (heap=sites,callers=sampled). */
enum { CF_SITE_NEW = 1, CF_SITE_ARRAY = 2, CF_SITE_MULTI = 3, CF_SITE_CALL = 4 };
typedef struct {
    unsigned mnum;    /* the method's index */
    unsigned bci;     /* the allocating instruction's offset in the original code */
    unsigned new_bci; /* its offset in the instrumented code (set in cf_result.sites, after
                         layout; 0 in the callback) */
    unsigned kind;    /* CF_SITE_* */
    const char *type; /* NEW: the class's internal name ("java/lang/String"); ARRAY: the
                         array's descriptor ("[I", "[Ljava/lang/String;", "[[I" for anewarray
                         of int[]); MULTI: the descriptor of the array the instruction makes
                         ("[[I"); CALL (a call of a native whose result the VM made, see
                         allocinst_name): "" (the class is known only when it runs) */
    unsigned dims;    /* MULTI: the dimensions it creates (the instruction's operand); else 1 */
    long number;      /* the number the callback gave (in cf_result.sites) */
} cf_site_info;
/* Gives the site its number, 0..CF_SITE_MAX; a MULTI site is given dims consecutive numbers
 * starting at the one returned (one per dimension created). -1 (or any value outside
 * 0..CF_SITE_MAX, or a MULTI range passing it) leaves the instruction without a hook.
 * Called once per allocating instruction of each method the filter allows CF_INJ_SITES for
 * (only for the kinds whose hook the spec names), in code order, from the thread that
 * called cf_instrument. A number given to an instruction whose method is then left as it
 * was (CF_M_TOO_BIG, CF_M_UNREWRITABLE) or whose class fails (rc < 0) is not in
 * cf_result.sites: that list alone says which numbers are in use. site->type lives only
 * during the call. */
typedef long (*cf_site_fn)(void *ctx, const cf_site_info *site);
#define CF_SITE_MAX 0x7fffffffL

/* The JDK natives whose calls get the allocinst (MADE_ONE) or madeall (MADE_ALL) hook:
 * their result is an object the VM made (and, MADE_ALL, the objects it holds). */
enum { MADE_NONE, MADE_ONE, MADE_ALL };
typedef struct {
    const char *owner, *name, *desc; /* the method: class (internal form), name, descriptor */
    int what;                        /* MADE_ONE or MADE_ALL */
    int is_static;                   /* called by invokestatic; else invokevirtual/special */
} cf_made_native;
const cf_made_native *cf_made_natives(size_t *n);

/* Decides per method which injections happen: returns a mask of CF_INJ_* (0 skips the
 * method; the method still gets its mnum). class_name/name/desc are NUL-terminated. */
typedef unsigned (*cf_filter_fn)(void *ctx, const char *class_name, const char *name, const char *desc, unsigned access,
                                 unsigned mnum);

/* The descriptor of an objinit hook that takes the object's class after the object. */
#define CF_OBJINIT_WITH_CLASS "(Ljava/lang/Object;Ljava/lang/Class;)V"

typedef struct {
    const char *tracker_class;                 /* internal name, e.g. "hprof/Tracker" */
    const char *entry_name, *entry_desc;       /* static (II)V (cnum, mnum) at method entry, or NULL */
    int entry_arg;                             /* the entry hook is (IILjava/lang/Object;)V and gets
                                                `this` (not in a constructor), else the first
                                                parameter if it is a reference, else null */
    const char *return_name, *return_desc;     /* static (II)V before every return (and on exception
                                                exit if enabled), or NULL */
    const char *leaf_name;                     /* static (II)V at the entry of a trivial method (no
                                                calls, loops or allocations, a few bytes; see
                                                cf_method_trivial) in place of the entry, return
                                                and exception-exit hooks; NULL: none */
    const char *objinit_name, *objinit_desc;   /* static (Ljava/lang/Object;)V at entry of
                                                java/lang/Object.<init>, or NULL; one of
                                                CF_OBJINIT_WITH_CLASS gets this.getClass() too */
    const char *newarray_name, *newarray_desc; /* static (Ljava/lang/Object;)V after each array
                                                  allocation, or NULL */
    const char *clone_name, *vclone_name;      /* static (Ljava/lang/Object;)V after each call of
                                                clone()Ljava/lang/Object; that surely runs
                                                Object.clone (super.clone(), an array's clone),
                                                and after each other invokevirtual of it; or NULL
                                                (with allocinst_name the former take that hook,
                                                and clone_name may be NULL) */
    const char *newsite_name;                  /* static (I)V after each new (site number), or NULL */
    const char *arraysite_name;                /* static (III)V after each newarray/anewarray
                                                (length, site number, element code), or NULL */
    const char *multisite_name;                /* static (Ljava/lang/Object;I)V after each
                                                multianewarray (array, first site number), or NULL */
    const char *allocinst_name;                /* static (Ljava/lang/Object;I)V (the result, the
                                                site number) after each call of
                                                Unsafe.allocateInstance, Array.newArray,
                                                reflection's native newInstance0 and of a
                                                clone() that surely runs Object.clone, whose
                                                result the VM made: a site of kind CF_SITE_CALL,
                                                numbered by site_fn (CF_INJ_ALLOCINST, which
                                                needs site_fn); or NULL */
    const char *madeall_name;                  /* the same after each call of a native whose
                                                result and the objects it holds the VM made:
                                                Array.multiNewArray (every level),
                                                Class.getDeclaredFields0 and its kin (the array
                                                and its elements); NULL: allocinst_name's */
    const char *definer_name;                  /* static ([BLjava/lang/Object;)[B after each read of
                                                the field bytes in
                                                java/lang/invoke/MethodHandles$Lookup$ClassDefiner's
                                                defineClass(ZLjava/lang/Object;): the bytes of the
                                                class about to be defined and the definer, in, the
                                                bytes to define, out (CF_INJ_DEFINER); hidden
                                                classes (lambdas, string concatenation) reach no
                                                class-file hook; or NULL */
    cf_site_fn site_fn;                        /* numbers the sites (CF_INJ_SITES); NULL: no site hooks */
    void *site_ctx;
    int exception_exit;  /* wrap bodies in a catch-all calling the return hook */
    unsigned cnum;       /* class number passed as first int */
    cf_filter_fn filter; /* NULL: every method gets every configured hook */
    void *filter_ctx;
    unsigned debug; /* 0, or CF_DEBUG_* (testing only) */
} cf_inject_spec;

/* Bytes of code a trivial method has at most (the rest of the rule: cf_method_trivial). */
#define CF_TRIVIAL_MAX_CODE 32u

/* Testing knobs for cf_inject_spec.debug: exercise the rare paths on ordinary code. */
#define CF_DEBUG_WIDEN_ALL 1u /* widen every 16-bit branch as if it no longer fit */
#define CF_DEBUG_NO_ISLANDS \
    2u /* never use trampoline islands: always invert the branch
                                  (inferring the frame after it when there is a StackMapTable) */

/* What happened to one method. */
enum {
    CF_M_INSTRUMENTED = 0, /* code was injected */
    CF_M_NO_CODE,          /* abstract or native */
    CF_M_FILTERED,         /* the filter returned 0, the class is the tracker itself, or
                              the method is an empty finalize()V */
    CF_M_NOTHING,          /* nothing to inject (e.g. only newarray asked and none there) */
    CF_M_TOO_BIG,          /* the new code would pass 65535 bytes: left as it was */
    CF_M_UNREWRITABLE      /* could not be rewritten safely (e.g. no room to widen a branch,
                              max_stack overflow): left as it was */
};

typedef struct {
    char *name, *desc; /* NUL-terminated, modified UTF-8 as in the class file */
    unsigned access;
    unsigned status; /* CF_M_* */
} cf_method_info;

typedef struct {
    uint8_t *data; /* the new class file (malloc'd) when CF_OK, else NULL */
    size_t len;
    char *class_name;      /* internal name; set whenever the class parsed */
    unsigned method_count; /* methods[mnum] in class-file order: mnum is the index */
    cf_method_info *methods;
    /* per-status counts over methods[] */
    unsigned instrumented, no_code, filtered, nothing, too_big, unrewritable;
    /* sites */
    unsigned entry_sites, leaf_sites, return_sites, newarray_sites, objinit_sites, clone_sites;
    unsigned exc_exits;        /* catch-all handlers added */
    unsigned exc_exit_skipped; /* methods where it was asked but unsafe (odd constructors) */
    unsigned widened;          /* branches widened (goto_w, inverted, trampolines) */
    /* one entry per hooked allocation site, in class-file order, with its new_bci and
       number; the type strings are owned by the result */
    cf_site_info *sites;
    unsigned site_count;
} cf_result;

/* Instruments a class. res is always initialised; release it with cf_result_free.
 * Returns CF_OK (res->data/len hold the new class), CF_UNCHANGED (nothing injected; the
 * methods list is still filled) or a negative error (res holds no data; the caller keeps
 * the original class). Never instrumented: the tracker class itself, empty finalize()V
 * methods. */
int cf_instrument(const uint8_t *buf, size_t len, const cf_inject_spec *spec, cf_result *res);
void cf_result_free(cf_result *res);

/* ---- A small class-file assembler, for tests and tools ------------------------------ */

typedef struct cf_asm cf_asm;

cf_asm *cfa_new(unsigned major, unsigned minor, unsigned access, const char *this_name, const char *super_name);
void cfa_free(cf_asm *a);
/* Constant-pool entries (always appended, no sharing); return the index, 0 on failure. */
unsigned cfa_utf8(cf_asm *a, const char *s);
unsigned cfa_class(cf_asm *a, const char *name);
unsigned cfa_string(cf_asm *a, const char *s);
unsigned cfa_int(cf_asm *a, int32_t v);
unsigned cfa_float_bits(cf_asm *a, uint32_t bits);
unsigned cfa_long(cf_asm *a, int64_t v);
unsigned cfa_double_bits(cf_asm *a, uint64_t bits);
unsigned cfa_nat(cf_asm *a, const char *name, const char *desc);
unsigned cfa_fieldref(cf_asm *a, const char *cls, const char *name, const char *desc);
unsigned cfa_methodref(cf_asm *a, const char *cls, const char *name, const char *desc);
unsigned cfa_imethodref(cf_asm *a, const char *cls, const char *name, const char *desc);
unsigned cfa_method_handle(cf_asm *a, unsigned kind, unsigned ref_index);
unsigned cfa_method_type(cf_asm *a, const char *desc);
unsigned cfa_dynamic(cf_asm *a, unsigned tag /* 17 or 18 */, unsigned bsm, const char *name, const char *desc);
unsigned cfa_module(cf_asm *a, const char *name);
unsigned cfa_package(cf_asm *a, const char *name);
/* Appends a raw attribute (name + body) to a byte buffer that cfa_field/cfa_method take. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    unsigned count;
} cfa_attrs;
void cfa_attr(cf_asm *a, cfa_attrs *list, const char *name, const void *body, size_t len);
void cfa_attrs_free(cfa_attrs *list);
/* Adds a Code attribute to list: exc is n_exc entries of 4 u16 (start, end, handler, type). */
void cfa_code(cf_asm *a, cfa_attrs *list, unsigned max_stack, unsigned max_locals, const uint8_t *code, size_t code_len,
              const uint16_t *exc, unsigned n_exc, const cfa_attrs *code_attrs);
void cfa_field(cf_asm *a, unsigned access, const char *name, const char *desc, const cfa_attrs *attrs);
void cfa_method(cf_asm *a, unsigned access, const char *name, const char *desc, const cfa_attrs *attrs);
void cfa_class_attrs(cf_asm *a, const cfa_attrs *attrs);
/* Produces the class file (malloc'd). Returns 0, or -1 when something overflowed. */
int cfa_finish(cf_asm *a, uint8_t **out, size_t *out_len);

#endif
