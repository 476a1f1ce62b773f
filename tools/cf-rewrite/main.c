/* SPDX-License-Identifier: Apache-2.0 */
/* cf-rewrite: drives src/classfile over class files, for tests and by hand.
 *
 *   cf-rewrite [opts] IN.class OUT.class   instrument one class (OUT gets a copy if unchanged)
 *   cf-rewrite [opts] -r INDIR [OUTDIR]    every *.class under INDIR; without OUTDIR nothing
 *                                          is written (rewrite + re-parse in memory only)
 *   cf-rewrite --check PATH...             deep-parse and round-trip files or trees
 *   cf-rewrite --emit-jsr DIR              writes cfjsr/Jsr.class and cfjsr/Old.class,
 *                                          hand-assembled version-49 and 45.0 classes with
 *                                          jsr/ret, wide, a switch
 * Options:
 *   -t CLASS        tracker class (default hprof/Tracker)
 *   --hooks LIST    comma list of entry,return,objinit,newarray,exc (default all), and sites:
 *                   the allocation-site hooks NewSite, ArraySite, MultiSite and AllocInst
 *                   (after the JDK natives whose result the VM made, and Object.clone's
 *                   calls), numbered from 0 across the run
 *   --cnum N        class number (default 1; with -r each class gets the next number)
 *   --skip NAMES    comma list of method names left alone (e.g. "<clinit>")
 *   --widen-all     (testing) widen every 16-bit branch as if it no longer fit
 *   --no-islands    (testing) never use trampoline islands, always invert branches
 *   -v              list every failure and skipped method
 * Prints a summary line "key=value ..." at the end; exits 1 on any error or mismatch.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classfile/classfile.h"

static cf_inject_spec spec;
static const char *skip_list; /* comma-separated method names never instrumented */

static unsigned skip_filter(void *ctx, const char *cls, const char *name, const char *desc, unsigned access,
                            unsigned mnum)
{
    (void)ctx;
    (void)cls;
    (void)desc;
    (void)access;
    (void)mnum;
    size_t n = strlen(name);
    for (const char *p = skip_list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && memcmp(p, name, n) == 0) return 0;
        p = e ? e + 1 : p + k;
    }
    return CF_INJ_ALL;
}
static const char *in_root, *out_root;
static int verbose, check_mode;
static unsigned long n_files, n_parsed, n_rewritten, n_unchanged, n_errors, n_version, n_reparse_fail, n_roundtrip_fail,
    m_instr, m_too_big, m_unrewritable, m_filtered, m_nocode, m_nothing, s_exc, s_exc_skipped, s_widened, s_ret, s_new,
    s_entry, s_objinit, s_sites;

static int read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    for (;;) {
        if (!p) {
            fclose(f);
            return -1;
        }
        size_t k = fread(p + n, 1, cap - n, f);
        n += k;
        if (n < cap) break;
        cap *= 2;
        uint8_t *q = realloc(p, cap);
        if (!q) {
            free(p);
            fclose(f);
            return -1;
        }
        p = q;
    }
    fclose(f);
    *data = p;
    *len = n;
    return 0;
}

static int mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof(buf)) return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (buf[i] == '/') {
            buf[i] = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            buf[i] = '/';
        }
    }
    return 0;
}

static int write_file(const char *path, const uint8_t *data, size_t len)
{
    if (mkdirs(path) != 0) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t k = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && k == len) ? 0 : -1;
}

/* Deep parse + byte-identical round trip. */
static int check_bytes(const char *name, const uint8_t *data, size_t len)
{
    cf_class *c = NULL;
    int rc = cf_parse(data, len, CF_PARSE_DEEP, &c);
    if (rc != CF_OK) {
        if (verbose) fprintf(stderr, "parse %s: %s\n", name, cf_strerror(rc));
        return rc;
    }
    uint8_t *out = NULL;
    size_t olen = 0;
    rc = cf_write(c, &out, &olen);
    cf_free(c);
    if (rc != CF_OK || olen != len || memcmp(out, data, len) != 0) {
        if (verbose) fprintf(stderr, "roundtrip %s: differs\n", name);
        free(out);
        return 100;
    }
    free(out);
    return CF_OK;
}

