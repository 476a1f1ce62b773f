/* SPDX-License-Identifier: Apache-2.0 */
#include "util/perfdata.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/jvmstat.h"

#define PROLOGUE JVMSTAT_PROLOGUE_SIZE

static int32_t i4(const unsigned char *b)
{
    uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return (int32_t)v;
}

bool perfdata_open(struct perfdata *p, const void *base, size_t len)
{
    size_t mapped = p->mapped;
    memset(p, 0, sizeof *p);
    p->mapped = mapped;
    const unsigned char *b = base;
    /* The magic is written big-endian whatever the byte order; only little-endian
     * buffers (x86-64, aarch64) are read. */
    if (!b || len < PROLOGUE || b[0] != 0xca || b[1] != 0xfe || b[2] != 0xc0 || b[3] != 0xc0 || b[4] != 1) return false;
    int32_t first = i4(b + 24);
    if (first < PROLOGUE || (size_t)first > len) return false;
    p->base = b;
    p->len = len;
    p->next_entry = (size_t)first;
    return true;
}

/* Does name read prefix<digits>suffix? */
static bool numbered(const char *name, const char *prefix, const char *middle, const char *suffix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0) return false;
    name += n;
    if (*name < '0' || *name > '9') return false;
    while (*name >= '0' && *name <= '9') name++;
    if (middle) {
        n = strlen(middle);
        if (strncmp(name, middle, n) != 0) return false;
        name += n;
        if (*name < '0' || *name > '9') return false;
        while (*name >= '0' && *name <= '9') name++;
    }
    return strcmp(name, suffix) == 0;
}

/* The entry at off: its name and the address of its long value (NULL if it is not a
 * scalar long, or not 8-aligned); its length, 0 when the entry is not whole or not sane. */
static size_t entry_at(const struct perfdata *p, size_t off, const char **name, const volatile int64_t **value)
{
    struct jvmstat_entry e;
    uint32_t n;
    if (!jvmstat_entry_at(p->base, p->len, false, off, &e, &n)) return 0;
    *name = e.name;
    *value = NULL;
    if (e.type == 'J' && e.vector_length == 0 && ((uintptr_t)e.value & 7) == 0)
        *value = (const volatile int64_t *)(const void *)e.value;
    return n;
}

/* Looks at the entries added since the last scan, keeping the heap's counters. */
static void scan(struct perfdata *p)
{
    uint32_t count = (uint32_t)i4(p->base + 28);
    while (p->scanned < count) {
        const char *name;
        const volatile int64_t *v;
        size_t n = entry_at(p, p->next_entry, &name, &v);
        if (!n) return;
        if (v && numbered(name, "sun.gc.generation.", ".space.", ".used") && p->nused < PERFDATA_MAX_SPACES)
            p->used[p->nused++] = v;
        else if (v && numbered(name, "sun.gc.generation.", NULL, ".capacity") && p->ncommitted < PERFDATA_MAX_SPACES)
            p->committed[p->ncommitted++] = v;
        p->next_entry += n;
        p->scanned++;
    }
}

const volatile int64_t *perfdata_long(struct perfdata *p, const char *name)
{
    if (!p->base) return NULL;
    scan(p);
    size_t off = (size_t)i4(p->base + 24);
    for (uint32_t i = 0; i < p->scanned; i++) {
        const char *n;
        const volatile int64_t *v;
        size_t len = entry_at(p, off, &n, &v);
        if (!len) return NULL;
        if (v && strcmp(n, name) == 0) return v;
        off += len;
    }
    return NULL;
}

bool perfdata_heap(struct perfdata *p, uint64_t *used, uint64_t *committed)
{
    *used = *committed = 0;
    if (!p->base) return false;
    if (!p->nused) scan(p);
    for (int i = 0; i < p->nused; i++) *used += (uint64_t)*p->used[i];
    for (int i = 0; i < p->ncommitted; i++) *committed += (uint64_t)*p->committed[i];
    return p->nused > 0;
}

/* The path of the file the JVM mapped as its jvmstat memory, from /proc/self/maps. */
static bool find_own_file(char *path, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return false;
    char line[4096], want[32];
    snprintf(want, sizeof want, "/%ld", (long)getpid());
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *at = strstr(line, "/hsperfdata_");
        char *slash = strrchr(line, '/');
        if (!at || !slash || strcmp(slash, want) != 0) continue;
        char *start = strchr(line, '/');
        found = snprintf(path, len, "%s", start) < (int)len;
    }
    fclose(f);
    return found;
}

bool perfdata_map_self(struct perfdata *p)
{
    char path[4096];
    memset(p, 0, sizeof *p);
    if (!find_own_file(path, sizeof path)) return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    void *m = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size >= PROLOGUE) m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return false;
    p->mapped = (size_t)st.st_size;
    if (perfdata_open(p, m, (size_t)st.st_size)) return true;
    munmap(m, (size_t)st.st_size);
    p->mapped = 0;
    return false;
}

void perfdata_unmap(struct perfdata *p)
{
    if (p->mapped) munmap((void *)p->base, p->mapped);
    memset(p, 0, sizeof *p);
}
