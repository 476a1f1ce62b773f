/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run over time as one HTML page that opens from disk (nothing fetched): heap used,
 * committed and live after each GC, and the live bytes of the leak suspects at each
 * allocation record, drawn as SVG by a small script from the data written into the
 * page; the suspects in a table. Same look as the flame graph's page (flamegraph.html).
 */
#ifndef HPROF_TIMELINE_HTML_H
#define HPROF_TIMELINE_HTML_H

#include <stddef.h>

struct timeline_table;
struct suspect;

/* Writes the page to path; -1 with err set on failure. */
int timeline_html_write(const char *path, const struct timeline_table *t, const struct suspect *s, int n, char *err,
                        size_t errlen);

#endif
