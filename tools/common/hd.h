/* SPDX-License-Identifier: Apache-2.0 */
/* The reader, printer and validator of the HPROF binary format: hprof-dump's engine,
 * shared by the tools (build/libtools.a), hprof view reads records through hd_visitor.
 * Declarations of the engine's files, lowest layer first; a file calls only files of
 * lower layers (tools/hprof-dump/README.md, "Source files"):
 *   table.c, format.c   growable memory, u64 map; tag and basic type names and sizes
 *   reader.c            buffered streaming reader and bounded record bodies
 *   lines.c             output lines, quoting, string and class name lookup
 *   problems.c          problems, uses and definitions of IDs (undefined references)
 *   heap.c              HEAP DUMP sub-records and the per-dump reference pass
 *   records.c           header, top-level records and the record loop
 *                       (records_timeline.c: the timeline= records)
 *   state.c             a reader's state made and freed
 * hprof-dump's command line, summary and exit status are tools/hprof-dump/main.c.
 */
#ifndef HD_H
#define HD_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"
#include "util/hprof_format.h" /* the record tags and basic types (enum hd_type) */
#include "util/idmap.h"

/* ---------------------------------------------------------------- table.c */

/* realloc that reports "out of memory" and exits with status 2 when it fails. */
void *hd_xrealloc(void *p, size_t n);
void hd_out_of_memory(size_t n) __attribute__((noreturn));
/* Exits with status 2 when b ran out of memory (struct buf drops writes then). */
void hd_buf_check(const struct buf *b);
/* b's text, NUL-terminated (the NUL is not counted in b->len). */
const char *hd_buf_text(struct buf *b);

/* Make room for one more element at index n of a growable array (exits when out of memory). */
#define HD_GROW(arr, n, cap)                                                      \
    do {                                                                          \
        if (!grow_array((void **)&(arr), &(cap), (size_t)(n) + 1, sizeof *(arr))) \
            hd_out_of_memory(((cap) ? (cap)*2 : 64) * sizeof *(arr));             \
    } while (0)

/* A map from u64 keys to u64 values: the agent's (util/idmap.h), exiting when out of memory. */
typedef struct idmap hd_map;

static inline uint64_t *hd_map_get(const hd_map *m, uint64_t key) { return idmap_find(m, key); }
/* Inserts key->val and returns 1; if key exists, leaves it and returns 0.
 * Either way *slot (if slot) points at the stored value. */
int hd_map_put(hd_map *m, uint64_t key, uint64_t val, uint64_t **slot);
static inline void hd_map_free(hd_map *m) { idmap_free(m); }

/* ---------------------------------------------------------------- format.c */

const char *hd_tag_name(int tag);   /* record tag, NULL when unknown */
const char *hd_sub_name(int tag);   /* heap dump sub-record tag, NULL when unknown */
const char *hd_type_name(int type); /* basic type, NULL when invalid */
/* Size of a value of a basic type (idsize for an object); 0 when invalid. */
int hd_type_size(int type, int idsize);

/* A big-endian value of n = 1, 2, 4 or 8 bytes. */
static inline uint64_t hd_load_be(const unsigned char *p, int n)
{
    switch (n) {
    case 1: return p[0];
    case 2: return be_load_u2(p);
    case 4: return be_load_u4(p);
    default: return be_load_u8(p);
    }
}

/* --------------------------------------------------------------- reader.c */

typedef struct {
    int fd;
    int use_pread;     /* positioned reads from file_off (second pass) */
    uint64_t file_off; /* next offset to fetch with pread */
    unsigned char *buf;
    size_t cap, pos, len;
    uint64_t off; /* file offset of buf[pos] */
    int eof, err;
    int tee_fd;       /* >= 0: consumed bytes are also copied there */
    size_t tee_mark;  /* buf[tee_mark..pos) is consumed but not yet copied */
    uint64_t tee_len; /* bytes consumed while copying, in all */
} hd_reader;

void hd_reader_init(hd_reader *r, int fd, uint64_t start, int use_pread);
void hd_reader_free(hd_reader *r);
/* Ensures up to need (<= cap) bytes are buffered; returns how many are. */
size_t hd_fill(hd_reader *r, size_t need);
size_t hd_read(hd_reader *r, void *dst, size_t n);
/* Copy every byte consumed from now on to fd, until hd_tee_stop. */
void hd_tee_start(hd_reader *r, int fd);
void hd_tee_stop(hd_reader *r);

/* A record (or sub-record region) body: reads never go past `left`. */
typedef struct {
    hd_reader *r;
    uint64_t left;
    int idsize;
    int short_; /* a read wanted more than `left` */
} hd_body;

