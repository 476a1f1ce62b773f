/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof analyze: what holds the memory in a binary HPROF heap dump. The files, lowest
 * first (each calls only those above it in this list):
 *   analyze_file.c    the dump mapped read-only (a gzipped one inflated to a temp file)
 *   analyze_lookup.c  lookups on the index: an object by id, strings, class names, fields
 *   analyze_classes.c classes: fields, layout along the supers, instance sizes
 *   analyze_edges.c   references: CSR edges, counted then filled by threads
 *   analyze_index.c   the load: records, objects and roots into dense indexes
 *   analyze_dom.c     dominator tree (Semi-NCA, iterative) and retained sizes
 *   analyze_histogram.c  the dominator tree's children; histogram and sites sums
 *   analyze_out.c     the output: JSON strings, labels, sections, text or JSON
 *   analyze_waste.c   duplicates, empty and sparse collections, accumulation points
 *   analyze_report.c  the report: histogram, biggest retainers, paths, waste, suspects, sites
 *   analyze_diff.c    two dumps compared
 *   analyze_html.c    the self-contained HTML page
 *   cmd_analyze.c     the command line
 * Every size or count read from the dump is checked against the bytes the file has, and
 * nothing recurses on a depth the file decides (chains of objects or of superclasses).
 */
#ifndef HPROF_ANALYZE_H
#define HPROF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/buf.h"
#include "util/idmap.h"

#define AN_NONE UINT32_MAX

/* ------------------------------------------------------------ analyze_file.c */

struct an_file {
    const uint8_t *p;
    uint64_t size;
    int fd;
};

/* Maps path read-only (gzip: inflated by `gzip -dc` into an unlinked 0600 temp file).
 * 0, or -1 with a message in err. */
int an_file_open(struct an_file *f, const char *path, char *err, size_t errlen);
void an_file_close(struct an_file *f);
/* Bytes of memory this process may still take: MemAvailable of /proc/meminfo. */
uint64_t an_memory_available(void);

/* ----------------------------------- analyze_index.c, analyze_lookup.c */

/* A class: from its CLASS DUMP (layout, statics) and LOAD CLASS (name). */
struct an_class {
    uint64_t id, super, loader, name_sid;
    uint64_t off;         /* its CLASS DUMP sub-record in the file */
    uint32_t obj;         /* its own object index (classes are objects, as VisualVM has them) */
    uint32_t own_bytes;   /* bytes of its own instance fields in an instance's data */
    uint32_t total;       /* bytes of its and its supers' fields: an instance's data length */
    uint32_t refs, nrefs; /* its own strong object fields: offsets in heap.refoffs */
    uint32_t up;          /* 1 + the nearest class up its chain (itself too) with strong refs; 0 none */
    uint64_t shallow;     /* an instance's shallow size (VisualVM's) */
    bool bad;             /* its chain of supers is broken or loops: instances have no edges */
    bool is_ref;          /* java.lang.ref.Reference or a subclass */
    uint8_t kind;         /* AN_K_* of its name */
};

enum { AN_K_PLAIN, AN_K_STRING, AN_K_ARRAYLIST, AN_K_HASHMAP, AN_K_REFERENCE };

/* Object kinds; AN_WEAK_LAST marks an object whose last edge is a Reference's referent. */
enum { AN_INSTANCE, AN_OBJARRAY, AN_PRIMARRAY, AN_CLASSOBJ, AN_WEAK_LAST = 0x10 };
#define AN_KIND(h, o) ((h)->kind[o] & 0x0f)
/* End of object o's strong edges (its referent edge, if any, comes last). */
#define AN_STRONG_END(h, o) (an_eoff((h), (o) + 1) - (((h)->kind[o] & AN_WEAK_LAST) ? 1 : 0))
/* A shallow size that does not fit in 32 bits: an_shallow reads it from the record. */
#define AN_BIG UINT32_MAX

struct an_progress {
    bool on;
    double t0;
};

