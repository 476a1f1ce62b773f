/* SPDX-License-Identifier: Apache-2.0 */
#include "options/attach_request.h"
#include "options/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const VERBS[] = {"start", "dump", "stop", "set", "status"};
#define NVERBS (sizeof VERBS / sizeof VERBS[0])

const char *attach_verb_name(enum attach_verb v) { return (unsigned)v < NVERBS ? VERBS[v] : "?"; }

/* Does s start with key= ? Then *value is the value (up to the next comma, length *n). */
static bool has_key(const char *s, const char *key, const char **value, size_t *n)
{
    size_t k = strlen(key);
    if (strncmp(s, key, k) != 0 || s[k] != '=') return false;
    *value = s + k + 1;
    *n = strcspn(*value, ",");
    return true;
}

static const char *after(const char *value, size_t n) { return value[n] == ',' ? value + n + 1 : value + n; }

/* A whole number in [lo, hi] of exactly n characters. */
static bool number(const char *v, size_t n, long lo, long hi, long *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long x = strtol(buf, &end, 10);
    if (errno || *end || x < lo || x > hi) return false;
    *out = x;
    return true;
}

/* set's settings: interval=, depth=, nothing else. */
static int parse_set(struct attach_request *r, const char *s, char *err, size_t errlen)
{
    while (*s) {
        const char *v;
        size_t n;
        long x;
        if (has_key(s, "interval", &v, &n) && number(v, n, 1, OPT_MAX_MS, &x))
            r->interval_ms = (int)x;
        else if (has_key(s, "depth", &v, &n) && number(v, n, 1, 1024, &x))
            r->depth = (int)x;
        else {
            snprintf(err, errlen,
                     "set takes only interval=<ms> (1-" OPT_MAX_MS_TEXT ") and depth=<frames> (1-1024): %.*s",
                     (int)strcspn(s, ","), s);
            return -1;
        }
        s = after(v, n);
    }
    if (r->interval_ms < 0 && r->depth < 0) {
        snprintf(err, errlen, "set needs interval=<ms> or depth=<frames>");
        return -1;
    }
    return 0;
}

int attach_request_parse(const char *text, struct attach_request *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->interval_ms = r->depth = -1;
    const char *s = text ? text : "", *v;
    size_t n;
    if (has_key(s, "cmd", &v, &n)) {
        size_t i = 0;
        while (i < NVERBS && !(strlen(VERBS[i]) == n && strncmp(VERBS[i], v, n) == 0)) i++;
        if (i == NVERBS) {
            snprintf(err, errlen, "unknown attach command '%.*s' (start, dump, stop, set or status)", (int)n, v);
            return -1;
        }
        r->verb = (enum attach_verb)i;
        s = after(v, n);
    }
    if (has_key(s, "reply", &v, &n)) {
        if (n == 0 || n >= sizeof r->reply || v[0] != '/') {
            snprintf(err, errlen, "reply= must name an absolute path");
            return -1;
        }
        memcpy(r->reply, v, n);
        r->reply[n] = 0;
        s = after(v, n);
    }
    r->rest = s;
    if (r->verb == ATTACH_SET) return parse_set(r, s, err, errlen);
    if ((r->verb == ATTACH_DUMP || r->verb == ATTACH_STOP || r->verb == ATTACH_STATUS) && *s) {
        snprintf(err, errlen, "%s takes no options (given: %s)", attach_verb_name(r->verb), s);
        return -1;
    }
    return 0;
}
