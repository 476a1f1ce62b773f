/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A reader of HotSpot's jvmstat (hsperfdata) buffer: the memory-mapped file a JVM keeps
 * at /tmp/hsperfdata_<user>/<pid> with its performance counters, which tools read
 * without touching the process (see ../shared/spec/hotspot-serviceability.txt).
 *
 * Pure and bounded: it reads only the bytes it is given, as outside input that may be
 * truncated, stale, from another byte order or made up. A JVM updates its counters while
 * we read, so callers take a copy first; nothing here writes.
 *
 * Two readers use it: hprof list/stat (a copy of another JVM's file) and util/perfdata.c
 * (the agent's own JVM's, mapped live), which decodes its entries with jvmstat_entry_at.
 *
 * Layout: a 32-byte prologue (magic 0xcafec0c0 as bytes, byte order, version,
 * accessible flag, bytes used, overflow, modification time, offset of the first entry,
 * number of entries), then entries of a 20-byte header (length, name offset, vector
 * length, type, flags, units, variability, data offset), the name (NUL-terminated) and
 * the data: a long for 'J' scalars, a byte vector for strings.
 */
#ifndef HPROF_JVMSTAT_H
#define HPROF_JVMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JVMSTAT_PROLOGUE_SIZE 32
#define JVMSTAT_ENTRY_HEADER  20

struct jvmstat {
    const uint8_t *data;
    size_t len; /* the bytes that may be read: min(given, used) */
    bool big_endian;
    uint8_t major, minor;
    bool accessible;
    uint32_t entry_offset;
    uint32_t num_entries;
};

struct jvmstat_entry {
    const char *name;       /* NUL-terminated inside the buffer */
    char type;              /* 'J' long, 'B' byte vector (strings), others as found */
    uint32_t vector_length; /* 0 for a scalar */
    uint8_t units;          /* 1 none, 2 bytes, 3 ticks, 4 events, 5 string, 6 hertz */
    uint8_t variability;    /* 1 constant, 2 monotonic, 3 variable */
    const uint8_t *value;   /* the data: 8 bytes for a 'J' scalar, vector_length bytes else */
    size_t value_len;
};

/* Checks the prologue. 0, or -1 with a sentence in err (not a jvmstat buffer, a version
 * we do not know, a JVM still starting). */
int jvmstat_open(struct jvmstat *j, const uint8_t *data, size_t len, char *err, size_t errlen);

/* The entry at byte offset off of data[0, len) (of that byte order): true, its length in
 * *elen, when it is whole and sane (header, name and value inside it). */
bool jvmstat_entry_at(const uint8_t *data, size_t len, bool big_endian, size_t off, struct jvmstat_entry *e,
                      uint32_t *elen);

/* The entries in order: *pos starts at 0 and is advanced; false at the end or at the
 * first entry that does not fit (the rest is not read). */
bool jvmstat_next(const struct jvmstat *j, uint32_t *pos, uint32_t *index, struct jvmstat_entry *e);

/* A 'J' scalar's value. */
bool jvmstat_long(const struct jvmstat *j, const char *name, int64_t *out);
int64_t jvmstat_long_or(const struct jvmstat *j, const char *name, int64_t dflt);

/* A byte vector as a string, cut at its first NUL and at out's size; false if absent. */
bool jvmstat_string(const struct jvmstat *j, const char *name, char *out, size_t outlen);

/* How long the JVM has run, in ms, at now_ms (ms since the epoch): from the high-res
 * ticks where the JVM keeps them (sun.os.hrt.ticks, only while its sampler runs), else
 * from its start time (sun.rt.createVmBeginTime); -1 when neither is there. */
long long jvmstat_uptime_ms(const struct jvmstat *j, long long now_ms);

/* The sum of every 'J' scalar whose name starts with prefix and ends with suffix. */
int64_t jvmstat_sum(const struct jvmstat *j, const char *prefix, const char *suffix);

#endif
