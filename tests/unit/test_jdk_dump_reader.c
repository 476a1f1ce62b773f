/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the reader of the JDK's own heap dumps (sources/heapdump/jdk_dump_reader.c) on a
 * made-up HotSpot dump: IDs renamed, fields put in hprof's order, the marker and the
 * agent's hidden objects left out, thread serials mapped, missing Class objects written,
 * and every cut or corrupted file refused or read without a crash.
 * Set JDR_TEST_DUMP=FILE to save the made-up dump there (a fuzz seed).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/heapdump/jdk_dump_reader.h"
#include "tables/classes.h"
#include "tables/ids.h"
#include "unit.h"
#include "util/buf.h"
#include "util/hprof_format.h"

/* ---- building a dump ---- */

static void record(struct buf *o, unsigned tag, const struct buf *body)
{
    buf_u1(o, tag);
    buf_u4(o, 0);
    buf_u4(o, (uint32_t)body->len);
    buf_put(o, body->data, body->len);
}

static void string_rec(struct buf *o, uint64_t id, const char *s)
{
    struct buf b = {0};
    buf_u8(&b, id);
    buf_put(&b, s, strlen(s));
    record(o, TAG_STRING, &b);
    buf_free(&b);
}

static void load_class(struct buf *o, uint32_t serial, uint64_t id, uint64_t name)
{
    struct buf b = {0};
    buf_u4(&b, serial);
    buf_u8(&b, id);
    buf_u4(&b, 1);
    buf_u8(&b, name);
    record(o, TAG_LOAD_CLASS, &b);
    buf_free(&b);
}

/* Names (STRING IDs) */
enum { S_OBJECT = 1, S_FOO, S_CLASS, S_INTS, S_OBJS, S_LONGS, S_X, S_Y, S_ST, S_RR, S_CODE, S_BAR };
/* Objects: classes at 0x10000.., objects at 0x20000.. (all in one 1 MiB chunk), and one
 * object in another chunk. */
#define C_OBJECT  0x10000
#define C_FOO     0x10010
#define C_CLASS   0x10020
#define C_INTS    0x10030
#define C_OBJS    0x10040
#define C_LONGS   0x10050
#define C_BAR     0x10060 /* a class hprof cannot name (unloaded while the JVM dumped) */
#define O_FOO     0x20000
#define O_INTS    0x20100
#define O_MARKER  0x20200
#define O_NONCE   0x20300
#define O_ARR     0x20400
#define O_THREAD  0x20500
#define O_HIDDEN  0x20600
#define O_MISSING 0x20700  /* referred to, never dumped: a Class object HotSpot leaves out */
#define O_FAR     0x300000 /* in the fourth chunk */
#define O_BAR     0x20900  /* an instance of C_BAR */
#define O_BAD     0x20a00  /* an instance whose values do not fit its class */
#define O_ARR2    0x20b00  /* refers to those */
static const uint64_t NONCE[2] = {0x1122334455667788ull, 0x99AABBCCDDEEFF00ull};

static void class_dump(struct buf *s, uint64_t id, uint64_t super, int with_fields)
{
    buf_u1(s, HD_CLASS_DUMP);
    buf_u8(s, id);
    buf_u4(s, 1);
    buf_u8(s, super);
    buf_u8(s, 0x20000 + 0x800); /* loader: the far-chunk-free object below */
    for (int i = 0; i < 4; i++) buf_u8(s, 0);
    buf_u4(s, with_fields ? 12 : 0);
    buf_u2(s, 0); /* constant pool */
    if (with_fields) {
        /* statics the other way round from hprof's order, plus one JVMTI does not list */
        buf_u2(s, 3);
        buf_u8(s, S_RR);
        buf_u1(s, HD_OBJECT);
        buf_u8(s, O_INTS);
        buf_u8(s, S_CODE);
        buf_u1(s, HD_SHORT);
        buf_u2(s, 0x1234);
        buf_u8(s, S_ST);
        buf_u1(s, HD_INT);
        buf_u4(s, 7);
        /* instance fields: y (object) before x (int), as JDK 17 lists them */
        buf_u2(s, 2);
        buf_u8(s, S_Y);
        buf_u1(s, HD_OBJECT);
        buf_u8(s, S_X);
        buf_u1(s, HD_INT);
    } else {
        buf_u2(s, 0);
        buf_u2(s, 0);
    }
}

