/* SPDX-License-Identifier: Apache-2.0 */
/* Buffered streaming reader: sequential read(2) for the main pass, pread(2) from a
 * given offset for the second pass over a heap dump. Never holds more than one buffer.
 * Record bodies (hd_body) read big-endian values without passing their end.
 * Calls only table.c and format.c. */
#include "hd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READER_BUF (1u << 20)

void hd_reader_init(hd_reader *r, int fd, uint64_t start, int use_pread)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->use_pread = use_pread;
    r->file_off = start;
    r->off = start;
    r->cap = READER_BUF;
    r->buf = hd_xrealloc(NULL, r->cap);
    r->tee_fd = -1;
}

void hd_reader_free(hd_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

static void tee_flush(hd_reader *r)
{
    if (r->tee_fd < 0) return;
    const unsigned char *p = r->buf + r->tee_mark;
    size_t left = r->pos - r->tee_mark;
    while (left && !r->err) {
        ssize_t w = write(r->tee_fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            r->err = errno ? errno : EIO;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    r->tee_mark = r->pos;
}

void hd_tee_start(hd_reader *r, int fd)
{
    r->tee_fd = fd;
    r->tee_mark = r->pos;
}

void hd_tee_stop(hd_reader *r)
{
    tee_flush(r);
    r->tee_fd = -1;
}

size_t hd_fill(hd_reader *r, size_t need)
{
    if (need > r->cap) need = r->cap;
    if (r->len - r->pos >= need) return r->len - r->pos;
    if (r->pos) {
        tee_flush(r);
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        r->tee_mark = 0;
    }
    while (r->len < need && !r->err) {
        ssize_t n;
        if (r->use_pread)
            n = pread(r->fd, r->buf + r->len, r->cap - r->len, (off_t)r->file_off);
        else
            n = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (n < 0) {
            if (errno == EINTR) continue;
            r->err = errno ? errno : EIO;
            break;
        }
        if (n == 0) break;
        r->len += (size_t)n;
        r->file_off += (uint64_t)n;
    }
    return r->len - r->pos;
}

static void consume(hd_reader *r, size_t n)
{
    if (r->tee_fd >= 0) r->tee_len += n;
    r->pos += n;
    r->off += n;
}

size_t hd_read(hd_reader *r, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t done = 0;
    while (done < n) {
        size_t avail = hd_fill(r, 1);
        if (!avail) {
            r->eof = 1;
            break;
        }
        size_t k = n - done < avail ? n - done : avail;
        memcpy(d + done, r->buf + r->pos, k);
        consume(r, k);
        done += k;
    }
    return done;
}

/* Moves the file `jump` bytes on without reading them; 0 when it cannot seek, or when the
 * file ends before (then reading finds the end, and says the record is cut: a seek alone
 * would go past the end without a word in a file whose size was not known before). */
static int jump_over(hd_reader *r, uint64_t jump)
{
    if (r->use_pread) {
        r->file_off += jump;
        return 1;
    }
    off_t at = lseek(r->fd, 0, SEEK_CUR), end = at < 0 ? -1 : lseek(r->fd, 0, SEEK_END);
    if (end < 0) return 0;
    if ((uint64_t)(end - at) < jump) {
        lseek(r->fd, at, SEEK_SET);
        return 0;
    }
    return lseek(r->fd, at + (off_t)jump, SEEK_SET) != (off_t)-1;
}

static uint64_t skip(hd_reader *r, uint64_t n)
{
    size_t buffered = r->len - r->pos;
    if (r->tee_fd < 0 && n > buffered + r->cap) {
        /* Jump over a large span without reading it. */
        uint64_t jump = n - buffered;
        if (jump_over(r, jump)) {
            r->pos = r->len = 0;
            r->off += n;
            return n;
        }
    }
    uint64_t done = 0;
    while (done < n) {
        size_t avail = hd_fill(r, 1);
        if (!avail) {
            r->eof = 1;
            break;
        }
        size_t k = n - done < avail ? (size_t)(n - done) : avail;
        consume(r, k);
        done += k;
    }
    return done;
}

uint64_t hd_b_un(hd_body *b, int n)
{
    if (b->left < (uint64_t)n) {
        b->short_ = 1;
        return 0;
    }
    hd_reader *r = b->r;
    if (hd_fill(r, (size_t)n) < (size_t)n) {
        r->eof = 1;
        return 0;
    }
    uint64_t v = hd_load_be(r->buf + r->pos, n);
    consume(r, (size_t)n);
    b->left -= (uint64_t)n;
    return v;
}

int hd_b_has(hd_body *b, uint64_t n)
{
    if (b->left < n) {
        b->short_ = 1;
        return 0;
    }
    return 1;
}

void hd_b_skip(hd_body *b, uint64_t n)
{
    if (n > b->left) {
        b->short_ = 1;
        n = b->left;
    }
    uint64_t got = skip(b->r, n);
    b->left -= got;
}
