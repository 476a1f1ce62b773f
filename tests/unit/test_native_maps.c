/* SPDX-License-Identifier: Apache-2.0 */
/* The memory-map table (native_maps.c) on this process's own map and on hostile text,
 * and the publication of tables to signal handlers (native_publish.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "native/native_maps.h"
#include "native/native_publish.h"
#include "unit.h"

static void test_self(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + page, (size_t)page); /* a hole between two readable pages */
    int local = 1;
    struct nm_maps m;
    CHECK(nm_maps_read_self(&m) == 0 && m.nranges > 5, "maps: this process's map read (%zu ranges)", m.nranges);
    const struct nm_range *stack = nm_maps_find(&m, (uintptr_t)&local);
    CHECK(stack && strcmp(nm_maps_path(&m, stack), "[stack]") == 0, "maps: a local variable is on [stack]");
    CHECK(nm_maps_readable(&m, (uintptr_t)&local, sizeof local), "maps: the stack is readable");
    const struct nm_range *libc = nm_maps_find(&m, (uintptr_t)&getpid);
    CHECK(libc && strstr(nm_maps_path(&m, libc), "libc") && (libc->perms & NM_PERM_X),
          "maps: getpid is in libc's code");
    CHECK(nm_maps_readable(&m, (uintptr_t)p, (size_t)page), "maps: a mapped page is readable");
    CHECK(!nm_maps_readable(&m, (uintptr_t)p + (size_t)page, 8), "maps: an unmapped page is not");
    CHECK(!nm_maps_readable(&m, (uintptr_t)p, (size_t)page + 8), "maps: a read running into the hole is not");
    CHECK(!nm_maps_readable(&m, 0, 8) && !nm_maps_readable(&m, UINTPTR_MAX - 4, 8),
          "maps: address 0 and the top are not");
    int sorted = 1;
    for (size_t i = 1; i < m.nranges; i++) sorted &= m.ranges[i - 1].end <= m.ranges[i].start;
    for (size_t i = 1; i < m.nspans; i++) sorted &= m.spans[i - 1].end < m.spans[i].start;
    CHECK(sorted, "maps: ranges sorted apart, spans sorted and merged");
    nm_maps_free(&m);
    munmap(p, (size_t)page);
    munmap(p + 2 * page, (size_t)page);
}

static void test_hostile(void)
{
    char longpath[NM_MAX_PATH + 200];
    memset(longpath, 'x', sizeof longpath - 1);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = 0;
    char text[NM_MAX_PATH + 2000];
    snprintf(text, sizeof text,
             "garbage\n"
             "\n"
             "5000-6000 r-xp 00001000 08:01 42 /lib/with space.so (deleted)\n"
             "3000-4000 rw-p 00000000 00:00 0 \n"
             "2000-3000 r--p 00000000 00:00 0\n"
             "2000-1000 r--p 00000000 00:00 0 /backwards\n"
             "10000000000000000-10000000000000001 r--p 0 0 0 /seventeen-digits\n"
             "2800-2900 r--p 00000000 00:00 0 /overlaps\n"
             "7000-8000 ---p 00000000 00:00 0 /guard\n"
             "8000-9000 r--p 00000000 00:00 0 [vvar]\n"
             "a000-b000 r--p 0 0 0 %s\n"
             "9000-a000 r--p 00000000 00:00 0 [vdso]\n"
             "c000-d000 r--", /* cut short, no newline */
             longpath);
    struct nm_maps m;
    CHECK(nm_maps_parse(text, strlen(text), &m) == 0, "maps: hostile text parses");
    CHECK(m.nranges == 5, "maps: the 5 good readable lines kept (%zu)", m.nranges);
    CHECK(m.skipped == 5, "maps: garbage, backwards, 17 digits, the overlap and the cut line skipped (%zu)", m.skipped);
    CHECK(nm_maps_readable(&m, 0x2ff8, 16), "maps: touching readable ranges are one span");
    CHECK(!nm_maps_readable(&m, 0x7000, 8) && !nm_maps_readable(&m, 0x8000, 8),
          "maps: no access and [vvar] are unreadable");
    const struct nm_range *r = nm_maps_find(&m, 0x5800);
    CHECK(r && strcmp(nm_maps_path(&m, r), "/lib/with space.so (deleted)") == 0 && r->offset == 0x1000,
          "maps: a path with spaces and its offset");
    r = nm_maps_find(&m, 0xa000);
    CHECK(r && strlen(nm_maps_path(&m, r)) == NM_MAX_PATH, "maps: a long path cut to %d", NM_MAX_PATH);
    nm_maps_free(&m);
    CHECK(nm_maps_parse("", 0, &m) == 0 && m.nranges == 0 && !nm_maps_readable(&m, 0x1000, 1), "maps: empty text");
    nm_maps_free(&m);
}

/* ---- publication ---- */

#define MAGIC 0x5ca1ab1eu
struct table {
    unsigned magic;
    int id;
};
static atomic_int freed;

static void free_table(void *p)
{
    struct table *t = p;
    t->magic = 0xdeadu; /* a reader that sees this read a freed table */
    atomic_fetch_add(&freed, 1);
    free(t);
}

static struct table *new_table(int id)
{
    struct table *t = malloc(sizeof *t);
    t->magic = MAGIC;
    t->id = id;
    return t;
}

static struct native_publish pub;
static atomic_int stop_readers, bad_reads, reads;

static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_readers)) {
        struct np_reader r;
        struct table *t = np_enter(&pub, &r);
        if (t) {
            for (int i = 0; i < 50; i++)
                if (((volatile struct table *)t)->magic != MAGIC) atomic_fetch_add(&bad_reads, 1);
            atomic_fetch_add(&reads, 1);
        }
        np_leave(&pub, &r);
    }
    return NULL;
}

static void test_publish(void)
{
    np_init(&pub, free_table);
    np_publish(&pub, new_table(1));
    np_publish(&pub, new_table(2));
    CHECK(atomic_load(&freed) == 1, "publish: the replaced table freed when no reader is in");
    struct np_reader r;
    struct table *held = np_enter(&pub, &r);
    np_publish(&pub, new_table(3));
    CHECK(atomic_load(&freed) == 1 && pub.nretired == 1 && held->magic == MAGIC && held->id == 2,
          "publish: a table a reader holds is retired, not freed");
    np_leave(&pub, &r);
    np_publish(&pub, new_table(4));
    CHECK(atomic_load(&freed) == 3 && pub.nretired == 0, "publish: retired and replaced tables freed once it left");
    np_destroy(&pub);
    CHECK(atomic_load(&freed) == 4, "publish: destroy frees the current one");

    atomic_store(&freed, 0);
    np_init(&pub, free_table);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, reader, NULL);
    int published = 0; /* at least 3000, and until the readers have read a while */
    while (published < 3000 || (atomic_load(&reads) < 20000 && published < 200000))
        np_publish(&pub, new_table(published++));
    atomic_store(&stop_readers, 1);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    np_destroy(&pub);
    CHECK(atomic_load(&bad_reads) == 0 && atomic_load(&reads) > 0,
          "publish: 2 readers, %d publications: %d reads, none of a freed table", published, atomic_load(&reads));
    CHECK(atomic_load(&freed) == published, "publish: every table freed in the end (%d)", atomic_load(&freed));
}

int main(void)
{
    test_self();
    test_hostile();
    test_publish();
    return UNIT_DONE();
}