struct an_heap {
    const uint8_t *p;
    uint64_t size;
    int idsize, oopsize;
    uint64_t time_ms;
    struct idmap strings;      /* string id -> offset of its STRING record */
    struct idmap class_names;  /* class object id -> name string id (LOAD CLASS) */
    struct idmap class_serial; /* class serial -> class object id */
    struct idmap frames;       /* frame id -> offset of its FRAME record */
    struct idmap traces;       /* trace serial -> offset of its TRACE record */
    /* the last heap dump's bodies: spans of the file */
    uint64_t *span_off, *span_len;
    size_t nspans;
    /* objects, by increasing id; 4 + 5 + 4 + 4 + 1 bytes each (+ 4 with traces), so
     * that a dump of many small objects fits beside its mapping: an id is its high half
     * (the run of objects sharing it, few: a run spans 4 GB of addresses) and the low
     * half; the offset of its record 40 bits (dumps up to 1 TB) */
    uint32_t n;
    uint32_t *id_lo;
    uint64_t *run_hi; /* the high halves of the ids, increasing */
    uint32_t *run_at; /* index of the first object of each run; nruns + 1 */
    uint32_t nruns;
    uint32_t *off_lo;  /* low 32 bits of its record's offset in the file */
    uint8_t *off_hi;   /* the 8 bits above */
    uint32_t *cls;     /* index in classes (of java.lang.Class for class objects; AN_NONE unknown) */
    uint8_t *kind;     /* AN_INSTANCE ... */
    uint32_t *shallow; /* VisualVM's Instance.getSize(); AN_BIG: from the record (an_shallow) */
    uint32_t *trace;   /* allocation trace serial (0 none); NULL when no object has one */
    bool drop_pages;   /* the dump is a file mapping whose read pages may be let go */
    /* classes */
    struct an_class *classes;
    uint32_t nclasses;
    struct idmap class_by_id; /* class id -> index in classes */
    uint32_t *refoffs;
    size_t nrefoffs;
    uint32_t java_lang_class;                                            /* index, AN_NONE when absent */
    uint64_t weak_class;                                                 /* java.lang.ref.Reference's id (0: none) */
    uint32_t weak_off;                                                   /* its referent's offset in its own fields */
    uint32_t weak_index;                                                 /* its index in classes */
    uint64_t sid_referent, sid_value, sid_size, sid_elements, sid_table; /* field names' string ids */
    uint32_t prim_class[16];                                             /* class of each primitive array type */
    /* references: CSR, from each object (instances: strong fields; arrays: elements;
     * classes: statics) to objects of the dump; offsets 32-bit while they fit */
    uint32_t *eoff32; /* n + 1, or NULL: */
    uint64_t *eoff64; /* when there are 2^32 references or more */
    uint32_t *edge;
    uint64_t nedges;
    /* GC roots: object indexes, each once */
    uint32_t *roots;
    uint32_t nroots;
    uint64_t unresolved; /* references to ids not in the dump */
    uint64_t dumps;      /* heap dumps in the file (the last one is read) */
    int threads;
    struct an_progress progress;
};

/* Offset of object o's record in the file. */
static inline uint64_t an_off(const struct an_heap *h, uint32_t o)
{
    return (uint64_t)h->off_hi[o] << 32 | h->off_lo[o];
}

/* Start of object o's references in h->edge (o == n: their count). */
static inline uint64_t an_eoff(const struct an_heap *h, uint32_t o) { return h->eoff32 ? h->eoff32[o] : h->eoff64[o]; }

/* VisualVM's shallow size of object o. */
uint64_t an_shallow_big(const struct an_heap *h, uint32_t o);
static inline uint64_t an_shallow(const struct an_heap *h, uint32_t o)
{
    return h->shallow[o] != AN_BIG ? h->shallow[o] : an_shallow_big(h, o);
}

/* Sizes of the dump's records that memory estimates need (from a first pass). */
struct an_counts {
    uint64_t objects, ref_slots, classes;
};

/* analyze_index.c: reads the header and every record of f; the last heap dump's objects are indexed. On a
 * bad file, -1 and err says why. max_mem: refuse (-2) when the indexes would need more
 * (err says how much). */
int an_heap_load(struct an_heap *h, const struct an_file *f, uint64_t max_mem, int threads, bool progress, char *err,
                 size_t errlen);
void an_heap_free(struct an_heap *h);
/* analyze_lookup.c: index of an object id, or AN_NONE. */
uint32_t an_find(const struct an_heap *h, uint64_t id);
/* The id of object o. */
uint64_t an_id(const struct an_heap *h, uint32_t o);
/* Lets the kernel take back the dump's pages read so far (they are read
 * again from the page cache when needed), so that they count in the peak only while a
 * pass reads them; every 2^16th call of a loop (i: its counter) or when i is 0. */
