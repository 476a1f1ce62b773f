/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the commands a front end sends down the net= socket
 * (sources/net/socket_protocol.c): the input is the byte stream the agent's listener
 * receives. It is fed to a struct cmd_stream as the listener does, twice: in the largest
 * pieces that fit, and in pieces of 1..7 bytes. Invariants: both give the same commands
 * and statuses, in the same order, and stop at the same one (a desync); a command taken
 * as good encodes back to the bytes it came from (CPU SAMPLES' ignored u2 as 0); a
 * command taken leaves what follows it untouched; a reason is given for each bad one. */
#include "fuzz_target.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/net/socket_protocol.h"

#define MAX_SEEN 4096

struct seen {
    enum cmd_status st[MAX_SEEN];
    struct command cmd[MAX_SEEN];
    size_t n;
};

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

/* A good command's bytes, as they were received, must be what it encodes to. */
static void check_encoding(const struct command *c, const uint8_t *raw)
{
    uint8_t out[CMD_HEADER_SIZE + CMD_MAX_BODY], want[CMD_HEADER_SIZE + CMD_MAX_BODY];
    size_t n = cmd_encode(c, out, sizeof out);
    if (n != CMD_HEADER_SIZE + c->length) broken("a good command encodes to another length");
    memcpy(want, raw, n);
    if (c->tag == CMD_CPU_SAMPLES) want[CMD_HEADER_SIZE] = want[CMD_HEADER_SIZE + 1] = 0;
    if (memcmp(out, want, n) != 0) broken("a good command encodes to other bytes");
    if (!cmd_name(c->tag)) broken("a good command without a name");
}

/* Feeds data in pieces of at most `piece` bytes (0: as many as fit). */
static void feed(const uint8_t *data, size_t size, size_t piece, struct seen *out)
{
    struct cmd_stream s = {.have = 0};
    size_t at = 0;
    out->n = 0;
    while (at < size) {
        size_t room = sizeof s.buf - s.have;
        if (room == 0) broken("the stream is full between takes");
        size_t n = size - at < room ? size - at : room;
        if (piece && n > piece) n = piece;
        memcpy(s.buf + s.have, data + at, n);
        s.have += n;
        at += n;
        for (;;) {
            uint8_t before[sizeof s.buf];
            size_t had = s.have;
            memcpy(before, s.buf, had);
            struct command c;
            char why[160] = "";
            enum cmd_status st = cmd_stream_take(&s, &c, why, sizeof why);
            if (st == CMD_NEED_MORE) {
                if (s.have != had || memcmp(s.buf, before, had) != 0) broken("NEED_MORE used bytes");
                break;
            }
            if (st != CMD_READY && !why[0]) broken("a bad command without a reason");
            if (out->n < MAX_SEEN) {
                out->st[out->n] = st;
                out->cmd[out->n] = c;
                out->n++;
            }
            if (st == CMD_DESYNC) return; /* the listener stops reading here */
            size_t used = had - s.have;
            if (used != CMD_HEADER_SIZE + c.length) broken("a command took another length than it says");
            if (memcmp(s.buf, before + used, s.have) != 0) broken("taking a command changed what follows");
            if (st == CMD_READY) check_encoding(&c, before);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct seen whole, small;
    feed(data, size, 0, &whole);
    feed(data, size, 1 + size % 7, &small);
    if (whole.n != small.n) broken("the pieces the bytes came in changed the number of commands");
    for (size_t i = 0; i < whole.n; i++) {
        if (whole.st[i] != small.st[i]) broken("the pieces the bytes came in changed a status");
        const struct command *a = &whole.cmd[i], *b = &small.cmd[i];
        if (whole.st[i] == CMD_READY &&
            (a->tag != b->tag || a->serial != b->serial || a->flags != b->flags || a->cutoff != b->cutoff ||
             a->control != b->control || a->thread_id != b->thread_id || a->depth != b->depth))
            broken("the pieces the bytes came in changed a command");
    }
    return 0;
}