/* An instance of a class of no fields. */
static void instance0(struct buf *s, uint64_t id, uint64_t cls)
{
    buf_u1(s, HD_INSTANCE_DUMP);
    buf_u8(s, id);
    buf_u4(s, 1);
    buf_u8(s, cls);
    buf_u4(s, 0);
}

static void instance(struct buf *s, uint64_t id, uint64_t cls, uint64_t y, uint32_t x)
{
    buf_u1(s, HD_INSTANCE_DUMP);
    buf_u8(s, id);
    buf_u4(s, 1);
    buf_u8(s, cls);
    buf_u4(s, 12);
    buf_u8(s, y);
    buf_u4(s, x);
}

static void obj_array(struct buf *s, uint64_t id, uint64_t cls, const uint64_t *e, uint32_t n)
{
    buf_u1(s, HD_OBJ_ARRAY_DUMP);
    buf_u8(s, id);
    buf_u4(s, 1);
    buf_u4(s, n);
    buf_u8(s, cls);
    for (uint32_t i = 0; i < n; i++) buf_u8(s, e[i]);
}

/* Big arrays after the rest, for the test of freeing the file behind the reader. */
#define BIG_BYTES (24u << 20)
#define O_BIG     0x100000000ull
static uint32_t BIG_ARRAYS;

static struct buf make_dump(void)
{
    struct buf o = {0}, s = {0};
    buf_put(&o, "JAVA PROFILE 1.0.2", 19);
    buf_u4(&o, 8);
    buf_u8(&o, 0);
    const char *names[] = {"",
                           "java/lang/Object",
                           "Foo",
                           "java/lang/Class",
                           "[I",
                           "[Ljava/lang/Object;",
                           "[J",
                           "x",
                           "y",
                           "st",
                           "<resolved_references>",
                           "code",
                           "Bar"};
    for (unsigned i = 1; i < sizeof names / sizeof names[0]; i++) string_rec(&o, i, names[i]);
    load_class(&o, 1, C_OBJECT, S_OBJECT);
    load_class(&o, 2, C_FOO, S_FOO);
    load_class(&o, 3, C_CLASS, S_CLASS);
    load_class(&o, 4, C_INTS, S_INTS);
    load_class(&o, 5, C_OBJS, S_OBJS);
    load_class(&o, 6, C_LONGS, S_LONGS);
    load_class(&o, 7, C_BAR, S_BAR);

