/* SPDX-License-Identifier: Apache-2.0 */
/* The small generic pieces: names, buffers, the concurrent map, the registry, whole
 * writes to a file descriptor. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util/buf.h"
#include "util/cmap.h"
#include "util/env.h"
#include "util/fd_io.h"
#include "util/names.h"
#include "util/pacer.h"
#include "util/rank.h"
#include "util/registry.h"

struct entry {
    struct cmap_node node;
    long key;
};

static bool entry_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct entry *)n)->key == *(const long *)key;
}

static struct cmap_node *entry_make(const void *key, void *ctx)
{
    struct entry *e = calloc(1, sizeof *e);
    e->key = *(const long *)key;
    registry_add(ctx, e);
    return &e->node;
}

static bool odd_key(const struct cmap_node *n, void *ctx) { return (((const struct entry *)n)->key & 1) != 0; }

static struct cmap map;
static struct registry reg;

static void *hammer(void *arg)
{
    for (long i = 0; i < 20000; i++) {
        long k = i % 5000;
        cmap_intern(&map, hash_mix64((uint64_t)k), &k, entry_eq, entry_make, &reg, NULL);
    }
    return NULL;
}

/* 1 MiB through a pipe (64 KiB of buffer): written whole though each write(2) takes
 * part, and copied whole by fd_copy on the other end. */
enum { PIPE_BYTES = 1 << 20 };
static int pipe_fds[2];
static void *pipe_writer(void *arg)
{
    unsigned char *data = malloc(PIPE_BYTES);
    for (int i = 0; i < PIPE_BYTES; i++) data[i] = (unsigned char)(i * 7);
    *(int *)arg = fd_write_all(pipe_fds[1], data, PIPE_BYTES);
    close(pipe_fds[1]);
    free(data);
    return NULL;
}

/* A thread in rounds with a pause of a minute between them. */
static struct pacer pace;
static int rounds;
static void *paced(void *arg)
{
    while (pacer_pause(&pace, 60000)) rounds++;
    pacer_end(&pace);
    return NULL;
}

/* pacer: a stop cuts the pause short and the thread ends, so pacer_stop finds it ended
 * (waiting a minute would be needed otherwise); a start while it runs is refused. */
static void test_pacer(void)
{
    pacer_init(&pace);
    CHECK(pacer_begin(&pace) && !pacer_begin(&pace), "a paced thread is begun once while it runs");
    pthread_t t;
    pthread_create(&t, NULL, paced, NULL);
    pacer_stop(&pace, 30000);
    bool ended = !pace.running;
    pthread_join(t, NULL);
    CHECK(ended && rounds == 0 && !pacer_pause(&pace, 60000), "a stop cuts the pause short, no round runs after it");
    CHECK(pacer_begin(&pace) && !pace.stop, "begun again after its end");
}

static void test_fd_io(void)
{
    int sink[2], wrote = -1;
    CHECK(pipe(pipe_fds) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sink) == 0, "a pipe and a socket pair");
    pthread_t w;
    pthread_create(&w, NULL, pipe_writer, &wrote);
    char path[] = "/tmp/hprof-test-fdio-XXXXXX";
    int out = mkstemp(path);
    unlink(path);
    int copied = fd_copy(pipe_fds[0], out);
    pthread_join(w, NULL);
    CHECK(wrote == 0 && copied == 0 && lseek(out, 0, SEEK_END) == PIPE_BYTES,
          "fd_write_all and fd_copy: 1 MiB whole through a 64 KiB pipe");
    close(out);
    close(pipe_fds[0]);
    close(sink[1]); /* the peer has gone: EPIPE, not SIGPIPE */
    CHECK(fd_send_all(sink[0], "x", 1) == -1, "fd_send_all to a peer that has gone fails without a signal");
    close(sink[0]);
}

/* fd_write_file: 0600 under umask 022, and a link at the destination is replaced, never
 * followed (the file it names keeps its bytes). */
static void test_write_file(void)
{
    char dir[] = "/tmp/hprof-test-wf-XXXXXX";
    if (!mkdtemp(dir)) return;
    char victim[64], path[64], got[16] = "";
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(path, sizeof path, "%s/view.html", dir);
    FILE *f = fopen(victim, "w");
    fputs("secret", f);
    fclose(f);
    CHECK(symlink(victim, path) == 0, "a link planted at the destination");
    mode_t old = umask(022);
    int rc = fd_write_file(path, "page", 4);
    umask(old);
    struct stat st;
    CHECK(rc == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
          "fd_write_file: a regular file of mode 0600 in place of the link");
    f = fopen(victim, "r");
    if (f) {
        if (!fgets(got, sizeof got, f)) got[0] = 0;
        fclose(f);
    }
    CHECK(strcmp(got, "secret") == 0, "fd_write_file: the file the link named is untouched");
    char *tmp = NULL;
    int fd = fd_temp_beside(path, &tmp);
    CHECK(fd >= 0 && tmp && strncmp(tmp, path, strlen(path)) == 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600,
          "fd_temp_beside: a new 0600 file beside the path");
    if (fd >= 0) close(fd);
    if (tmp) unlink(tmp);
    free(tmp);
    unlink(path);
    unlink(victim);
    rmdir(dir);
}

