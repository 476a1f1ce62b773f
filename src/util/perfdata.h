/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JVM's jvmstat counters ("perfdata"): the memory HotSpot publishes for monitoring
 * tools (jstat, VisualVM), a file /tmp/hsperfdata_<user>/<pid> that the JVM maps and
 * keeps up to date. The agent maps the same file read-only and reads the heap figures
 * there: no call into the JVM, so it can be done from a GC callback, and nothing is
 * loaded or allocated in the profiled program (MemoryMXBean would load the management
 * classes and make objects that heap=sites would count).
 *
 * Layout (HotSpot's, little-endian here; its names are private to HotSpot and may
 * change, so every lookup may fail and callers must do without):
 *   prologue (32 bytes): u4 magic 0xcafec0c0 (bytes CA FE C0 C0), u1 byte order
 *     (1 little), u1 major, u1 minor, u1 accessible, i4 used, i4 overflow,
 *     i8 modification time, i4 offset of the first entry, i4 number of entries
 *   entries, one after another: i4 entry length, i4 name offset, i4 vector length
 *     (0 for a scalar), u1 type ('J' long, 'B' byte ...), u1 flags, u1 units,
 *     u1 variability, i4 data offset; offsets from the entry's start; name NUL-ended.
 * Entries are only ever added (the JVM appends and then raises the count), so a lookup
 * that misses is tried again over the new ones.
 *
 * Pure C: the parser is unit-tested and fuzzed on made-up buffers.
 */
#ifndef HPROF_PERFDATA_H
#define HPROF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERFDATA_MAX_SPACES 16

struct perfdata {
    const unsigned char *base;
    size_t len;
    size_t mapped; /* bytes mapped by perfdata_map (0: not ours) */
    /* The heap's figures: every sun.gc.generation.<g>.space.<s>.used (the spaces do not
     * overlap) and every sun.gc.generation.<g>.capacity (committed). */
    const volatile int64_t *used[PERFDATA_MAX_SPACES];
    const volatile int64_t *committed[PERFDATA_MAX_SPACES];
    int nused, ncommitted;
    uint32_t scanned;  /* entries looked at so far */
    size_t next_entry; /* offset of the first entry not looked at */
};

/* Reads the prologue of the buffer and the entries it has; false if it is not one. */
bool perfdata_open(struct perfdata *p, const void *base, size_t len);
/* The long counter of that name, or NULL (looked for among every entry). */
const volatile int64_t *perfdata_long(struct perfdata *p, const char *name);
/* Heap used and committed, in bytes; false when no counter was found. Safe anywhere
 * (memory reads only), a GC callback included. */
bool perfdata_heap(struct perfdata *p, uint64_t *used, uint64_t *committed);

/* Maps this process's own jvmstat file read-only (found in /proc/self/maps, where
 * the JVM mapped it) and opens it. false when the JVM keeps none (-XX:-UsePerfData,
 * -XX:+PerfDisableSharedMem) or it cannot be read. */
bool perfdata_map_self(struct perfdata *p);
/* Lets go of what perfdata_map_self mapped. */
void perfdata_unmap(struct perfdata *p);

#endif
