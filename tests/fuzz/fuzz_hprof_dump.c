/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for hprof-dump's reader (tools/hprof-dump: reader.c's buffered reads,
 * records.c's header and records, heap.c's heap dumps and their reference pass), on any
 * file: binary profiles and heap dumps, text profiles (which the header tells apart and
 * refuses), anything else. The input is put in a memory file and read as the tool reads
 * a file named on its command line, with the printing (every line built, to /dev/null)
 * and --check together, and by input length --lenient, --offsets, and as a pipe or a
 * device (no size known: the heap dumps are copied to a spool file for the second pass).
 * Then hprof view's reader of binary profiles (binary_profile.c) reads it into a stack
 * profile. Invariants: the reader stops at the end of the file; --check's verdict counts
 * what was reported; the view's reader gives a profile or a reason. Inputs bigger than
 * 64 KiB matter (tests/fuzz/run.sh gives 1 MiB): deep class chains, many records;
 * tests/fuzz/gen_hostile.c makes the shapes mutation would not reach. */
#include "fuzz_target.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hd.h"
#include "profile_read.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

/* The input as a file descriptor: a memory file (seekable), or a pipe holding it all. */
static int input_fd(const uint8_t *data, size_t size, int pipe_it)
{
    int fd;
    if (pipe_it) {
        int p[2];
        if (pipe(p) != 0) return -1;
        fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
        int whole = write(p[1], data, size) == (ssize_t)size;
        close(p[1]);
        if (whole) return p[0];
        close(p[0]);
        return -1;
    }
    fd = memfd_create("hprof-dump-fuzz", 0);
    if (fd < 0) return -1;
    if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) return fd;
    close(fd);
    return -1;
}

/* hprof view's reader of binary profiles, on the same bytes: a profile, or a reason. */
static void view_binary(const uint8_t *data, size_t size)
{
    int fd = input_fd(data, size, 0);
    if (fd < 0) return;
    struct stack_profile p;
    char err[512] = "";
    sp_init(&p);
    if (pr_read_binary("fuzz", fd, (enum pr_section)(size % PR_N), &p, err, sizeof err) != 0 && !err[0])
        broken("the view's reader refused without a reason");
    sp_free(&p);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w"))) return 0;
    /* By length: a regular file (its size known), a pipe, or a file that can seek but
     * whose size the tool does not know (a device): both of those last two spool. */
    int how = size % 5 == 2 ? 1 : size % 5 == 4 ? 2 : 0;
    int fd = input_fd(data, size, how == 1);
    if (fd < 0) return 0;
    hd_state st;
    hd_state_init(&st, devnull);
    st.path = "fuzz";
    st.fd = fd;
    st.print = 1;
    st.check = 1;
    st.lenient = size % 3 == 1;
    st.offsets = size % 2;
    if (how == 0) {
        st.fsize = size;
        st.seekable = 1;
    } else {
        st.spool_fd = memfd_create("hprof-dump-spool", 0);
    }
    hd_reader_init(&st.r, fd, 0, 0);
    hd_run(&st);
    hd_report_undefined(&st);
    if (st.r.off > size) broken("read past the end of the file");
    if (st.printed_errors > st.errors || st.printed_warnings > st.warnings) broken("more problems shown than counted");
    if (st.spool_fd >= 0) close(st.spool_fd);
    close(fd);
    hd_state_free(&st);
    view_binary(data, size);
    return 0;
}
