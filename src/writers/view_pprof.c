/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzipped: the
 * format go tool pprof, Grafana Pyroscope and Parca read. Functions are named by
 * "Class.method" with their source file, each frame is a location with its line, and
 * each sample a distinct stack (leaf first) with one value per sample type and the
 * profile's labels (service_name, host, pid: string labels, which Pyroscope and
 * go tool pprof -tags show). time_nanos and duration_nanos give the window it covers.
 * A native library's functions (a native frame whose file is no .java file:
 * libjvm.so.Compile::Optimize in libjvm.so) have their locations in a mapping of that
 * library (no addresses: the functions are named already).
 */
#include "writers/views.h"

#include <stdlib.h>
#include <string.h>

#include "util/gzip.h"
#include "util/protobuf.h"

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1,
    PROFILE_SAMPLE = 2,
    PROFILE_MAPPING = 3,
    PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6,
    PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS = 10,
    PROFILE_PERIOD_TYPE = 11,
    PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13,
    PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUE_TYPE_TYPE = 1,
    VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1,
    SAMPLE_VALUE = 2,
    SAMPLE_LABEL = 3,
    LABEL_KEY = 1,
    LABEL_STR = 2,
    MAPPING_ID = 1,
    MAPPING_FILENAME = 5,
    MAPPING_HAS_FUNCTIONS = 7,
    LOCATION_ID = 1,
    LOCATION_MAPPING_ID = 2,
    LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1,
    LINE_LINE = 2,
    FUNCTION_ID = 1,
    FUNCTION_NAME = 2,
    FUNCTION_SYSTEM_NAME = 3,
    FUNCTION_FILENAME = 4,
};

/* The string table is the profile's own strings, then these (types, units, comments). */
struct extra_strings {
    const char *s[4 + 2 * SP_MAX_TYPES + 4];
    int n;
    uint32_t base;
};

static uint32_t extra(struct extra_strings *x, const char *s)
{
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->s[i], s) == 0) return x->base + (uint32_t)i;
    x->s[x->n] = s;
    return x->base + (uint32_t)x->n++;
}

static void value_type(struct buf *b, struct buf *msg, uint32_t field, struct extra_strings *x, struct sp_type t)
{
    pb_uint(msg, VALUE_TYPE_TYPE, extra(x, t.type));
    pb_uint(msg, VALUE_TYPE_UNIT, extra(x, t.unit));
    pb_message(b, field, msg);
}

/* One function per (name, file): *fn_of_frame gets each frame's function id. Returns
 * the number of functions, or -1 when out of memory. */
static long functions(const struct stack_profile *p, struct buf *b, struct buf *msg, uint32_t *fn_of_frame)
{
    size_t cap = 16;
    while (cap < p->nframes * 2) cap *= 2;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *ids = calloc(cap, sizeof *ids);
    long n = 0;
    if (!keys || !ids) n = -1;
    for (size_t i = 0; n >= 0 && i < p->nframes; i++) {
        const struct sp_frame *f = &p->frames[i];
        uint64_t key = (uint64_t)f->name << 32 | f->file;
        size_t j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
        while (ids[j] && keys[j] != key) j = (j + 1) & (cap - 1);
        if (!ids[j]) {
            keys[j] = key;
            ids[j] = (uint32_t)++n;
            pb_uint(msg, FUNCTION_ID, ids[j]);
            pb_uint(msg, FUNCTION_NAME, f->name);
            /* No system_name: we have no mangled names, and pprof takes a system_name
             * equal to the name for a C++ name still to simplify: it would strip the
             * parentheses and angle brackets of `{lambda(int)#1}`, `Foo<int>::bar`, or
             * of `char[] (apportioned)`. */
            pb_uint(msg, FUNCTION_FILENAME, f->file);
            pb_message(b, PROFILE_FUNCTION, msg);
        }
        fn_of_frame[i] = ids[j];
    }
    free(keys);
    free(ids);
    return n;
}

/* The file of a native library's function: a native frame's file that is no .java file. */
static uint32_t library_of(const struct stack_profile *p, const struct sp_frame *f)
{
    const char *file = sp_str(p, f->file);
    size_t n = strlen(file);
    return f->kind == SP_NATIVE && f->file && !(n > 5 && strcmp(file + n - 5, ".java") == 0) ? f->file : 0;
}

/* A mapping per library (id from 1); *map_of_file gets each library file's id. */
static void mappings(const struct stack_profile *p, struct buf *b, struct buf *msg, uint32_t *map_of_file)
{
    uint32_t n = 0;
    for (size_t i = 0; i < p->nframes; i++) {
        uint32_t file = library_of(p, &p->frames[i]);
        if (!file || map_of_file[file]) continue;
        map_of_file[file] = ++n;
        pb_uint(msg, MAPPING_ID, n);
        pb_uint(msg, MAPPING_FILENAME, file);
        pb_uint(msg, MAPPING_HAS_FUNCTIONS, 1);
        pb_message(b, PROFILE_MAPPING, msg);
    }
}