    class_dump(&s, C_OBJECT, 0, 0);
    class_dump(&s, C_FOO, C_OBJECT, 1);
    class_dump(&s, C_CLASS, C_OBJECT, 0);
    class_dump(&s, C_BAR, C_OBJECT, 0);
    /* roots: the marker's JNI global (left out), a thread and its frame, a hidden object's local */
    buf_u1(&s, HD_ROOT_JNI_GLOBAL);
    buf_u8(&s, O_MARKER);
    buf_u8(&s, 0x777);
    buf_u1(&s, HD_ROOT_THREAD_OBJECT);
    buf_u8(&s, O_THREAD);
    buf_u4(&s, 5);
    buf_u4(&s, 9);
    buf_u1(&s, HD_ROOT_JAVA_FRAME);
    buf_u8(&s, O_FOO);
    buf_u4(&s, 5);
    buf_u4(&s, 2);
    buf_u1(&s, HD_ROOT_JNI_LOCAL);
    buf_u8(&s, O_HIDDEN);
    buf_u4(&s, 5);
    buf_u4(&s, 0);
    instance(&s, O_FOO, C_FOO, O_INTS, 42);
    instance0(&s, O_THREAD, C_OBJECT);
    instance(&s, O_BAD, C_OBJECT, 0, 0); /* wrong size for Object: left out */
    instance0(&s, O_BAR, C_BAR);         /* of a class not set: left out */
    uint64_t arr2[4] = {O_BAR, C_BAR, O_BAD, O_FOO};
    obj_array(&s, O_ARR2, C_OBJS, arr2, 4);
    buf_u1(&s, HD_PRIM_ARRAY_DUMP);
    buf_u8(&s, O_INTS);
    buf_u4(&s, 1);
    buf_u4(&s, 2);
    buf_u1(&s, HD_INT);
    buf_u4(&s, 1);
    buf_u4(&s, 2);
    uint64_t marker[5] = {O_NONCE, C_FOO, C_CLASS, O_THREAD, O_HIDDEN};
    obj_array(&s, O_MARKER, C_OBJS, marker, 5);
    buf_u1(&s, HD_PRIM_ARRAY_DUMP);
    buf_u8(&s, O_NONCE);
    buf_u4(&s, 1);
    buf_u4(&s, 4);
    buf_u1(&s, HD_LONG);
    buf_u8(&s, NONCE[0]);
    buf_u8(&s, NONCE[1]);
    buf_u8(&s, 2);
    buf_u8(&s, 1);
    uint64_t arr[4] = {O_FOO, 0, O_MISSING, O_FAR};
    obj_array(&s, O_ARR, C_OBJS, arr, 4);
    buf_u1(&s, HD_PRIM_ARRAY_DUMP);
    buf_u8(&s, O_HIDDEN);
    buf_u4(&s, 1);
    buf_u4(&s, 0);
    buf_u1(&s, HD_BYTE);
    buf_u1(&s, HD_PRIM_ARRAY_DUMP);
    buf_u8(&s, O_FAR);
    buf_u4(&s, 1);
    buf_u4(&s, 1);
    buf_u1(&s, HD_LONG);
    buf_u8(&s, 5);
    buf_u1(&s, HD_PRIM_ARRAY_DUMP);
    buf_u8(&s, 0x20800);
    buf_u4(&s, 1);
    buf_u4(&s, 0);
    buf_u1(&s, HD_BYTE); /* the "loader" */
    record(&o, TAG_HEAP_DUMP_SEGMENT, &s);
    for (uint32_t i = 0; i < BIG_ARRAYS; i++) { /* byte[BIG_BYTES], byte k = k * (i + 1) */
        struct buf g = {0};
        buf_u1(&g, HD_PRIM_ARRAY_DUMP);
        buf_u8(&g, O_BIG + (uint64_t)i * BIG_BYTES * 2);
        buf_u4(&g, 1);
        buf_u4(&g, BIG_BYTES);
        buf_u1(&g, HD_BYTE);
        for (uint32_t k = 0; k < BIG_BYTES; k++) buf_u1(&g, (uint8_t)(k * (i + 1)));
        record(&o, TAG_HEAP_DUMP_SEGMENT, &g);
        buf_free(&g);
    }
    struct buf e = {0};
    record(&o, TAG_HEAP_DUMP_END, &e);
    buf_free(&s);
    return o;
}

/* ---- a writer that notes what it is given ---- */

#define MAX_SEEN 64
struct seen {
    int nroots, ninst, nobj, nprim, ncls, prepared, ended;
    struct hd_root_info roots[MAX_SEEN];
    uint32_t inst_id[MAX_SEEN], inst_cls[MAX_SEEN];
    uint8_t inst_vals[MAX_SEEN][16];
    uint32_t obj_id[MAX_SEEN], obj_n[MAX_SEEN], obj_e[MAX_SEEN][8];
    uint32_t prim_id[MAX_SEEN];
    uint64_t byte_sum; /* of every byte array's bytes, each times its index */
    const struct hd_class *cls[MAX_SEEN];
};
static struct seen SEEN;

static void w_prepare(struct hd_session *s, struct hd_class *c, uint32_t n) { SEEN.prepared = 1; }
static void w_begin(struct hd_session *s, uint64_t no, uint64_t nb) {}
static void w_root(struct hd_session *s, const struct hd_root_info *r)
{
    if (SEEN.nroots < MAX_SEEN) SEEN.roots[SEEN.nroots++] = *r;
}
static void w_class(struct hd_session *s, const struct hd_class *c)
{
    if (SEEN.ncls < MAX_SEEN) SEEN.cls[SEEN.ncls++] = c;
}
static void w_inst(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                   const uint8_t *v)
{
    int i = SEEN.ninst++;
    if (i >= MAX_SEEN) return;
    SEEN.inst_id[i] = id;
    SEEN.inst_cls[i] = c->info->object_id;
    memcpy(SEEN.inst_vals[i], v, c->inst_bytes < 16 ? c->inst_bytes : 16);
}
static void w_obj(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                  uint32_t n, const uint32_t *e)
{
    int i = SEEN.nobj++;
    if (i >= MAX_SEEN) return;
    SEEN.obj_id[i] = id;
    SEEN.obj_n[i] = n;
    memcpy(SEEN.obj_e[i], e, (n < 8 ? n : 8) * sizeof *e);
}
static void w_prim(struct hd_session *s, uint32_t id, uint32_t trace, const struct hd_class *c, uint64_t size,
                   uint32_t n, int type, const uint8_t *e)
{
    if (SEEN.nprim < MAX_SEEN) SEEN.prim_id[SEEN.nprim] = id;
    SEEN.nprim++;
    for (uint32_t k = 0; type == HD_BYTE && k < n; k++) SEEN.byte_sum += (uint64_t)e[k] * k;
}
static void w_end(struct hd_session *s) { SEEN.ended = 1; }
static const struct heap_dump_writer NOTE = {w_prepare, w_begin, w_root, w_class, w_inst, w_obj, w_prim, w_end};

