/* SPDX-License-Identifier: Apache-2.0 */
/* The jvmstat buffer reader (jvmstat.h): every offset is checked against the length. */
#include "util/jvmstat.h"

#include <stdio.h>
#include <string.h>

static uint32_t get32(const uint8_t *p, bool big_endian)
{
    return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                      : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t u32(const struct jvmstat *j, const uint8_t *p) { return get32(p, j->big_endian); }

static uint64_t u64(const struct jvmstat *j, const uint8_t *p)
{
    uint64_t hi = u32(j, j->big_endian ? p : p + 4), lo = u32(j, j->big_endian ? p + 4 : p);
    return hi << 32 | lo;
}

int jvmstat_open(struct jvmstat *j, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    /* The magic is written so that its bytes read ca fe c0 c0 in either byte order. */
    static const uint8_t magic[4] = {0xca, 0xfe, 0xc0, 0xc0};
    if (!data || len < JVMSTAT_PROLOGUE_SIZE || memcmp(data, magic, 4) != 0) {
        snprintf(err, errlen, "not a jvmstat (hsperfdata) file");
        return -1;
    }
    if (data[4] > 1) {
        snprintf(err, errlen, "unknown byte order %u in the jvmstat file", data[4]);
        return -1;
    }
    j->data = data;
    j->big_endian = data[4] == 0;
    j->major = data[5];
    j->minor = data[6];
    j->accessible = data[7] != 0;
    if (j->major != 2) {
        snprintf(err, errlen, "jvmstat version %u.%u is not one this tool reads (2.x)", j->major, j->minor);
        return -1;
    }
    if (!j->accessible) {
        snprintf(err, errlen, "the JVM has not finished setting up its jvmstat counters");
        return -1;
    }
    uint32_t used = u32(j, data + 8);
    j->len = used < len ? used : len;
    j->entry_offset = u32(j, data + 24);
    j->num_entries = u32(j, data + 28);
    if (j->entry_offset < JVMSTAT_PROLOGUE_SIZE || j->entry_offset > j->len) {
        snprintf(err, errlen, "the jvmstat file's first entry lies outside it");
        return -1;
    }
    return 0;
}

/* The NUL-terminated name at [p, end), or NULL if it does not end before end. */
static const char *bounded_name(const uint8_t *p, const uint8_t *end)
{
    if (p >= end) return NULL;
    return memchr(p, 0, (size_t)(end - p)) ? (const char *)p : NULL;
}

bool jvmstat_entry_at(const uint8_t *data, size_t len, bool big_endian, size_t off, struct jvmstat_entry *e,
                      uint32_t *elen)
{
    if (off > len || len - off < JVMSTAT_ENTRY_HEADER) return false;
    const uint8_t *h = data + off;
    uint32_t n = get32(h, big_endian), name_off = get32(h + 4, big_endian), vlen = get32(h + 8, big_endian),
             data_off = get32(h + 16, big_endian);
    if (n < JVMSTAT_ENTRY_HEADER || n > len - off) return false;
    if (name_off < JVMSTAT_ENTRY_HEADER || name_off >= n || data_off < JVMSTAT_ENTRY_HEADER || data_off > n)
        return false;
    memset(e, 0, sizeof *e);
    e->name = bounded_name(h + name_off, h + n);
    if (!e->name) return false;
    e->type = (char)h[12];
    e->units = h[14];
    e->variability = h[15];
    e->vector_length = vlen;
    e->value = h + data_off;
    e->value_len = vlen ? vlen : e->type == 'J' ? 8 : 0;
    if (e->value_len > n - data_off) return false;
    *elen = n;
    return true;
}

bool jvmstat_next(const struct jvmstat *j, uint32_t *pos, uint32_t *index, struct jvmstat_entry *e)
{
    if (*pos == 0) {
        *pos = j->entry_offset;
        *index = 0;
    }
    uint32_t n;
    if (*index >= j->num_entries || !jvmstat_entry_at(j->data, j->len, j->big_endian, *pos, e, &n)) return false;
    *pos += n;
    (*index)++;
    return true;
}

/* The entry of that name, or false. */
static bool jvmstat_find(const struct jvmstat *j, const char *name, struct jvmstat_entry *e)
{
    uint32_t pos = 0, index = 0;
    while (jvmstat_next(j, &pos, &index, e))
        if (strcmp(e->name, name) == 0) return true;
    return false;
}

static bool long_value(const struct jvmstat *j, const struct jvmstat_entry *e, int64_t *out)
{
    if (e->type != 'J' || e->vector_length != 0 || e->value_len != 8) return false;
    *out = (int64_t)u64(j, e->value);
    return true;
}

bool jvmstat_long(const struct jvmstat *j, const char *name, int64_t *out)
{
    struct jvmstat_entry e;
    return jvmstat_find(j, name, &e) && long_value(j, &e, out);
}

int64_t jvmstat_long_or(const struct jvmstat *j, const char *name, int64_t dflt)
{
    int64_t v;
    return jvmstat_long(j, name, &v) ? v : dflt;
}

bool jvmstat_string(const struct jvmstat *j, const char *name, char *out, size_t outlen)
{
    struct jvmstat_entry e;
    if (outlen == 0 || !jvmstat_find(j, name, &e) || e.type != 'B' || e.vector_length == 0) return false;
    size_t n = e.value_len;
    const uint8_t *nul = memchr(e.value, 0, n);
    if (nul) n = (size_t)(nul - e.value);
    if (n >= outlen) n = outlen - 1;
    memcpy(out, e.value, n);
    out[n] = 0;
    return true;
}

int64_t jvmstat_sum(const struct jvmstat *j, const char *prefix, const char *suffix)
{
    struct jvmstat_entry e;
    uint32_t pos = 0, index = 0;
    size_t np = strlen(prefix), ns = strlen(suffix);
    uint64_t sum = 0; /* unsigned: made-up values may overflow, harmlessly */
    int64_t v;
    while (jvmstat_next(j, &pos, &index, &e)) {
        size_t n = strlen(e.name);
        if (n < np + ns || strncmp(e.name, prefix, np) != 0 || strcmp(e.name + n - ns, suffix) != 0) continue;
        if (long_value(j, &e, &v)) sum += (uint64_t)v;
    }
    return (int64_t)sum;
}

long long jvmstat_uptime_ms(const struct jvmstat *j, long long now_ms)
{
    int64_t ticks = 0, hz = 0, begin = 0;
    if (jvmstat_long(j, "sun.os.hrt.ticks", &ticks) && jvmstat_long(j, "sun.os.hrt.frequency", &hz) && hz > 0 &&
        ticks > 0)
        return (long long)((double)ticks * 1000.0 / (double)hz);
    if (jvmstat_long(j, "sun.rt.createVmBeginTime", &begin) && begin > 0 && begin <= now_ms) return now_ms - begin;
    return -1;
}