/* A location per frame (id = frame index + 1), with its one line (and its library's mapping). */
static void locations(const struct stack_profile *p, struct buf *b, struct buf *msg, struct buf *line,
                      const uint32_t *fn_of_frame, const uint32_t *map_of_file)
{
    for (size_t i = 0; i < p->nframes; i++) {
        pb_uint(msg, LOCATION_ID, i + 1);
        uint32_t file = library_of(p, &p->frames[i]);
        if (file && map_of_file[file]) pb_uint(msg, LOCATION_MAPPING_ID, map_of_file[file]);
        pb_uint(line, LINE_FUNCTION_ID, fn_of_frame[i]);
        pb_int(line, LINE_LINE, p->frames[i].line);
        pb_message(msg, LOCATION_LINE, line);
        pb_message(b, PROFILE_LOCATION, msg);
    }
}

/* Each stack, its location ids and values packed (proto3 packs repeated scalars). */
static void samples(const struct stack_profile *p, struct buf *b, struct buf *msg, struct buf *packed)
{
    for (size_t i = 0; i < p->nstacks; i++) {
        const struct sp_stack *s = &p->stacks[i];
        for (uint32_t k = 0; k < s->n; k++) pb_varint(packed, p->frame_ix[s->first + k] + 1u);
        if (s->n) pb_message(msg, SAMPLE_LOCATION_ID, packed);
        for (int t = 0; t < p->ntypes; t++) pb_varint(packed, (uint64_t)s->v[t]);
        pb_message(msg, SAMPLE_VALUE, packed);
        for (int l = 0; l < p->nlabels; l++) {
            pb_uint(packed, LABEL_KEY, p->label_key[l]);
            pb_uint(packed, LABEL_STR, p->label_value[l]);
            pb_message(msg, SAMPLE_LABEL, packed);
        }
        pb_message(b, PROFILE_SAMPLE, msg);
    }
}

static void comments(const struct stack_profile *p, struct buf *b, struct extra_strings *x)
{
    const char *lines[] = {p->program, p->mode, p->date, p->note};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (lines[i] && *lines[i]) pb_uint(b, PROFILE_COMMENT, extra(x, lines[i]));
}

static void string_table(const struct stack_profile *p, struct buf *b, const struct extra_strings *x)
{
    for (size_t i = 0; i < p->nstr; i++) pb_string(b, PROFILE_STRING_TABLE, sp_str(p, (uint32_t)i));
    for (int i = 0; i < x->n; i++) pb_string(b, PROFILE_STRING_TABLE, x->s[i]);
}

int view_pprof(const struct stack_profile *p, struct buf *out)
{
    if (p->oom) return -1;
    struct buf b, msg, sub;
    buf_init(&b);
    buf_init(&msg);
    buf_init(&sub);
    struct extra_strings x = {.base = (uint32_t)p->nstr};
    for (int t = 0; t < p->ntypes; t++) value_type(&b, &msg, PROFILE_SAMPLE_TYPE, &x, p->types[t]);
    samples(p, &b, &msg, &sub);
    uint32_t *fn_of_frame = calloc(p->nframes ? p->nframes : 1, sizeof *fn_of_frame);
    uint32_t *map_of_file = calloc(p->nstr ? p->nstr : 1, sizeof *map_of_file);
    long nfn = fn_of_frame && map_of_file ? functions(p, &b, &msg, fn_of_frame) : -1;
    if (nfn >= 0) mappings(p, &b, &msg, map_of_file);
    if (nfn >= 0) locations(p, &b, &msg, &sub, fn_of_frame, map_of_file);
    free(fn_of_frame);
    free(map_of_file);
    if (p->time_nanos) pb_int(&b, PROFILE_TIME_NANOS, p->time_nanos);
    if (p->duration_nanos) pb_int(&b, PROFILE_DURATION_NANOS, p->duration_nanos);
    if (p->period_type.type) {
        value_type(&b, &msg, PROFILE_PERIOD_TYPE, &x, p->period_type);
        pb_int(&b, PROFILE_PERIOD, p->period);
    }
    comments(p, &b, &x);
    if (p->ntypes) pb_uint(&b, PROFILE_DEFAULT_SAMPLE_TYPE, extra(&x, p->types[p->main_type].type));
    string_table(p, &b, &x);
    int rc = nfn < 0 || b.oom || msg.oom || sub.oom ? -1 : 0;
    if (!rc) gzip_stored(out, b.data, b.len);
    buf_free(&b);
    buf_free(&msg);
    buf_free(&sub);
    return rc || out->oom ? -1 : 0;
}
