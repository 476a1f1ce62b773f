/* hprof-dump: reader, printer and validator of the HPROF binary format.
 * Shared declarations of the tool's small modules:
 *   table.c   growable arrays, u64 hash map, string builder
 *   reader.c  buffered streaming reader and bounded record bodies
 *   report.c  problem collection (errors, undefined references) and name printing
 *   records.c top-level records and the main loop
 *   heap.c    HEAP DUMP sub-records and the per-dump reference pass
 *   main.c    command line, summary
 */
#ifndef HD_H
#define HD_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

/* ---------------------------------------------------------------- table.c */

void *hd_xrealloc(void *p, size_t n);

/* Make room for one more element at index n of a growable array. */
#define HD_GROW(arr, n, cap)                                                  \
    do {                                                                      \
        if ((size_t)(n) >= (size_t)(cap)) {                                   \
            (cap) = (cap) ? (cap) * 2 : 64;                                   \
            (arr) = hd_xrealloc((arr), (size_t)(cap) * sizeof *(arr));        \
        }                                                                     \
    } while (0)

/* Open-addressing map from u64 keys to u64 values. */
typedef struct {
    uint64_t *keys, *vals;
    uint8_t *used;
    size_t cap, n;
} hd_map;

uint64_t *hd_map_get(const hd_map *m, uint64_t key);
/* Inserts key->val and returns 1; if key exists, leaves it and returns 0.
 * Either way *slot (if slot) points at the stored value. */
int hd_map_put(hd_map *m, uint64_t key, uint64_t val, uint64_t **slot);
void hd_map_free(hd_map *m);

/* String builder for output lines. */
typedef struct {
    char *p;
    size_t len, cap;
} hd_sb;

