/* SPDX-License-Identifier: Apache-2.0 */
/* Output lines (st->line, one at a time, with the --offsets prefix), quoting of texts,
 * values of basic types, and the names that lines show: a string ID's text, a class's
 * name by serial or object ID, a trace's top frame. Calls only table.c. */
#include "hd.h"

#include <string.h>

void hd_put_quoted(struct buf *b, const unsigned char *s, size_t n)
{
    buf_put(b, "\"", 1);
    size_t run = 0; /* bytes copied as they are, flushed in runs */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        const char *esc = NULL;
        char hex[8];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\r')
            esc = "\\r";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(hex, sizeof hex, "\\x%02x", c);
            esc = hex;
        }
        if (!esc) continue;
        buf_put(b, s + run, i - run);
        buf_put(b, esc, strlen(esc));
        run = i + 1;
    }
    buf_put(b, s + run, n - run);
    buf_put(b, "\"", 1);
}

/* A token is non-empty, is not "-", does not start with '#' or '?', and has no
 * white space, control characters or any of  " \ , = :  */
static int is_token(const unsigned char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '-') || s[0] == '#' || s[0] == '?') return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c <= 0x20 || c == 0x7f || c == '"' || c == '\\' || c == ',' || c == '=' || c == ':') return 0;
    }
    return 1;
}

/* Raw when the text is a plain token, quoted otherwise. */
static void hd_put_token(struct buf *b, const unsigned char *s, size_t n)
{
    if (is_token(s, n))
        buf_put(b, s, n);
    else
        hd_put_quoted(b, s, n);
}

void hd_put_value(struct buf *b, int type, uint64_t v)
{
    switch (type) {
    case HD_OBJECT: buf_printf(b, "0x%llx", (unsigned long long)v); break;
    case HD_FLOAT: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, sizeof f);
        buf_printf(b, "%g", (double)f);
        break;
    }
    case HD_DOUBLE: {
        double d;
        memcpy(&d, &v, sizeof d);
        buf_printf(b, "%g", d);
        break;
    }
    case 8: buf_printf(b, "%d", (int)(int8_t)v); break;           /* byte */
    case 9: buf_printf(b, "%d", (int)(int16_t)v); break;          /* short */
    case 10: buf_printf(b, "%d", (int)(int32_t)v); break;         /* int */
    case 11: buf_printf(b, "%lld", (long long)(int64_t)v); break; /* long */
    default: buf_printf(b, "%llu", (unsigned long long)v); break; /* boolean, char */
    }
}

const unsigned char *hd_string_text(hd_state *st, uint64_t id, size_t *len)
{
    uint64_t *slot = hd_map_get(&st->strings, id);
    if (!slot) return NULL;
    hd_string *s = &st->strv[*slot];
    *len = (size_t)s->len;
    return st->pool.data + s->off;
}

void hd_put_sid(hd_state *st, uint64_t id, int quote)
{
    size_t n;
    const unsigned char *s = hd_string_text(st, id, &n);
    if (s && quote)
        hd_put_quoted(&st->line, s, n);
    else if (s)
        hd_put_token(&st->line, s, n);
    else if (id == 0)
        buf_put(&st->line, "-", 1);
    else
        buf_printf(&st->line, "#0x%llx", (unsigned long long)id);
}

void hd_put_class_serial(hd_state *st, uint32_t serial)
{
    uint64_t *slot = hd_map_get(&st->classes_by_serial, serial);
    if (slot)
        hd_put_sid(st, st->clsv[*slot].name, 0);
    else
        buf_put(&st->line, "?", 1);
}

void hd_put_class_obj(hd_state *st, uint64_t obj)
{
    uint64_t *slot = hd_map_get(&st->classes_by_obj, obj);
    if (slot)
        hd_put_class_serial(st, (uint32_t)*slot);
    else
        buf_put(&st->line, "?", 1);
}

/* The text of a string ID, "?" when unknown. */
static const unsigned char *text_or_unknown(hd_state *st, uint64_t id, size_t *len)
{
    const unsigned char *s = hd_string_text(st, id, len);
    if (s) return s;
    *len = 1;
    return (const unsigned char *)"?";
}

void hd_put_top(hd_state *st, uint32_t trace)
{
    uint64_t *slot = hd_map_get(&st->traces, trace);
    if (!slot) {
        buf_put(&st->line, "?", 1);
        return;
    }
    hd_trace *t = &st->trv[*slot];
    if (!t->nframes) {
        buf_put(&st->line, "-", 1);
        return;
    }
    slot = hd_map_get(&st->frames, st->trframes[t->first]);
    if (!slot) {
        buf_put(&st->line, "?", 1);
        return;
    }
    hd_frame *f = &st->frv[*slot];
    size_t cn = 1, mn;
    const unsigned char *cname = (const unsigned char *)"?";
    slot = hd_map_get(&st->classes_by_serial, f->cls);
    if (slot) cname = text_or_unknown(st, st->clsv[*slot].name, &cn);
    const unsigned char *mname = text_or_unknown(st, f->method, &mn);
    struct buf top = {0};
    buf_put(&top, cname, cn);
    buf_put(&top, ".", 1);
    buf_put(&top, mname, mn);
    hd_buf_check(&top);
    hd_put_token(&st->line, top.data, top.len);
    buf_free(&top);
}

void hd_line_begin(hd_state *st, uint64_t off, int sub, uint32_t time)
{
    st->line.len = 0;
    if (st->offsets) {
        if (sub)
            buf_printf(&st->line, "@0x%llx ", (unsigned long long)off);
        else
            buf_printf(&st->line, "@0x%llx +%uus ", (unsigned long long)off, time);
    }
    if (sub) buf_put(&st->line, "  ", 2);
}

void hd_line_end(hd_state *st)
{
    buf_put(&st->line, "\n", 1);
    hd_buf_check(&st->line);
    fwrite(st->line.data, 1, st->line.len, st->out);
    st->line.len = 0;
}
