/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report's output: JSON strings, objects' labels, and the buffer sections are built
 * in before they are written.
 */
#include <inttypes.h>

#include "analyze.h"
#include "analyze_out.h"

void an_json_str(struct buf *b, const uint8_t *s, size_t n)
{
    buf_u1(b, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            buf_u1(b, '\\'), buf_u1(b, c);
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
            buf_printf(b, "\\u%04x", c);
        else
            buf_u1(b, c);
    }
    buf_u1(b, '"');
}

void an_object_label(const struct an_heap *h, uint32_t o, struct buf *b)
{
    an_class_name(h, h->cls[o], b);
    if (AN_KIND(h, o) == AN_CLASSOBJ) {
        buf_put(b, " ", 1);
        an_class_name(h, an_class_of_object(h, o), b);
    }
    buf_printf(b, "#0x%" PRIx64, an_id(h, o));
}

const char *an_buf_text(struct buf *b)
{
    buf_u1(b, 0);
    b->len--;
    return (const char *)b->data;
}

void an_out_flush(struct out *w)
{
    fwrite(w->b.data, 1, w->b.len, w->f);
    buf_reset(&w->b);
}

void an_out_section(struct out *w, const char *name, const char *text_head)
{
    if (w->json)
        buf_printf(&w->b, "%s\n\"%s\": ", w->sections++ ? "," : "", name);
    else
        buf_printf(&w->b, "%s\n", text_head);
}