void hd_sb_printf(hd_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hd_sb_add(hd_sb *sb, const void *s, size_t n);
void hd_sb_put_quoted(hd_sb *sb, const unsigned char *s, size_t n);
/* Raw when the text is a plain token, quoted otherwise. */
void hd_sb_put_token(hd_sb *sb, const unsigned char *s, size_t n);

/* --------------------------------------------------------------- reader.c */

typedef struct {
    int fd;
    int use_pread;       /* positioned reads from file_off (second pass) */
    uint64_t file_off;   /* next offset to fetch with pread */
    unsigned char *buf;
    size_t cap, pos, len;
    uint64_t off;        /* file offset of buf[pos] */
    int eof, err;
    int tee_fd;          /* >= 0: consumed bytes are also copied there */
    size_t tee_mark;     /* buf[tee_mark..pos) is consumed but not yet copied */
    uint64_t tee_len;    /* bytes consumed while copying, in all */
} hd_reader;

void hd_reader_init(hd_reader *r, int fd, uint64_t start, int use_pread);
void hd_reader_free(hd_reader *r);
/* Ensures up to need (<= cap) bytes are buffered; returns how many are. */
size_t hd_fill(hd_reader *r, size_t need);
size_t hd_read(hd_reader *r, void *dst, size_t n);
uint64_t hd_skip(hd_reader *r, uint64_t n);
/* Copy every byte consumed from now on to fd, until hd_tee_stop. */
void hd_tee_start(hd_reader *r, int fd);
void hd_tee_stop(hd_reader *r);

/* A record (or sub-record region) body: reads never go past `left`. */
typedef struct {
    hd_reader *r;
    uint64_t left;
    int idsize;
    int short_;          /* a read wanted more than `left` */
} hd_body;

uint64_t hd_b_un(hd_body *b, int n);
#define hd_b_u1(b) ((uint8_t)hd_b_un((b), 1))
#define hd_b_u2(b) ((uint16_t)hd_b_un((b), 2))
#define hd_b_u4(b) ((uint32_t)hd_b_un((b), 4))
#define hd_b_u8(b) (hd_b_un((b), 8))
#define hd_b_id(b) (hd_b_un((b), (b)->idsize))
/* 1 if n more bytes are in the body; else marks it short. */
int hd_b_has(hd_body *b, uint64_t n);
void hd_b_skip(hd_body *b, uint64_t n);
#define hd_b_bad(b) ((b)->short_ || (b)->r->eof || (b)->r->err)

/* ---------------------------------------------------------------- state */

/* Kinds of reference whose definition is checked. */
enum {
    K_STRING, K_CLASS, K_FRAME, K_TRACE, K_THREAD, K_CLASSOBJ, /* defined by records */
    K_OBJECT, K_HCLASS,                                       /* defined in a heap dump */
    K_NKINDS
};

/* Definitions; `def` (the defining record's offset) comes first so that two
 * definitions compare equal when the bytes after it do (no padding in these). */
typedef struct { uint64_t def, off, len; } hd_string;
typedef struct { uint64_t def; uint32_t serial, trace; uint64_t obj, name; } hd_class;
typedef struct { uint64_t def, id, method, sig, source; uint32_t cls; int32_t line; } hd_frame;
typedef struct { uint64_t def; uint32_t serial, thread, nframes; uint64_t first; } hd_trace;
typedef struct { uint64_t def; uint32_t serial, trace; uint64_t obj, name, group, parent; } hd_thread;

/* A CLASS DUMP of the current heap dump. */
typedef struct {
    uint64_t id, super;
    uint32_t nfields;
    uint64_t ftypes;     /* offset of its field types in st->ftypes */
    int64_t size;        /* bytes of this class's and its supers' fields; <0: see heap.c */
    uint64_t refs;       /* offset of its object-field offsets in st->refoffs */
    uint32_t nrefs;
} hd_hclass;

typedef struct { uint64_t off, len; } hd_span;

/* Uses of one undefined id by one kind of record; entries of the same id are chained. */
typedef struct { int kind; uint64_t id, count, first_off, def_off; const char *user; size_t next; } hd_undef;

typedef struct {
    const char *path;
    int fd;
    hd_reader r;
    uint64_t fsize;      /* 0 when unknown (not a regular file) */
    int seekable;
    int idsize, minor;   /* minor: 1 or 2 for "JAVA PROFILE 1.0.x", 0 other */
    char version[64];
    uint64_t time_ms;

    int print, check, summary, lenient, offsets;
    FILE *out;
    hd_sb line;

    /* definitions */
    hd_map strings, classes_by_serial, classes_by_obj, frames, traces, threads;
    unsigned char *pool; size_t pool_len, pool_cap;
    hd_string *strv; size_t nstr, capstr;
    hd_class *clsv; size_t ncls, capcls;
    hd_frame *frv; size_t nfr, capfr;
    hd_trace *trv; size_t ntr, captr;
    uint64_t *trframes; size_t ntrframes, captrframes;
    hd_thread *thv; size_t nth, capth;

    /* current heap dump */
    int in_dump, seg_open;
    uint64_t dump_off;           /* offset of its first record */
    const char *dump_kind;
    hd_span *segs; size_t nsegs, capsegs;
    uint64_t *objs; size_t nobjs, capobjs; int objs_sorted;
    hd_map hclasses;             /* class id -> index in hcv */
    hd_hclass *hcv; size_t nhc, caphc;
    uint8_t *ftypes; size_t nftypes, capftypes;
    uint32_t *refoffs; size_t nrefoffs, caprefoffs;
    unsigned char *tmp; size_t captmp;
    int spool_fd;                /* heap bodies copied here when input can't seek */

    /* counts */
    uint64_t rec_count[256], sub_count[256], records, subrecords;
    uint64_t cpu_total, cpu_traces, alloc_sites, heap_dumps, dup_defs;

    /* problems */
    uint64_t errors, warnings, printed_errors, printed_warnings;
    hd_map undef_idx[K_NKINDS];
    hd_undef *undv; size_t nund, capund;
    uint64_t undef_dropped_err, undef_dropped_warn;
    int io_error;
} hd_state;

/* ---------------------------------------------------------------- report.c */

#define HD_MAX_MESSAGES 20
void hd_error(hd_state *st, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void hd_warning(hd_state *st, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A use at `off` by record `user` of an id of `kind` that is not (yet) defined. */
void hd_undefined(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user);
/* A definition of an id: notes it for earlier undefined uses. */
void hd_defined(hd_state *st, int kind, uint64_t id, uint64_t off);
/* Emits the aggregated undefined-reference messages. */
void hd_report_undefined(hd_state *st);

/* Appends a string id's text to st->line: token (quoted if needed) or always quoted;
 * "-" for id 0, "#0x.." for an unknown id. */
void hd_put_sid(hd_state *st, uint64_t id, int quote);
/* Class name of a class serial / class object id ("?" when unknown). */
void hd_put_class_serial(hd_state *st, uint32_t serial);
void hd_put_class_obj(hd_state *st, uint64_t obj);
/* Starts an output line (with the --offsets prefix), and emits it. */
void hd_line_begin(hd_state *st, uint64_t off, int sub, uint32_t time);
void hd_line_end(hd_state *st);

const unsigned char *hd_string_text(hd_state *st, uint64_t id, size_t *len);

/* ---------------------------------------------------------------- records.c */

const char *hd_tag_name(int tag);
const char *hd_sub_name(int tag);
/* Size of a basic type (0 when invalid); its name. */
int hd_type_size(hd_state *st, int type);
const char *hd_type_name(int type);
/* Reference checks used by records and heap sub-records. */
void hd_use(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user, int zero_ok);
int hd_run(hd_state *st);

/* ---------------------------------------------------------------- heap.c */

void hd_heap_record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time);
void hd_heap_finish(hd_state *st);   /* end of file */
void hd_heap_free(hd_state *st);

#endif
