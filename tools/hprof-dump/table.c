/* Growable memory, a u64 hash map and a string builder. */
#include "hd.h"
#include "util/cmap.h" /* hash_mix64 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void *hd_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "hprof-dump: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return q;
}

uint64_t *hd_map_get(const hd_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash_mix64(key) & mask;; i = (i + 1) & mask) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return &m->vals[i];
    }
}

static void map_grow(hd_map *m)
{
    hd_map n = {0};
    n.cap = m->cap ? m->cap * 2 : 256;
    n.keys = hd_xrealloc(NULL, n.cap * sizeof *n.keys);
    n.vals = hd_xrealloc(NULL, n.cap * sizeof *n.vals);
    n.used = calloc(n.cap, 1);
    if (!n.used)
        hd_xrealloc(NULL, SIZE_MAX); /* reports and exits */
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            hd_map_put(&n, m->keys[i], m->vals[i], NULL);
    hd_map_free(m);
    *m = n;
}

int hd_map_put(hd_map *m, uint64_t key, uint64_t val, uint64_t **slot)
{
    if ((m->n + 1) * 2 > m->cap)
        map_grow(m);
    size_t mask = m->cap - 1;
    size_t i = hash_mix64(key) & mask;
    for (; m->used[i]; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            if (slot)
                *slot = &m->vals[i];
            return 0;
        }
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    if (slot)
        *slot = &m->vals[i];
    return 1;
}

void hd_map_free(hd_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

void hd_sb_add(hd_sb *sb, const void *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        while (sb->len + n + 1 > sb->cap)
            sb->cap = sb->cap ? sb->cap * 2 : 256;
        sb->p = hd_xrealloc(sb->p, sb->cap);
    }
    memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = 0;
}

void hd_sb_printf(hd_sb *sb, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        hd_sb_add(sb, small, (size_t)n);
        return;
    }
    char *big = hd_xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    hd_sb_add(sb, big, (size_t)n);
    free(big);
}

void hd_sb_put_quoted(hd_sb *sb, const unsigned char *s, size_t n)
{
    hd_sb_add(sb, "\"", 1);
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
        if (!esc)
            continue;
        hd_sb_add(sb, s + run, i - run);
        hd_sb_add(sb, esc, strlen(esc));
        run = i + 1;
    }
    hd_sb_add(sb, s + run, n - run);
    hd_sb_add(sb, "\"", 1);
}

/* A token is non-empty, is not "-", does not start with '#' or '?', and has no
 * white space, control characters or any of  " \ , = :  */
static int is_token(const unsigned char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '-') || s[0] == '#' || s[0] == '?')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c <= 0x20 || c == 0x7f || c == '"' || c == '\\' || c == ',' || c == '=' || c == ':')
            return 0;
    }
    return 1;
}

void hd_sb_put_token(hd_sb *sb, const unsigned char *s, size_t n)
{
    if (is_token(s, n))
        hd_sb_add(sb, s, n);
    else
        hd_sb_put_quoted(sb, s, n);
}