/* CPU TIME's rule: a row stays when its time or its calls reach the cutoff's share,
 * wherever it ranks by time; the rows left out follow the kept ones, in order. */
struct trow {
    uint64_t ns, calls;
    int id;
};
static int by_ns_desc(const void *x, const void *y)
{
    const struct trow *a = x, *b = y;
    if (a->ns != b->ns) return a->ns < b->ns ? 1 : -1;
    return (a->calls < b->calls) - (a->calls > b->calls);
}
static uint64_t ns_of(const void *r) { return ((const struct trow *)r)->ns; }
static uint64_t calls_of(const void *r) { return ((const struct trow *)r)->calls; }

static void test_rank_either(void)
{
    /* 1: much time, few calls; 2: little time, few calls (cut); 3: no time, many calls
     * (a trivial method); 4: no time, one call (cut); 5: some time, some calls */
    struct trow rows[] = {{10, 1, 2}, {0, 1, 4}, {1000000, 3, 1}, {0, 54321, 3}, {5000, 321, 5}};
    uint64_t ns = 0, calls = 0;
    for (int i = 0; i < 5; i++) ns += rows[i].ns, calls += rows[i].calls;
    struct rank_weight w[2] = {{ns_of, ns}, {calls_of, calls}};
    size_t kept = rank_rows_either(rows, 5, sizeof rows[0], by_ns_desc, w, 0.001);
    char got[64];
    snprintf(got, sizeof got, "%zu:%d,%d,%d,%d,%d", kept, rows[0].id, rows[1].id, rows[2].id, rows[3].id, rows[4].id);
    CHECK_STR(got, "3:1,5,3,2,4", "rank_rows_either keeps rows by time or by calls, the cut ones after them");
    struct rank_weight none[2] = {{ns_of, 0}, {calls_of, calls}};
    kept = rank_rows_either(rows, 5, sizeof rows[0], by_ns_desc, none, 0.001);
    CHECK(kept == 2 && rows[0].id == 5 && rows[1].id == 3,
          "no time at all (gprof, no sample): the rows with many calls are kept (%zu)", kept);
    kept = rank_rows_either(rows, 5, sizeof rows[0], by_ns_desc, w, 0);
    CHECK(kept == 5, "cutoff=0 keeps every row (%zu)", kept);
}