void an_pages_done(const struct an_heap *h, uint64_t i);
/* The class a class object is (index in classes), AN_NONE for other objects. */
uint32_t an_class_of_object(const struct an_heap *h, uint32_t obj);
/* A class's name as Java writes it ("java.util.HashMap", "int[]"), into b. */
void an_class_name(const struct an_heap *h, uint32_t cls, struct buf *b);
/* Text of a string id; NULL when unknown. */
const uint8_t *an_string(const struct an_heap *h, uint64_t sid, size_t *len);
/* A field of an instance by name string id: its value bytes (NULL when absent). */
const uint8_t *an_field(const struct an_heap *h, uint32_t obj, uint64_t name_sid, int *type);
/* A primitive array's elements: type, count, bytes (NULL when not one). */
const uint8_t *an_prim_array(const struct an_heap *h, uint32_t obj, int *type, uint32_t *count);
/* analyze_index.c: a progress line on stderr, when p->on. */
void an_progress(struct an_progress *p, const char *what);

/* ------------------------------------------------------------- analyze_dom.c */

struct an_dom {
    uint32_t *idom;     /* per object: immediate dominator, AN_NONE for the super-root's children and the unreachable */
    uint64_t *retained; /* per object */
    uint32_t *order;    /* the reachable objects in DFS preorder (dominators before what they dominate) */
    uint32_t nreach;
    uint64_t total; /* shallow bytes of the reachable */
};

/* The dominator tree of the graph from a super-root to every GC root; -1 out of memory. */
int an_dominators(const struct an_heap *h, struct an_dom *d);
void an_dom_free(struct an_dom *d);
/* Breadth-first from the GC roots over strong edges, until stop is reached (AN_NONE: all):
 * per object the one it was reached from (a root: itself; AN_NONE: not reached). */
uint32_t *an_bfs(const struct an_heap *h, uint32_t stop);
/* Shortest path from a GC root to obj (BFS over strong edges): obj indexes from root to
 * obj in *path (malloc'd); its length, 0 when unreachable. */
uint32_t an_root_path(const struct an_heap *h, uint32_t obj, uint32_t **path);

/* ------------------------ analyze_histogram.c, analyze_report.c, analyze_diff.c, analyze_out.c */

struct an_opts {
    int top;
    bool json;
    double suspect_share; /* a leak suspect retains more than this share of the heap */
    const char *path_of;  /* --path ID|CLASS */
    bool sites;           /* by allocation site */
};

/* analyze_histogram.c: the children of each object in the dominator tree (CSR; the super-root's at index n). */
struct an_kids {
    uint32_t *off, *v;
};
int an_kids_make(const struct an_heap *h, const struct an_dom *d, struct an_kids *k);
void an_kids_free(struct an_kids *k);

/* One class's line of the histogram. */
struct an_histo {
    uint32_t cls;
    uint64_t count, shallow, retained;
};

/* Per class: instances, shallow and retained bytes (retained: of its instances that no
 * other instance of the class dominates, as VisualVM's getRetainedSizeByClass); sorted by
 * retained bytes. *n: rows. */
struct an_histo *an_histogram(const struct an_heap *h, const struct an_dom *d, uint32_t *n);
/* analyze_report.c: the report on out. */
void an_report(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *out);
/* analyze_diff.c: growth between two dumps per class, and per dominator subtree named by its path of classes. */
void an_report_diff(const struct an_heap *h0, const struct an_dom *d0, const struct an_heap *h1,
                    const struct an_dom *d1, const struct an_opts *o, FILE *out);
/* analyze_out.c: an object's label: "java.util.HashMap#0x7f00..". */
void an_object_label(const struct an_heap *h, uint32_t obj, struct buf *b);
/* JSON string of s[0..n). */
void an_json_str(struct buf *b, const uint8_t *s, size_t n);

/* ------------------------------------------------------------ analyze_html.c */

/* The self-contained page to out. */
void an_html(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *out);

/* ------------------------------------------------------------- cmd_analyze.c */

int cmd_analyze(int argc, char **argv);
void usage_analyze(FILE *f);

#endif
