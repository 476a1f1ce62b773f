/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the agent's option parser (src/options): the text after
 * "-agentpath:...=" as the JVM hands it over, any bytes but NUL. Invariants: an error says
 * why (a NUL-terminated sentence within the buffer); a good parse names an output file
 * and has a format, a depth and an interval in range; the list of no-effect options is
 * NUL-terminated; parsing the same text twice gives the same result. */
#include "fuzz_target.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options/options.h"

static void broken(const char *what)
{
    fprintf(stderr, "invariant broken: %s\n", what);
    abort();
}

/* Parses text; checks what a result must be; returns it (the caller frees o). */
static enum options_result parse(const char *text, struct options *o)
{
    char err[200];
    memset(err, 'x', sizeof err);
    memset(o, 0, sizeof *o);
    enum options_result r = options_parse(text, o, err, sizeof err);
    if (r == OPTIONS_ERROR && (!memchr(err, 0, sizeof err) || !err[0])) broken("an error without a sentence");
    if (r == OPTIONS_OK) {
        if (!o->file || (o->format != 'a' && o->format != 'b')) broken("no file or format");
        if (o->depth < 0 || o->interval_ms <= 0 || o->cutoff < 0 || o->cutoff > 1) broken("a value out of range");
        char list[64];
        memset(list, 'x', sizeof list);
        if (options_no_effect(o, list, sizeof list) && !memchr(list, 0, sizeof list))
            broken("the no-effect list is not terminated");
        options_cpu_name(o->cpu);
    }
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0; /* the JVM hands over a C string: it ends at the first NUL */
    struct options a, b;
    enum options_result ra = parse(text, &a), rb = parse(text, &b);
    if (ra != rb || (ra == OPTIONS_OK && (a.cpu != b.cpu || a.heap != b.heap || strcmp(a.file, b.file) != 0)))
        broken("two parses of one text differ");
    options_free(&a);
    options_free(&b);
    free(text);
    return 0;
}