static struct class_info ci_object = {
    .serial = 100001, .object_id = 0x50000001, .signature = "Ljava/lang/Object;", .name = "java.lang.Object"};
static struct class_info ci_foo = {.serial = 100002, .object_id = 0x50000002, .signature = "LFoo;", .name = "Foo"};
static struct class_info ci_class = {
    .serial = 100003, .object_id = 0x50000003, .signature = "Ljava/lang/Class;", .name = "java.lang.Class"};
static struct class_info ci_ints = {.serial = 100004, .object_id = 0x50000004, .signature = "[I", .name = "int[]"};
static struct class_info ci_objs = {
    .serial = 100005, .object_id = 0x50000005, .signature = "[Ljava/lang/Object;", .name = "java.lang.Object[]"};

#define BASE 0x50001000u

static void test_rewrite(void)
{
    struct buf d = make_dump();
    const char *why = NULL;
    struct jdr *r = jdr_open(d.data, d.len, false, NONCE, 5, &why);
    CHECK(r != NULL, "jdk dump reader: a well-formed dump is read (%s)", why ? why : "");
    if (!r) return;
    CHECK(jdr_marker_element(r, 1) == C_FOO && jdr_marker_element(r, 4) == O_HIDDEN,
          "jdk dump reader: the marker is found by its nonce, its elements read");
    CHECK(jdr_ids_needed(r) == 2u << 17, "jdk dump reader: two chunks used, 2^17 IDs each");
    static const char *inst_order[] = {"x", "y"}, *stat_order[] = {"st", "code"};
    struct jdr_order foo_order = {inst_order, 2, stat_order, 2};
    for (uint32_t k = 0; k < jdr_class_count(r); k++) {
        const char *n = jdr_class_name(r, k);
        struct class_info *ci = !strcmp(n, "java/lang/Object") ? &ci_object
            : !strcmp(n, "Foo")                                ? &ci_foo
            : !strcmp(n, "java/lang/Class")                    ? &ci_class
            : !strcmp(n, "[I")                                 ? &ci_ints
            : !strcmp(n, "[Ljava/lang/Object;")                ? &ci_objs
                                                               : NULL;
        if (ci) jdr_set_class(r, k, ci, ci == &ci_foo ? &foo_order : NULL); /* [J stays unknown */
    }
    jdr_set_thread(r, O_THREAD, 0x50000010, 200001);
    jdr_hide(r, O_HIDDEN);
    memset(&SEEN, 0, sizeof SEEN);
    uint64_t mon = O_FOO;
    uint64_t left = jdr_write(r, &NOTE, NULL, BASE, &mon, 1);
    uint32_t foo_id = BASE + (O_FOO >> 3), ints_id = BASE + (O_INTS >> 3);
    uint32_t far_id = BASE + (1u << 17) + ((O_FAR & 0xFFFFF) >> 3), missing_id = BASE + (O_MISSING >> 3);

    CHECK(SEEN.prepared && SEEN.ended, "jdk dump reader: prepare ... end");
    CHECK(SEEN.ninst == 3 && SEEN.inst_id[0] == foo_id && SEEN.inst_cls[0] == ci_foo.object_id,
          "jdk dump reader: the instance with its ID from its address and its class's hprof ID (%d)", SEEN.ninst);
    CHECK(SEEN.inst_id[1] == 0x50000010 && SEEN.inst_cls[1] == ci_object.object_id,
          "jdk dump reader: the thread's object is written with hprof's ID for it");
    CHECK(be_load_u4(SEEN.inst_vals[0]) == 42 && be_load_u4(SEEN.inst_vals[0] + 4) == ints_id,
          "jdk dump reader: instance fields in hprof's order (x then y), references 4 bytes");
    CHECK(SEEN.inst_id[2] == missing_id && SEEN.inst_cls[2] == ci_class.object_id,
          "jdk dump reader: an object referred to and not dumped is written as a Class object");
    CHECK(left == 2,
          "jdk dump reader: an instance whose size does not fit its class, and one of a class "
          "not set, are left out (%llu)",
          (unsigned long long)left);
    CHECK(SEEN.nobj == 2 && SEEN.obj_id[0] == BASE + (O_ARR2 >> 3) && SEEN.obj_n[0] == 4 && SEEN.obj_e[0][0] == 0 &&
              SEEN.obj_e[0][1] == 0 && SEEN.obj_e[0][2] == 0 && SEEN.obj_e[0][3] == foo_id,
          "jdk dump reader: a reference to an object left out, or to a class not set, reads as null (no "
          "reference to an object the file does not hold)");
    CHECK(SEEN.nobj == 2 && SEEN.obj_id[1] == BASE + (O_ARR >> 3) && SEEN.obj_n[1] == 4 && SEEN.obj_e[1][0] == foo_id &&
              SEEN.obj_e[1][1] == 0 && SEEN.obj_e[1][2] == missing_id && SEEN.obj_e[1][3] == far_id,
          "jdk dump reader: the marker is left out; an object array's elements renamed (null stays 0)");
    CHECK(SEEN.nprim == 3 && SEEN.prim_id[0] == ints_id && SEEN.prim_id[1] == far_id,
          "jdk dump reader: primitive arrays written, the nonce and the hidden array left out");
    int thread = -1, frame = -1, monitor = -1, other = 0;
    for (int i = 0; i < SEEN.nroots; i++) {
        const struct hd_root_info *ri = &SEEN.roots[i];
        if (ri->kind == HD_ROOT_THREAD_OBJECT)
            thread = i;
        else if (ri->kind == HD_ROOT_JAVA_FRAME)
            frame = i;
        else if (ri->kind == HD_ROOT_MONITOR_USED)
            monitor = i;
        else if (ri->kind != HD_ROOT_THREAD_BLOCK)
            other++;
    }
    CHECK(thread >= 0 && SEEN.roots[thread].id == 0x50000010 && SEEN.roots[thread].thread_serial == 200001 &&
              SEEN.roots[thread].trace_serial == SERIAL_TRACE_BASE,
          "jdk dump reader: the thread root names hprof's thread object and serial");
    CHECK(frame >= 0 && SEEN.roots[frame].id == foo_id && SEEN.roots[frame].thread_serial == 200001 &&
              SEEN.roots[frame].frame == 2,
          "jdk dump reader: Java frame root with the thread's serial and depth");
    CHECK(monitor == 0 && SEEN.roots[0].id == foo_id, "jdk dump reader: monitor roots first");
    CHECK(other == 0, "jdk dump reader: the marker's JNI global and the hidden object's JNI local are left out");
    const struct hd_class *foo = NULL;
    for (int i = 0; i < SEEN.ncls; i++)
        if (SEEN.cls[i]->info == &ci_foo) foo = SEEN.cls[i];
    CHECK(SEEN.ncls == 5 && foo, "jdk dump reader: a CLASS DUMP for each class set (%d)", SEEN.ncls);
    if (foo) {
        CHECK(foo->nfields == 2 && !strcmp(foo->fields[0].name, "x") && foo->fields[0].type == HD_INT &&
                  !strcmp(foo->fields[1].name, "y") && foo->inst_bytes == 8 && foo->super &&
                  foo->super->info == &ci_object,
              "jdk dump reader: class fields in hprof's order, 4-byte references, super");
        CHECK(foo->nstatics == 3 && !strcmp(foo->statics[0].name, "st") && !strcmp(foo->statics[1].name, "code") &&
                  !strcmp(foo->statics[2].name, "<resolved_references>") && be_load_u4(foo->static_values) == 7 &&
                  foo->static_values[4] == 0x12 && foo->static_values[5] == 0x34 &&
                  be_load_u4(foo->static_values + 6) == ints_id,
              "jdk dump reader: statics in JVMTI's order, then the dump's own, with values");
        CHECK(foo->loader_id == BASE + (0x20800 >> 3), "jdk dump reader: the loader's ID");
    }
    jdr_close(r);
    buf_free(&d);
}

