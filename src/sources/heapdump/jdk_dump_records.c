/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HPROF file the JDK wrote, as records and sub-records read with every bound checked
 * (a sub-record's size from its own fields), and the ID maps the reader's index is made
 * of. Pages the reading has passed are handed back as it goes (see jdr_open's `mapped`).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sources/heapdump/jdk_dump_internal.h"
#include "sources/heapdump/jdk_dump_reader.h"
#include "util/buf.h"
#include "util/hprof_format.h"

/* ---- the shape of records ---- */

bool jd_fail(struct jdr *r, const char *why)
{
    if (!r->why) r->why = why;
    return false;
}

/* Bytes of a CLASS DUMP body from p (after its class ID); 0 when it passes `end`. */
static size_t class_dump_size(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p + 4 + 6 * ID_BYTES + 4;
    if (q + 2 > end) return 0;
    unsigned n = be_load_u2(q);
    q += 2;
    for (unsigned i = 0; i < n; i++) { /* constant pool: u2 index, type, value */
        if (q + 3 > end) return 0;
        unsigned sz = jd_src_size(q[2]);
        if (!sz || q + 3 + sz > end) return 0;
        q += 3 + sz;
    }
    if (q + 2 > end) return 0;
    n = be_load_u2(q);
    q += 2;
    for (unsigned i = 0; i < n; i++) { /* statics: name, type, value */
        if (q + ID_BYTES + 1 > end) return 0;
        unsigned sz = jd_src_size(q[ID_BYTES]);
        if (!sz || q + ID_BYTES + 1 + sz > end) return 0;
        q += ID_BYTES + 1 + sz;
    }
    if (q + 2 > end) return 0;
    n = be_load_u2(q);
    q += 2;
    if ((size_t)(end - q) < (size_t)n * (ID_BYTES + 1)) return 0;
    for (unsigned i = 0; i < n; i++) /* instance fields: name, type */
        if (!jd_src_size(q[i * (ID_BYTES + 1) + ID_BYTES])) return 0;
    q += (size_t)n * (ID_BYTES + 1);
    return (size_t)(q - p);
}

/* Bytes of the sub-record at p; 0 when it cannot be read or passes `end`. */
static size_t sub_size(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *b = p + 1;
    uint64_t avail = (uint64_t)(end - b), need, n;
    switch (p[0]) {
    case HD_ROOT_UNKNOWN:
    case HD_ROOT_STICKY_CLASS:
    case HD_ROOT_MONITOR_USED: need = ID_BYTES; break;
    case HD_ROOT_JNI_GLOBAL: need = 2 * ID_BYTES; break;
    case HD_ROOT_JNI_LOCAL:
    case HD_ROOT_JAVA_FRAME:
    case HD_ROOT_THREAD_OBJECT: need = ID_BYTES + 8; break;
    case HD_ROOT_NATIVE_STACK:
    case HD_ROOT_THREAD_BLOCK: need = ID_BYTES + 4; break;
    case HD_CLASS_DUMP:
        if (avail < ID_BYTES) return 0;
        need = class_dump_size(b + ID_BYTES, end);
        if (!need) return 0;
        need += ID_BYTES;
        break;
    case HD_INSTANCE_DUMP:
        if (avail < 2 * ID_BYTES + 8) return 0;
        need = 2 * ID_BYTES + 8 + (uint64_t)be_load_u4(b + 2 * ID_BYTES + 4);
        break;
    case HD_OBJ_ARRAY_DUMP:
        if (avail < 2 * ID_BYTES + 8) return 0;
        need = 2 * ID_BYTES + 8 + (uint64_t)be_load_u4(b + ID_BYTES + 4) * ID_BYTES;
        break;
    case HD_PRIM_ARRAY_DUMP: {
        if (avail < ID_BYTES + 9) return 0;
        unsigned t = b[ID_BYTES + 8], sz = jd_src_size(t);
        if (!sz || t == HD_OBJECT) return 0;
        n = be_load_u4(b + ID_BYTES + 4);
        need = ID_BYTES + 9 + n * sz;
        break;
    }
    default: return 0;
    }
    return need <= avail ? (size_t)(1 + need) : 0;
}

/* ---- walking them ---- */

#define RELEASE_STEP ((size_t)64 << 20)

/* Hands back the pages before p, 64 MiB at a time: madvise, or when the writing pass
 * may (jdr_discard_behind), the file's blocks freed. */
static void release_before(struct jdr *r, const uint8_t *p, const uint8_t **done)
{
    if (!r->release || (size_t)(p - *done) < RELEASE_STEP) return;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t from = (uintptr_t)*done & ~(uintptr_t)(page - 1), to = (uintptr_t)p & ~(uintptr_t)(page - 1);
    if (to <= from) return;
    /* Freeing the blocks also drops the pages: the kernel can give them straight to the
     * output being written, instead of finding new memory for it. */
    if (!r->discarding ||
        fallocate(r->discard_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(from - (uintptr_t)r->data),
                  (off_t)(to - from)) != 0)
        madvise((void *)from, to - from, MADV_DONTNEED);
    *done = (const uint8_t *)to;
}

bool jd_next_record(struct jdr *r, const uint8_t **p, const uint8_t *end, unsigned *tag, const uint8_t **body,
                    uint32_t *n)
{
    if (end - *p < 9) return jd_fail(r, "a record header is cut short");
    *tag = (*p)[0];
    *n = be_load_u4(*p + 5);
    *body = *p + 9;
    if ((size_t)(end - *body) < *n) return jd_fail(r, "a record passes the end of the file");
    *p = *body + *n;
    return true;
}

bool jd_each_sub(struct jdr *r, bool (*fn)(struct jdr *r, const uint8_t *p))
{
    const uint8_t *p = r->data + r->body, *end = r->data + r->len, *done = r->data;
    while (p < end) {
        unsigned tag;
        const uint8_t *b;
        uint32_t n;
        if (!jd_next_record(r, &p, end, &tag, &b, &n)) return false;
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            for (const uint8_t *q = b, *qe = b + n; q < qe;) {
                size_t m = sub_size(q, qe);
                if (!m) return jd_fail(r, "a heap dump sub-record it cannot read");
                if (!fn(r, q)) return false;
                q += m;
                release_before(r, q, &done);
            }
        }
    }
    return true;
}

char *jd_string(const struct jdr *r, uint64_t id)
{
    uint64_t at;
    if (!idmap_get(&r->strings, id, &at)) return strdup("?");
    const uint8_t *p = r->data + at;
    size_t n = be_load_u4(p + 5) - ID_BYTES;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p + 9 + ID_BYTES, n);
    s[n] = 0;
    return s;
}
