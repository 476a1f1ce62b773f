/* SPDX-License-Identifier: Apache-2.0 */
#include "util/names.h"

#include <string.h>

static const char *primitive_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'B': return "byte";
    case 'C': return "char";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    case 'F': return "float";
    case 'D': return "double";
    case 'V': return "void";
    default: return NULL;
    }
}

static void append(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
    while (n-- && *pos + 1 < outlen) out[(*pos)++] = *s++;
    out[*pos] = 0;
}

char *names_from_signature(const char *sig, char *out, size_t outlen)
{
    size_t pos = 0;
    if (!outlen) return out;
    out[0] = 0;
    if (!sig || !*sig) {
        append(out, outlen, &pos, "Unknown_class", 13);
        return out;
    }
    size_t dims = 0;
    while (sig[dims] == '[') dims++;
    const char *elem = sig + dims;
    if (*elem == 'L') {
        const char *end = strchr(elem, ';');
        size_t n = end ? (size_t)(end - elem - 1) : strlen(elem + 1);
        size_t start = pos;
        append(out, outlen, &pos, elem + 1, n);
        for (size_t i = start; i < pos; i++)
            if (out[i] == '/') out[i] = '.';
    } else if (primitive_name(*elem) && elem[1] == 0) {
        const char *p = primitive_name(*elem);
        append(out, outlen, &pos, p, strlen(p));
    } else if (dims == 0 && strchr(elem, '/') == NULL && strchr(elem, ';') == NULL) {
        /* Already a plain name (some JVMs hand these out): keep it. */
        append(out, outlen, &pos, elem, strlen(elem));
    } else {
        append(out, outlen, &pos, "Unknown_class", 13);
    }
    for (size_t i = 0; i < dims; i++) append(out, outlen, &pos, "[]", 2);
    return out;
}