static void do_class(const char *path, const char *out_path)
{
    uint8_t *data;
    size_t len;
    n_files++;
    if (read_file(path, &data, &len) != 0) {
        n_errors++;
        fprintf(stderr, "cannot read %s\n", path);
        return;
    }
    if (check_mode) {
        int rc = check_bytes(path, data, len);
        if (rc == CF_OK)
            n_parsed++;
        else if (rc == 100)
            n_roundtrip_fail++;
        else if (rc == CF_ERR_VERSION)
            n_version++;
        else
            n_errors++;
        free(data);
        return;
    }
    int rc0 = check_bytes(path, data, len);
    if (rc0 == 100) n_roundtrip_fail++;
    cf_result res;
    int rc = cf_instrument(data, len, &spec, &res);
    if (rc < 0) {
        if (rc == CF_ERR_VERSION)
            n_version++;
        else
            n_errors++;
        if (verbose || rc != CF_ERR_VERSION) fprintf(stderr, "instrument %s: %s\n", path, cf_strerror(rc));
    } else {
        n_parsed++;
        m_instr += res.instrumented;
        m_too_big += res.too_big;
        m_unrewritable += res.unrewritable;
        m_filtered += res.filtered;
        m_nocode += res.no_code;
        m_nothing += res.nothing;
        s_exc += res.exc_exits;
        s_exc_skipped += res.exc_exit_skipped;
        s_widened += res.widened;
        s_ret += res.return_sites;
        s_new += res.newarray_sites;
        s_entry += res.entry_sites;
        s_objinit += res.objinit_sites;
        s_sites += res.site_count;
        if (verbose)
            for (unsigned i = 0; i < res.method_count; i++)
                if (res.methods[i].status == CF_M_TOO_BIG || res.methods[i].status == CF_M_UNREWRITABLE)
                    fprintf(stderr, "skipped %s.%s%s: %s\n", res.class_name, res.methods[i].name, res.methods[i].desc,
                            res.methods[i].status == CF_M_TOO_BIG ? "too big" : "unrewritable");
        if (rc == CF_OK) {
            n_rewritten++;
            cf_class *c = NULL;
            int r2 = cf_parse(res.data, res.len, CF_PARSE_DEEP, &c);
            if (r2 != CF_OK) {
                n_reparse_fail++;
                fprintf(stderr, "reparse %s: %s\n", path, cf_strerror(r2));
            }
            cf_free(c);
        } else {
            n_unchanged++;
        }
        if (out_path) {
            const uint8_t *w = rc == CF_OK ? res.data : data;
            size_t wl = rc == CF_OK ? res.len : len;
            if (write_file(out_path, w, wl) != 0) {
                n_errors++;
                fprintf(stderr, "cannot write %s\n", out_path);
            }
        }
    }
    if (!out_path || rc < 0) { /* still copy failed classes so the tree stays complete */
        if (out_path && rc < 0) write_file(out_path, data, len);
    }
    cf_result_free(&res);
    free(data);
    if (in_root) spec.cnum++;
}

static int walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F) return 0;
    size_t n = strlen(path);
    if (n < 6 || strcmp(path + n - 6, ".class") != 0) return 0;
    if (out_root) {
        char out[4096];
        const char *rel = path + strlen(in_root);
        if ((size_t)snprintf(out, sizeof(out), "%s%s", out_root, rel) >= sizeof(out)) return 0;
        do_class(path, out);
    } else {
        do_class(path, NULL);
    }
    return 0;
}

static void summary(void)
{
    printf("files=%lu parsed=%lu rewritten=%lu unchanged=%lu errors=%lu version_skipped=%lu "
           "reparse_fail=%lu roundtrip_fail=%lu methods_instrumented=%lu methods_too_big=%lu "
           "methods_unrewritable=%lu methods_filtered=%lu methods_no_code=%lu methods_nothing=%lu "
           "entry_sites=%lu return_sites=%lu newarray_sites=%lu objinit_sites=%lu exc_exits=%lu "
           "exc_exit_skipped=%lu widened=%lu alloc_sites=%lu\n",
           n_files, n_parsed, n_rewritten, n_unchanged, n_errors, n_version, n_reparse_fail, n_roundtrip_fail, m_instr,
           m_too_big, m_unrewritable, m_filtered, m_nocode, m_nothing, s_entry, s_ret, s_new, s_objinit, s_exc,
           s_exc_skipped, s_widened, s_sites);
}

/* ---- The hand-assembled jsr/ret class ------------------------------------------------- */

/* The class: main() counts with a jsr subroutine in a loop (5) and a try/finally of the
 * old javac kind (+100, +1), keeps the count in wide local `slot`, prints it, then prints
 * what a tableswitch makes of the length of a new int[3]: "106" and "42". */