int main(void)
{
    test_rank_either();
    test_fd_io();
    test_write_file();
    unsetenv("HPROF_TEST_SWITCH");
    CHECK(env_switch("HPROF_TEST_SWITCH", true) && !env_switch("HPROF_TEST_SWITCH", false),
          "env_switch: unset gives the default");
    setenv("HPROF_TEST_SWITCH", "0", 1);
    CHECK(!env_switch("HPROF_TEST_SWITCH", true), "env_switch: \"0\" is off");
    setenv("HPROF_TEST_SWITCH", "", 1);
    CHECK(!env_switch("HPROF_TEST_SWITCH", true), "env_switch: empty is off");
    setenv("HPROF_TEST_SWITCH", "1", 1);
    CHECK(env_switch("HPROF_TEST_SWITCH", false), "env_switch: \"1\" is on");
    test_pacer();
    char out[128];
    CHECK_STR(names_from_signature("Ljava/lang/String;", out, sizeof out), "java.lang.String", "class name");
    CHECK_STR(names_from_signature("[I", out, sizeof out), "int[]", "int array");
    CHECK_STR(names_from_signature("[[Ljava/lang/Object;", out, sizeof out), "java.lang.Object[][]",
              "2-d object array");
    CHECK_STR(names_from_signature("LOuter$Inner;", out, sizeof out), "Outer$Inner", "inner class keeps $");
    CHECK_STR(names_from_signature("LSample$$Lambda$38/0x00000007c00c0208;", out, sizeof out),
              "Sample$$Lambda$38.0x00000007c00c0208", "hidden class");
    CHECK_STR(names_from_signature("Z", out, sizeof out), "boolean", "primitive");
    CHECK_STR(names_from_signature("[J", out, sizeof out), "long[]", "long array");
    CHECK_STR(names_from_signature("", out, sizeof out), "Unknown_class", "empty signature");
    char tiny[6];
    names_from_signature("Ljava/lang/String;", tiny, sizeof tiny);
    CHECK(strlen(tiny) == 5, "truncates safely");

    struct buf b;
    buf_init(&b);
    buf_u1(&b, 1);
    buf_u2(&b, 0x0203);
    buf_u4(&b, 0x04050607);
    buf_u8(&b, 0x08090a0b0c0d0e0fULL);
    const unsigned char want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    CHECK(b.len == 15 && memcmp(b.data, want, 15) == 0, "big-endian writers");
    buf_patch_u4(&b, 3, 0xdeadbeef);
    CHECK(b.data[3] == 0xde && b.data[6] == 0xef, "patch a u4");
    buf_reset(&b);
    for (int i = 0; i < 1000; i++) buf_printf(&b, "%04d", i);
    CHECK(b.len == 4000 && memcmp(b.data + 3996, "0999", 4) == 0, "printf grows the buffer");
    buf_free(&b);

    /* a limited buffer: filling it exactly is fine, one byte more fails and sticks */
    buf_init_limited(&b, 5000);
    for (int i = 0; i < 1250; i++) buf_u4(&b, (uint32_t)i);
    CHECK(b.len == 5000 && !b.oom && b.cap == 5000, "a limited buffer fills up to its limit (cap %zu)", b.cap);
    buf_u1(&b, 1);
    CHECK(b.len == 5000 && b.oom, "growing past the limit fails like an allocation");
    buf_free(&b);
    static const uint8_t zeros[4997];
    buf_put(&b, zeros, sizeof zeros);
    buf_u4(&b, 7);
    CHECK(b.len == 4997 && b.oom && b.limit == 5000,
          "buf_free keeps the limit; a write that would cross it is dropped");
    buf_free(&b);
    uint8_t be[4];
    be_store_u2(be, 0x1fffe);
    be_store_u2(be + 2, 0xabcd);
    CHECK(be[0] == 0xff && be[1] == 0xfe && be_load_u2(be) == 0xfffe && be_load_u2(be + 2) == 0xabcd,
          "big-endian u2 store (truncating) and load");

    cmap_init(&map);
    registry_init(&reg);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, hammer, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK(registry_count(&reg) == 5000, "4 threads interning 5000 keys make exactly 5000 entries (%u)",
          registry_count(&reg));
    long k = 1234;
    struct entry *e = (struct entry *)cmap_find(&map, hash_mix64(1234), &k, entry_eq);
    CHECK(e && e->key == 1234, "find after concurrent inserts");
    k = 99999;
    CHECK(cmap_find(&map, hash_mix64(99999), &k, entry_eq) == NULL, "missing key not found");
    int removed = 0, still = 0;
    for (long i = 0; i < 5000; i += 2) {
        k = i;
        removed += cmap_remove(&map, hash_mix64((uint64_t)i), &k, entry_eq) != NULL;
    }
    for (long i = 0; i < 5000; i++) {
        k = i;
        still += cmap_find(&map, hash_mix64((uint64_t)i), &k, entry_eq) != NULL;
    }
    k = 0;
    CHECK(removed == 2500 && still == 2500 && !cmap_remove(&map, hash_mix64(0), &k, entry_eq),
          "remove takes out exactly the keys asked for, once (%d removed, %d left)", removed, still);
    /* cmap_sweep: the odd keys (all that is left) out, returned chained */
    k = 1236;
    bool made = false;
    cmap_intern(&map, hash_mix64(1236), &k, entry_eq, entry_make, &reg, &made);
    struct cmap_node *gone = cmap_sweep(&map, odd_key, NULL);
    int ngone = 0;
    bool all_odd = true;
    for (struct cmap_node *n = gone; n; n = n->next, ngone++) all_odd &= (((struct entry *)n)->key & 1) != 0;
    k = 1235;
    bool odd_gone = cmap_find(&map, hash_mix64(1235), &k, entry_eq) == NULL;
    k = 1236;
    CHECK(made && ngone == 2500 && all_odd && odd_gone && cmap_find(&map, hash_mix64(1236), &k, entry_eq),
          "cmap_sweep takes out exactly the entries asked for (%d)", ngone);
    k = 1235;
    made = false;
    cmap_intern(&map, hash_mix64(1235), &k, entry_eq, entry_make, &reg, &made);
    gone = cmap_sweep(&map, odd_key, NULL);
    CHECK(made && gone && !gone->next, "a swept key can be entered again");
    return UNIT_DONE();
}