/* Every cut of the file, and every single byte changed, is refused or read whole. */
static void test_bad_input(void)
{
    struct buf d = make_dump();
    int crashed_never = 1, refused = 0;
    for (size_t n = 0; n < d.len; n++) {
        const char *why = NULL;
        uint8_t *copy = malloc(n + 1);
        memcpy(copy, d.data, n);
        struct jdr *r = jdr_open(copy, n, false, NONCE, 5, &why);
        if (!r)
            refused++;
        else {
            memset(&SEEN, 0, sizeof SEEN);
            jdr_write(r, &NOTE, NULL, BASE, NULL, 0);
        }
        jdr_close(r);
        free(copy);
    }
    CHECK(crashed_never && refused > 0, "jdk dump reader: %zu cut files read or refused (%d refused)", d.len, refused);
    int done = 0;
    for (size_t i = 0; i < d.len; i++) {
        for (unsigned v = 0; v < 256; v += 51) {
            uint8_t *copy = malloc(d.len);
            memcpy(copy, d.data, d.len);
            copy[i] ^= (uint8_t)(v | 1);
            const char *why = NULL;
            struct jdr *r = jdr_open(copy, d.len, false, NONCE, 5, &why);
            if (r) {
                for (uint32_t k = 0; k < jdr_class_count(r); k++)
                    if (jdr_class_name(r, k) && !strcmp(jdr_class_name(r, k), "Foo"))
                        jdr_set_class(r, k, &ci_foo, NULL);
                memset(&SEEN, 0, sizeof SEEN);
                jdr_write(r, &NOTE, NULL, BASE, NULL, 0);
            }
            jdr_close(r);
            free(copy);
            done++;
        }
    }
    CHECK(done > 0, "jdk dump reader: %d corrupted files read or refused without a crash", done);
    buf_free(&d);
}