static int emit_one(const char *dir, const char *name, unsigned major, unsigned minor, unsigned slot)
{
    cf_asm *a = cfa_new(major, minor, 0x21, name, "java/lang/Object");
    if (!a) return 1;
    unsigned out = cfa_fieldref(a, "java/lang/System", "out", "Ljava/io/PrintStream;");
    unsigned println = cfa_methodref(a, "java/io/PrintStream", "println", "(I)V");
    uint8_t code[120];
    static const uint8_t tmpl[120] = {
        /*  0 */ 0x03, 0x3c, 0x03, 0x3e,
        /*  4 */ 0x1d, 0x08, 0xa2, 0x00, 0x0c,       /* iload_3 iconst_5 if_icmpge 18 */
        /*  9 */ 0xa8, 0x00, 0x67,                   /* jsr 112 */
        /* 12 */ 0x84, 0x03, 0x01,                   /* iinc 3,1 */
        /* 15 */ 0xa7, 0xff, 0xf5,                   /* goto 4 */
        /* 18 */ 0xc4, 0x84, 0x00, 0x01, 0x00, 0x64, /* wide iinc 1,100 */
        /* 24 */ 0xa8, 0x00, 0x58,                   /* jsr 112 */
        /* 27 */ 0xa7, 0x00, 0x0e,                   /* goto 41 */
        /* 30 */ 0x3a, 0x04,                         /* astore 4 */
        /* 32 */ 0xa8, 0x00, 0x50,                   /* jsr 112 */
        /* 35 */ 0x19, 0x04, 0xbf,                   /* aload 4, athrow */
        /* 38 */ 0x00, 0x00, 0x00,
        /* 41 */ 0x1b, 0xc4, 0x36, 0x01, 0x2c, /* iload_1, wide istore 300 */
        /* 46 */ 0xb2, 0x00, 0x00,             /* getstatic out */
        /* 49 */ 0xc4, 0x15, 0x01, 0x2c,       /* wide iload 300 */
        /* 53 */ 0xb6, 0x00, 0x00,             /* invokevirtual println */
        /* 56 */ 0x06, 0xbc, 0x0a, 0xbe,       /* iconst_3 newarray int arraylength */
        /* 60 */ 0xaa, 0x00, 0x00, 0x00,       /* tableswitch, pad */
        /* 64 */ 0x00, 0x00, 0x00, 43,   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
        /* 76 */ 0x00, 0x00, 0x00, 43,   0x00, 0x00, 0x00, 43,   0x00, 0x00, 0x00, 43,   0x00, 0x00, 0x00, 32,
        /* 92 */ 0xb2, 0x00, 0x00, 0x10, 42,   0xb6, 0x00, 0x00, /* C3: print 42 */
        /*100 */ 0xa7, 0x00, 0x0b,                               /* goto 111 */
        /*103 */ 0xb2, 0x00, 0x00, 0x10, 7,    0xb6, 0x00, 0x00, /* D: print 7 */
        /*111 */ 0xb1,                                           /* return */
        /*112 */ 0x4d, 0x84, 0x01, 0x01,                         /* SUB: astore_2 iinc 1,1 */
        /*116 */ 0xc4, 0xa9, 0x00, 0x02,                         /* wide ret 2 */
    };
    memcpy(code, tmpl, sizeof(code));
    code[45] = code[52] = (uint8_t)slot; /* the wide local's index */
    code[44] = code[51] = (uint8_t)(slot >> 8);
    const unsigned fix_out[] = {47, 93, 104}, fix_println[] = {54, 98, 109};
    for (int i = 0; i < 3; i++) {
        code[fix_out[i]] = (uint8_t)(out >> 8);
        code[fix_out[i] + 1] = (uint8_t)out;
        code[fix_println[i]] = (uint8_t)(println >> 8);
        code[fix_println[i] + 1] = (uint8_t)println;
    }
    uint16_t exc[4] = {18, 24, 30, 0};
    cfa_attrs lnt = {0}, mattrs = {0}, ctor = {0};
    uint8_t lt[2 + 4 * 3] = {0, 3, 0, 0, 0, 1, 0, 41, 0, 2, 0, 112, 0, 3};
    cfa_attr(a, &lnt, "LineNumberTable", lt, sizeof(lt));
    cfa_code(a, &mattrs, 2, slot + 1, code, sizeof(code), exc, 1, &lnt);
    cfa_method(a, 0x09, "main", "([Ljava/lang/String;)V", &mattrs);
    unsigned sup = cfa_methodref(a, "java/lang/Object", "<init>", "()V");
    uint8_t ccode[5] = {0x2a, 0xb7, (uint8_t)(sup >> 8), (uint8_t)sup, 0xb1};
    cfa_code(a, &ctor, 1, 1, ccode, sizeof(ccode), NULL, 0, NULL);
    cfa_method(a, 0x01, "<init>", "()V", &ctor);
    uint8_t *bytes;
    size_t len;
    int rc = cfa_finish(a, &bytes, &len);
    cfa_attrs_free(&lnt);
    cfa_attrs_free(&mattrs);
    cfa_attrs_free(&ctor);
    cfa_free(a);
    if (rc != 0) return 1;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.class", dir, name);
    rc = write_file(path, bytes, len);
    free(bytes);
    return rc != 0;
}

