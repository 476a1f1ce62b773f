/* SPDX-License-Identifier: Apache-2.0 */
/* The net= command protocol without a socket: good commands, truncated ones, garbage. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sources/net/socket_protocol.h"
#include "unit.h"

static size_t enc(uint8_t tag, uint8_t *out, size_t n)
{
    struct command c = {.tag = tag, .serial = 7};
    return cmd_encode(&c, out, n);
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A raw command: tag, serial 1, the given length field and body. */
static size_t raw(uint8_t *out, uint8_t tag, uint32_t length, const uint8_t *body, size_t blen)
{
    out[0] = tag;
    out[1] = out[2] = out[3] = 0;
    out[4] = 1;
    out[5] = (uint8_t)(length >> 24);
    out[6] = (uint8_t)(length >> 16);
    out[7] = (uint8_t)(length >> 8);
    out[8] = (uint8_t)length;
    memcpy(out + 9, body, blen);
    return 9 + blen;
}

static enum cmd_status next(const uint8_t *b, size_t n, struct command *c, size_t *used)
{
    char why[160];
    return cmd_next(b, n, c, used, why, sizeof why);
}

int main(void)
{
    uint8_t b[256];
    struct command c;
    size_t used;
    char why[160];

    /* Every command encodes and decodes back. */
    static const uint8_t plain[] = {CMD_FORCE_GC, CMD_DUMP_HEAP, CMD_HEAP_SUMMARY, CMD_EXIT, CMD_DUMP_TRACES, CMD_EOF};
    for (size_t i = 0; i < sizeof plain; i++) {
        size_t n = enc(plain[i], b, sizeof b);
        CHECK(n == 9 && next(b, n, &c, &used) == CMD_READY && used == 9 && c.tag == plain[i] && c.serial == 7,
              "%s: 9 bytes, decoded back", cmd_name(plain[i]));
    }
    struct command sites = {.tag = CMD_ALLOC_SITES, .serial = 3, .flags = 0x3, .cutoff = 0.01};
    size_t n = cmd_encode(&sites, b, sizeof b);
    CHECK(n == 15 && next(b, n, &c, &used) == CMD_READY && c.flags == 3 && fabs(c.cutoff - 0.01) < 1e-6,
          "ALLOC SITES: flags and a float cutoff");
    struct command cpu = {.tag = CMD_CPU_SAMPLES, .cutoff = 0.5};
    n = cmd_encode(&cpu, b, sizeof b);
    CHECK(n == 15 && next(b, n, &c, &used) == CMD_READY && c.cutoff == 0.5, "CPU SAMPLES: cutoff");
    struct command ctl[] = {
        {.tag = CMD_CONTROL, .control = CTL_ALLOC_ON},
        {.tag = CMD_CONTROL, .control = CTL_ALLOC_OFF},
        {.tag = CMD_CONTROL, .control = CTL_CPU_ON, .thread_id = 0x50000003},
        {.tag = CMD_CONTROL, .control = CTL_CPU_OFF},
        {.tag = CMD_CONTROL, .control = CTL_CPU_CLEAR},
        {.tag = CMD_CONTROL, .control = CTL_DEPTH, .depth = 12},
    };
    static const size_t ctl_len[] = {11, 11, 15, 15, 11, 13};
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        n = cmd_encode(&ctl[i], b, sizeof b);
        CHECK(n == ctl_len[i] && next(b, n, &c, &used) == CMD_READY && used == n && c.control == ctl[i].control &&
                  c.thread_id == ctl[i].thread_id && c.depth == ctl[i].depth,
              "CONTROL %u: %zu bytes, decoded back", ctl[i].control, ctl_len[i]);
    }

    /* Truncated: every prefix of every command asks for more and uses nothing. */
    int all_wait = 1;
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        n = cmd_encode(&ctl[i], b, sizeof b);
        for (size_t k = 0; k < n; k++)
            if (next(b, k, &c, &used) != CMD_NEED_MORE || used != 0) all_wait = 0;
    }
    n = cmd_encode(&sites, b, sizeof b);
    for (size_t k = 0; k < n; k++)
        if (next(b, k, &c, &used) != CMD_NEED_MORE || used != 0) all_wait = 0;
    CHECK(all_wait, "every truncated command waits for more");

    /* Bad commands are dropped whole; the next one is still read. */
    uint8_t body[64] = {0};
    n = raw(b, 0x42, 3, body, 3);
    n += enc(CMD_DUMP_TRACES, b + n, sizeof b - n);
    CHECK(cmd_next(b, n, &c, &used, why, sizeof why) == CMD_DROPPED && used == 12 && strstr(why, "0x42"),
          "unknown tag: dropped with its body, reason names it (%s)", why);
    CHECK(next(b + used, n - used, &c, &used) == CMD_READY && c.tag == CMD_DUMP_TRACES, "the next command is read");
    n = raw(b, CMD_FORCE_GC, 2, body, 2);
    CHECK(cmd_next(b, n, &c, &used, why, sizeof why) == CMD_DROPPED && used == 11, "FORCE GC with a body: dropped (%s)",
          why);
    n = raw(b, CMD_CPU_SAMPLES, 4, body, 4);
    CHECK(next(b, n, &c, &used) == CMD_DROPPED && used == 13, "CPU SAMPLES with a short body: dropped");
    n = raw(b, CMD_CPU_SAMPLES, 8, body, 8);
    CHECK(next(b, n, &c, &used) == CMD_DROPPED && used == 17, "CPU SAMPLES with a long body: dropped");
    float bad[] = {NAN, -0.5f, 1.5f, INFINITY};
    int all_bad = 1;
    for (size_t i = 0; i < 4; i++) {
        uint32_t u = fbits(bad[i]);
        uint8_t cb[6] = {0, 0, (uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
        n = raw(b, CMD_ALLOC_SITES, 6, cb, 6);
        if (next(b, n, &c, &used) != CMD_DROPPED) all_bad = 0;
    }
    CHECK(all_bad, "a cutoff that is NaN, negative, over 1 or infinite: dropped");
    uint8_t fl[6] = {0, 0x10, 0, 0, 0, 0};
    n = raw(b, CMD_ALLOC_SITES, 6, fl, 6);
    CHECK(next(b, n, &c, &used) == CMD_DROPPED, "ALLOC SITES with unknown flags: dropped");
    uint8_t sub[2] = {0, 9};
    n = raw(b, CMD_CONTROL, 2, sub, 2);
    CHECK(cmd_next(b, n, &c, &used, why, sizeof why) == CMD_DROPPED && used == 11 && strstr(why, "sub-command"),
          "CONTROL with an unknown sub-command: dropped (%s)", why);
    uint8_t sub3[2] = {0, CTL_CPU_ON};
    n = raw(b, CMD_CONTROL, 2, sub3, 2);
    CHECK(next(b, n, &c, &used) == CMD_DROPPED, "CONTROL cpu on without its thread ID: dropped");
    n = raw(b, CMD_CONTROL, 0, body, 0);
    CHECK(next(b, n, &c, &used) == CMD_DROPPED, "CONTROL without a sub-command: dropped");
    n = raw(b, CMD_DUMP_HEAP, 0x01000000, body, 0);
    CHECK(cmd_next(b, n, &c, &used, why, sizeof why) == CMD_DESYNC && used == 0,
          "a length no command has: out of step (%s)", why);
    n = raw(b, 0x99, 65, body, 0);
    CHECK(next(b, n, &c, &used) == CMD_DESYNC, "unknown tag with a length over the limit: out of step");

    /* A stream of good commands split anywhere decodes the same. */
    uint8_t stream[512];
    size_t slen = 0;
    for (int r = 0; r < 4; r++) {
        for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++)
            slen += cmd_encode(&ctl[i], stream + slen, sizeof stream - slen);
        slen += cmd_encode(&sites, stream + slen, sizeof stream - slen);
    }
    int same = 1;
    srand(1);
    for (int trial = 0; trial < 200; trial++) {
        uint8_t got[sizeof stream];
        size_t have = 0, pos = 0;
        int ncmd = 0;
        while (pos < slen || have) {
            size_t chunk = (size_t)(rand() % 7);
            if (chunk > slen - pos) chunk = slen - pos;
            memcpy(got + have, stream + pos, chunk);
            have += chunk;
            pos += chunk;
            enum cmd_status st;
            while ((st = next(got, have, &c, &used)) == CMD_READY) {
                ncmd++;
                memmove(got, got + used, have - used);
                have -= used;
            }
            if (st != CMD_NEED_MORE) same = 0;
            if (pos == slen && st == CMD_NEED_MORE && have) {
                same = 0;
                break;
            }
        }
        if (ncmd != 28) same = 0;
    }
    CHECK(same, "28 commands split at random points: all read, in step");

    /* Garbage: never a byte read past the end, never more used than given. */
    int sane = 1, ready = 0;
    for (int trial = 0; trial < 200000; trial++) {
        size_t len = (size_t)(rand() % 32);
        uint8_t *g = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++) g[i] = (uint8_t)(rand() % 4 == 0 ? rand() % 10 : rand());
        enum cmd_status st = cmd_next(g, len, &c, &used, why, sizeof why);
        if (used > len || (st == CMD_NEED_MORE && used) || (st == CMD_DESYNC && used)) sane = 0;
        if ((st == CMD_READY || st == CMD_DROPPED) && used < CMD_HEADER_SIZE) sane = 0;
        if (st == CMD_READY) {
            ready++;
            if (!cmd_name(c.tag)) sane = 0;
        }
        free(g);
    }
    CHECK(sane, "200000 garbage buffers: used never past the end (%d happened to be commands)", ready);
    CHECK(cmd_name(0x42) == NULL && strcmp(cmd_name(CMD_CONTROL), "CONTROL") == 0, "names of tags");
    CHECK(cmd_encode(&(struct command){.tag = 0x42}, b, sizeof b) == 0 && enc(CMD_EXIT, b, 8) == 0,
          "encode refuses unknown tags and short buffers");
    return UNIT_DONE();
}