/* A big-endian value of n = 1, 2, 4 or 8 bytes; 0 when the body or the file ends. */
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
    K_STRING,
    K_CLASS,
    K_FRAME,
    K_TRACE,
    K_THREAD,
    K_CLASSOBJ, /* defined by records */
    K_OBJECT,
    K_HCLASS, /* defined in a heap dump */
    K_NKINDS
};

/* Definitions; `def` (the defining record's offset) comes first so that two
 * definitions compare equal when the bytes after it do (no padding in these). */
typedef struct {
    uint64_t def, off, len;
} hd_string;
typedef struct {
    uint64_t def;
    uint32_t serial, trace;
    uint64_t obj, name;
} hd_class;
typedef struct {
    uint64_t def, id, method, sig, source;
    uint32_t cls;
    int32_t line;
} hd_frame;
typedef struct {
    uint64_t def;
    uint32_t serial, thread, nframes;
    uint64_t first;
} hd_trace;
typedef struct {
    uint64_t def;
    uint32_t serial, trace;
    uint64_t obj, name, group, parent;
} hd_thread;

/* A CLASS DUMP of the current heap dump. An instance holds its class's fields, then its
 * super's, and so on: each class keeps only its own object-field offsets, and `up` leads
 * to the next class up the chain that has some, so that checking an instance visits only
 * those (work bounded by the instance's bytes, not by the depth of its class). */
typedef struct {
    uint64_t id, super, off; /* off: the CLASS_DUMP's, for messages */
    uint32_t nfields;
    uint64_t ftypes; /* offset of its field types in st->ftypes */
    int64_t size;    /* bytes of this class's and its supers' fields; <0: see heap.c */
    uint64_t refs;   /* offset of its own object-field offsets in st->refoffs */
    uint32_t nrefs;
    uint64_t up; /* 1 + index of itself or the nearest super with object fields; 0: none */
} hd_hclass;

typedef struct {
    uint64_t off, len;
} hd_span;

/* Uses of one undefined id by one kind of record; entries of the same id are chained. */
typedef struct {
    int kind;
    uint64_t id, count, first_off, def_off;
    const char *user;
    size_t next;
} hd_undef;

struct hd_state_s;

/* What a reader other than the printer takes from the records as they stream by (each
 * may be NULL). The state is passed along so that it can look up strings, classes and
 * traces; those defined later in the file are there once hd_run returns. */
typedef struct {
    void *ctx;
    void (*cpu_samples)(void *ctx, const struct hd_state_s *st, uint32_t total); /* a CPU_SAMPLES record */
    void (*cpu_sample)(void *ctx, const struct hd_state_s *st, uint32_t count, uint32_t trace);
    /* An ALLOC_SITES record, with the totals its header gives (of every site, the ones the
     * cutoff left out of its list too): live bytes, live objects, allocated bytes,
     * allocated objects. */
    void (*alloc_sites)(void *ctx, const struct hd_state_s *st, const uint64_t totals[4]);
    void (*site)(void *ctx, const struct hd_state_s *st, uint32_t class_serial, uint32_t trace,
                 const uint32_t counts[4]); /* live bytes, live objects, allocated bytes, allocated objects */
    void (*heap_dump)(void *ctx, const struct hd_state_s *st); /* a dump begins */
    /* An instance (tag 0x21: class = its class object, n = bytes of fields), an object
     * array (0x22: class = the array's class, n = elements) or a primitive array (0x23:
     * type = element type, n = elements) of a heap dump. */
    void (*object)(void *ctx, const struct hd_state_s *st, int tag, uint32_t trace, uint64_t class_id, int type,
                   uint32_t n);
} hd_visitor;