/* cfjsr/Jsr (49.0, local 300) and cfjsr/Old (45.0: JDK 1.0.2 Code layout, local 200). */
static int emit_jsr(const char *dir)
{
    return emit_one(dir, "cfjsr/Jsr", 49, 0, 300) | emit_one(dir, "cfjsr/Old", 45, 0, 200);
}

/* --hooks sites: every allocation site gets the next numbers. */
static long next_site(void *ctx, const cf_site_info *site)
{
    long *next = ctx, v = *next;
    *next += site->dims;
    return v;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: cf-rewrite [-t TRACKER] [--hooks LIST] [--cnum N] [-v] IN OUT\n"
            "       cf-rewrite [opts] -r INDIR [OUTDIR]\n"
            "       cf-rewrite --check PATH...\n"
            "       cf-rewrite --emit-jsr DIR\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *tracker = "hprof/Tracker", *hooks = "entry,return,objinit,newarray,exc";
    int recursive = 0, i = 1;
    spec.cnum = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            tracker = argv[++i];
        else if (!strcmp(argv[i], "--hooks") && i + 1 < argc)
            hooks = argv[++i];
        else if (!strcmp(argv[i], "--cnum") && i + 1 < argc)
            spec.cnum = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--skip") && i + 1 < argc) {
            skip_list = argv[++i];
            spec.filter = skip_filter;
        } else if (!strcmp(argv[i], "--widen-all"))
            spec.debug |= CF_DEBUG_WIDEN_ALL;
        else if (!strcmp(argv[i], "--no-islands"))
            spec.debug |= CF_DEBUG_NO_ISLANDS;
        else if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "-r"))
            recursive = 1;
        else if (!strcmp(argv[i], "--check"))
            check_mode = 1;
        else if (!strcmp(argv[i], "--emit-jsr") && i + 1 < argc)
            return emit_jsr(argv[i + 1]);
        else
            usage();
    }
    spec.tracker_class = tracker;
    if (strstr(hooks, "entry")) {
        spec.entry_name = "CallSite";
        spec.entry_desc = "(II)V";
    }
    if (strstr(hooks, "return")) {
        spec.return_name = "ReturnSite";
        spec.return_desc = "(II)V";
    }
    if (strstr(hooks, "objinit")) {
        spec.objinit_name = "ObjectInit";
        spec.objinit_desc = "(Ljava/lang/Object;)V";
    }
    if (strstr(hooks, "newarray")) {
        spec.newarray_name = "NewArray";
        spec.newarray_desc = "(Ljava/lang/Object;)V";
    }
    spec.exception_exit = strstr(hooks, "exc") != NULL;
    static long site_next;
    if (strstr(hooks, "sites")) {
        spec.newsite_name = "NewSite";
        spec.arraysite_name = "ArraySite";
        spec.multisite_name = "MultiSite";
        spec.allocinst_name = "AllocInst";
        spec.site_fn = next_site;
        spec.site_ctx = &site_next;
    }

    if (check_mode) {
        if (i >= argc) usage();
        for (; i < argc; i++) {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                nftw(argv[i], walk_cb, 32, FTW_PHYS);
            else
                do_class(argv[i], NULL);
        }
    } else if (recursive) {
        if (i >= argc) usage();
        in_root = argv[i];
        out_root = i + 1 < argc ? argv[i + 1] : NULL;
        if (nftw(in_root, walk_cb, 32, FTW_PHYS) != 0) {
            perror(in_root);
            return 1;
        }
    } else {
        if (i + 2 != argc) usage();
        do_class(argv[i], argv[i + 1]);
    }
    summary();
    return (n_errors || n_reparse_fail || n_roundtrip_fail) ? 1 : 0;
}