static void set_classes(struct jdr *r)
{
    for (uint32_t k = 0; k < jdr_class_count(r); k++) {
        const char *n = jdr_class_name(r, k);
        struct class_info *ci = !strcmp(n, "java/lang/Object") ? &ci_object
            : !strcmp(n, "Foo")                                ? &ci_foo
            : !strcmp(n, "java/lang/Class")                    ? &ci_class
            : !strcmp(n, "[I")                                 ? &ci_ints
            : !strcmp(n, "[Ljava/lang/Object;")                ? &ci_objs
                                                               : NULL;
        if (ci) jdr_set_class(r, k, ci, NULL);
    }
}

/*
 * A mapped file whose blocks the writing pass frees behind it (jdr_discard_behind): what
 * it writes is still every byte of the file, and the file's blocks are gone afterwards.
 */
static void test_discard(void)
{
    BIG_ARRAYS = 4;
    struct buf d = make_dump();
    BIG_ARRAYS = 0;
    char path[] = "/tmp/hprof-jdr-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return;
    unlink(path);
    bool wrote = write(fd, d.data, d.len) == (ssize_t)d.len;
    uint8_t *map = wrote ? mmap(NULL, d.len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    size_t len = d.len;
    buf_free(&d);
    if (map == MAP_FAILED) {
        close(fd);
        return;
    }
    const char *why = NULL;
    struct jdr *r = jdr_open(map, len, true, NONCE, 5, &why);
    struct stat before, after;
    fstat(fd, &before);
    if (r) {
        set_classes(r);
        jdr_hide(r, O_HIDDEN);
        jdr_discard_behind(r, fd);
        memset(&SEEN, 0, sizeof SEEN);
        jdr_write(r, &NOTE, NULL, BASE, NULL, 0);
        jdr_close(r);
    }
    fstat(fd, &after);
    uint64_t want = 0;
    for (uint64_t i = 0; i < 4; i++)
        for (uint64_t k = 0; k < BIG_BYTES; k++) want += (uint64_t)(uint8_t)(k * (i + 1)) * k;
    CHECK(r && SEEN.nprim == 3 + 4 && SEEN.byte_sum == want,
          "jdk dump reader: with the file freed behind it, every array is written whole");
    CHECK(before.st_blocks * 512 >= (off_t)len - 4096 && after.st_blocks * 512 < (off_t)len / 2,
          "jdk dump reader: the file's blocks are freed as it goes (%lld KiB of %zu KiB left)",
          (long long)after.st_blocks / 2, len / 1024);
    munmap(map, len);
    close(fd);
}

int main(void)
{
    const char *save = getenv("JDR_TEST_DUMP");
    if (save) {
        struct buf d = make_dump();
        FILE *f = fopen(save, "wb");
        if (f) {
            fwrite(d.data, 1, d.len, f);
            fclose(f);
        }
        buf_free(&d);
    }
    test_rewrite();
    test_discard();
    test_bad_input();
    return UNIT_DONE();
}
