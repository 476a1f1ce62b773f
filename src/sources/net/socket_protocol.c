/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/net/socket_protocol.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

const char *cmd_name(uint8_t tag)
{
    switch (tag) {
    case CMD_FORCE_GC: return "FORCE GC";
    case CMD_DUMP_HEAP: return "DUMP HEAP";
    case CMD_ALLOC_SITES: return "ALLOC SITES";
    case CMD_HEAP_SUMMARY: return "HEAP SUMMARY";
    case CMD_EXIT: return "EXIT THE VM";
    case CMD_DUMP_TRACES: return "DUMP TRACES";
    case CMD_CPU_SAMPLES: return "CPU SAMPLES";
    case CMD_CONTROL: return "CONTROL";
    case CMD_ALLOCS: return "ALLOCS";
    case CMD_EOF: return "EOF";
    default: return NULL;
    }
}

static void say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* The body length a command must have; -1 for an unknown tag or sub-command. */
static long body_length(uint8_t tag, const uint8_t *body, uint32_t len)
{
    switch (tag) {
    case CMD_FORCE_GC:
    case CMD_DUMP_HEAP:
    case CMD_HEAP_SUMMARY:
    case CMD_EXIT:
    case CMD_DUMP_TRACES:
    case CMD_ALLOCS:
    case CMD_EOF: return 0;
    case CMD_ALLOC_SITES:
    case CMD_CPU_SAMPLES: return 6;
    case CMD_CONTROL:
        if (len < 2) return 2;
        switch (be_load_u2(body)) {
        case CTL_ALLOC_ON:
        case CTL_ALLOC_OFF:
        case CTL_CPU_CLEAR: return 2;
        case CTL_CPU_ON:
        case CTL_CPU_OFF: return 6;
        case CTL_DEPTH: return 4;
        default: return -1;
        }
    default: return -1;
    }
}

static int good_cutoff(uint32_t bits, double *out)
{
    float f = bits_to_float(bits);
    if (!isfinite(f) || f < 0.0f || f > 1.0f) return 0;
    *out = (double)f;
    return 1;
}

enum cmd_status cmd_next(const uint8_t *buf, size_t len, struct command *cmd, size_t *used, char *why, size_t whylen)
{
    *used = 0;
    if (len < CMD_HEADER_SIZE) return CMD_NEED_MORE;
    memset(cmd, 0, sizeof *cmd);
    cmd->tag = buf[0];
    cmd->serial = be_load_u4(buf + 1);
    cmd->length = be_load_u4(buf + 5);
    const char *name = cmd_name(cmd->tag);
    if (cmd->length > CMD_MAX_BODY) {
        if (name)
            say(why, whylen, "%s (serial %u) says %u bytes follow; no command is that long", name, cmd->serial,
                cmd->length);
        else
            say(why, whylen, "unknown command tag 0x%02x (serial %u) saying %u bytes follow", cmd->tag, cmd->serial,
                cmd->length);
        return CMD_DESYNC;
    }
    if (len < CMD_HEADER_SIZE + (size_t)cmd->length) return CMD_NEED_MORE;
    *used = CMD_HEADER_SIZE + cmd->length;
    const uint8_t *body = buf + CMD_HEADER_SIZE;
    if (!name) {
        say(why, whylen, "unknown command tag 0x%02x (serial %u, %u bytes)", cmd->tag, cmd->serial, cmd->length);
        return CMD_DROPPED;
    }
    long want = body_length(cmd->tag, body, cmd->length);
    if (want < 0) {
        say(why, whylen, "CONTROL (serial %u) with unknown sub-command %u", cmd->serial, (unsigned)be_load_u2(body));
        return CMD_DROPPED;
    }
    if ((long)cmd->length != want) {
        say(why, whylen, "%s (serial %u) with a body of %u bytes; it takes %ld", name, cmd->serial, cmd->length, want);
        return CMD_DROPPED;
    }
    switch (cmd->tag) {
    case CMD_ALLOC_SITES:
    case CMD_CPU_SAMPLES:
        cmd->flags = be_load_u2(body);
        if (cmd->tag == CMD_ALLOC_SITES && (cmd->flags & ~0x7u)) {
            say(why, whylen, "ALLOC SITES (serial %u) with unknown flags 0x%x", cmd->serial, cmd->flags);
            return CMD_DROPPED;
        }
        if (!good_cutoff(be_load_u4(body + 2), &cmd->cutoff)) {
            say(why, whylen, "%s (serial %u) with a cutoff that is not a number from 0 to 1", name, cmd->serial);
            return CMD_DROPPED;
        }
        if (cmd->tag == CMD_CPU_SAMPLES) cmd->flags = 0;
        break;
    case CMD_CONTROL:
        cmd->control = be_load_u2(body);
        if (cmd->control == CTL_CPU_ON || cmd->control == CTL_CPU_OFF) cmd->thread_id = be_load_u4(body + 2);
        if (cmd->control == CTL_DEPTH) cmd->depth = be_load_u2(body + 2);
        break;
    default: break;
    }
    return CMD_READY;
}

enum cmd_status cmd_stream_take(struct cmd_stream *s, struct command *cmd, char *why, size_t whylen)
{
    size_t used = 0;
    enum cmd_status st = cmd_next(s->buf, s->have, cmd, &used, why, whylen);
    memmove(s->buf, s->buf + used, s->have - used);
    s->have -= used;
    return st;
}

size_t cmd_encode(const struct command *cmd, uint8_t *out, size_t n)
{
    uint8_t body[16];
    uint8_t *p = body;
    switch (cmd->tag) {
    case CMD_ALLOC_SITES:
    case CMD_CPU_SAMPLES:
        be_store_u2(p, cmd->tag == CMD_ALLOC_SITES ? cmd->flags : 0);
        be_store_u4(p + 2, float_to_bits((float)cmd->cutoff));
        p += 6;
        break;
    case CMD_CONTROL:
        be_store_u2(p, cmd->control);
        p += 2;
        if (cmd->control == CTL_CPU_ON || cmd->control == CTL_CPU_OFF) {
            be_store_u4(p, cmd->thread_id);
            p += 4;
        } else if (cmd->control == CTL_DEPTH) {
            be_store_u2(p, cmd->depth);
            p += 2;
        }
        break;
    default:
        if (!cmd_name(cmd->tag)) return 0; /* the others have no body */
        break;
    }
    size_t blen = (size_t)(p - body);
    if (n < CMD_HEADER_SIZE + blen) return 0;
    out[0] = cmd->tag;
    be_store_u4(out + 1, cmd->serial);
    be_store_u4(out + 5, (uint32_t)blen);
    memcpy(out + CMD_HEADER_SIZE, body, blen);
    return CMD_HEADER_SIZE + blen;
}
