/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-thread records found by Linux thread ID, for signal handlers: a handler knows only
 * which thread it runs on (gettid), and must find that thread's record without a lock or
 * an allocation.
 *
 * A fixed array of records, open addressing on the thread ID. Each record starts with a
 * struct tid_entry; the rest (entry_size bytes in all) is the caller's. Records are never
 * freed while the map lives: a thread's record is marked free when it ends and reused by
 * a later thread, so a reader that still holds a pointer reads stale but valid memory.
 *
 * Only a thread itself adds or removes its own record (at its start and end), so no two
 * writers ever race for the same thread ID; a free record is taken by compare-and-swap.
 * Lookups are async-signal-safe (atomic loads only).
 */
#ifndef HPROF_TID_MAP_H
#define HPROF_TID_MAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TID_FREE 0    /* never used: ends a probe */
#define TID_DEAD (-1) /* used before, free now: a probe goes past it */

struct tid_entry {
    _Atomic int32_t tid;  /* a thread ID, TID_FREE or TID_DEAD */
    _Atomic int32_t live; /* 1 once the caller's part is filled in, 0 while it is not */
};

struct tid_map {
    unsigned char *entries;
    size_t entry_size;
    size_t mask;         /* capacity - 1 */
    _Atomic size_t used; /* live records (a hint) */
};

/* capacity is rounded up to a power of two; entry_size >= sizeof(struct tid_entry). */
int tid_map_init(struct tid_map *m, size_t capacity, size_t entry_size);
void tid_map_destroy(struct tid_map *m);

/* The record of tid, taken (tid must be the caller's own thread, > 0). Its caller's part
 * is zeroed when the record is new or was free; mark it live with tid_map_publish once
 * filled. NULL when the map is full. */
struct tid_entry *tid_map_add(struct tid_map *m, int32_t tid);
void tid_map_publish(struct tid_entry *e);
/* Async-signal-safe: the live record of tid, or NULL. */
struct tid_entry *tid_map_find(struct tid_map *m, int32_t tid);
/* The thread has ended: its record is free for another. */
void tid_map_remove(struct tid_map *m, struct tid_entry *e);

/* Walks every record (live or not): index 0 .. capacity-1. */
size_t tid_map_capacity(const struct tid_map *m);
struct tid_entry *tid_map_at(struct tid_map *m, size_t i);

#endif