typedef struct hd_state_s {
    const char *path;
    int fd;
    const hd_visitor *visit; /* NULL: none */
    hd_reader r;
    uint64_t fsize; /* 0 when unknown (not a regular file) */
    int seekable;
    int idsize, minor; /* minor: 1 or 2 for "JAVA PROFILE 1.0.x", 0 other */
    char version[64];
    uint64_t time_ms;

    int print, check, summary, lenient, offsets;
    FILE *out;
    struct buf line;

    /* definitions */
    hd_map strings, classes_by_serial, classes_by_obj, frames, traces, threads;
    hd_map thread_ends;                       /* thread serial -> offset of its END_THREAD */
    uint64_t live_threads;                    /* --check: threads started and not ended so far */
    hd_map root_threads;                      /* --check: thread serials of every ROOT_THREAD_OBJECT */
    uint64_t array_reloads, array_reload_off; /* array classes loaded again (JDK 17's dumps) */
    struct buf pool;                          /* the text of every STRING */
    hd_string *strv;
    size_t nstr, capstr;
    hd_class *clsv;
    size_t ncls, capcls;
    hd_frame *frv;
    size_t nfr, capfr;
    hd_trace *trv;
    size_t ntr, captr;
    uint64_t *trframes;
    size_t ntrframes, captrframes;
    hd_thread *thv;
    size_t nth, capth;

    /* current heap dump */
    int in_dump, seg_open;
    uint64_t dump_off; /* offset of its first record */
    const char *dump_kind;
    hd_span *segs;
    size_t nsegs, capsegs;
    uint64_t *objs;
    size_t nobjs, capobjs;
    int objs_sorted;
    hd_map hclasses;                      /* class id -> index in hcv */
    hd_map dump_threads;                  /* thread serial -> 1 + frames of its ROOT_THREAD_OBJECT's trace */
    uint64_t dump_live, dump_live_rooted; /* threads live as the dump began; those with a root in it */
    hd_hclass *hcv;
    size_t nhc, caphc;
    uint8_t *ftypes;
    size_t nftypes, capftypes;
    uint32_t *refoffs;
    size_t nrefoffs, caprefoffs;
    unsigned char *tmp;
    size_t captmp;
    int spool_fd;    /* heap bodies copied here when input can't seek */
    hd_reader pass2; /* reads the dumps' bodies again (its buffer made once) */

    /* counts */
    uint64_t rec_count[256], sub_count[256], records, subrecords;
    uint64_t cpu_total, cpu_traces, alloc_sites, heap_dumps, dup_defs;

    /* problems */
    uint64_t errors, warnings, printed_errors, printed_warnings;
    hd_map undef_idx[K_NKINDS];
    hd_undef *undv;
    size_t nund, capund;
    uint64_t undef_dropped_err, undef_dropped_warn;
    int io_error;
} hd_state;

/* ---------------------------------------------------------------- lines.c */

void hd_put_quoted(struct buf *b, const unsigned char *s, size_t n);
/* A value of a basic type as lines show it: decimal, %g for float and double, 0x.. for an object. */
void hd_put_value(struct buf *b, int type, uint64_t v);

/* Text of a string id (NULL when no STRING defines it). */
const unsigned char *hd_string_text(hd_state *st, uint64_t id, size_t *len);
/* Appends a string id's text to st->line: token (quoted if needed) or always quoted;
 * "-" for id 0, "#0x.." for an unknown id. */
void hd_put_sid(hd_state *st, uint64_t id, int quote);
/* Class name of a class serial / class object id ("?" when unknown). */
void hd_put_class_serial(hd_state *st, uint32_t serial);
void hd_put_class_obj(hd_state *st, uint64_t obj);
/* "Class.method" of a trace's top frame; "-" for an empty trace, "?" when unknown. */
void hd_put_top(hd_state *st, uint32_t trace);
/* Starts an output line (with the --offsets prefix), and emits it. */
void hd_line_begin(hd_state *st, uint64_t off, int sub, uint32_t time);
void hd_line_end(hd_state *st);

/* ---------------------------------------------------------------- problems.c */

#define HD_MAX_MESSAGES 20
void hd_error(hd_state *st, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void hd_warning(hd_state *st, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error, or a warning under --lenient (for what the original agent's files have). */
void hd_strict(hd_state *st, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A use at `off` by record `user` of an id of `kind` (0 allowed when zero_ok): with
 * --check, notes it when the id is not (yet) defined. */
void hd_use(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user, int zero_ok);
/* A use at `off` by record `user` of an id of `kind` that is not (yet) defined. */
void hd_undefined(hd_state *st, int kind, uint64_t id, uint64_t off, const char *user);
/* A definition of an id: notes it for earlier undefined uses. */
void hd_defined(hd_state *st, int kind, uint64_t id, uint64_t off);
/* Emits the aggregated undefined-reference messages, and what the JVM's own heap dumps
 * are known to hold (see problems.c). */
void hd_report_undefined(hd_state *st);

/* ---------------------------------------------------------------- heap.c */

/* A HEAP_DUMP, HEAP_DUMP_SEGMENT or HEAP_DUMP_END record; reports its own problems. */
void hd_heap_record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time);
void hd_heap_finish(hd_state *st); /* end of file */
void hd_heap_free(hd_state *st);

/* ---------------------------------------------------------------- records.c */

/* Reads the whole file: header, then every record. */
void hd_run(hd_state *st);
/* The timeline= records, tags 0x40-0x44 (records_timeline.c). */
int hd_timeline_record(hd_state *st, hd_body *b, int tag, uint64_t off, uint32_t time);
/* ---------------------------------------------------------------- state.c */

/* An empty state: no file, nothing checked, no spool file, lines to `out`. */
void hd_state_init(hd_state *st, FILE *out);
/* Frees what reading gathered (not the file descriptors). */
void hd_state_free(hd_state *st);

#endif
