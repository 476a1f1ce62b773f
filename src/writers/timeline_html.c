/* SPDX-License-Identifier: Apache-2.0 */
#include "writers/timeline_html.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tables/classes.h"
#include "tables/sites.h"
#include "tables/timeline.h"
#include "tables/traces.h"
#include "util/buf.h"
#include "util/fd_io.h"

static const char HEAD[] =
    "<!DOCTYPE html>\n<!-- The run over time, written by hprof (timeline=): one file, nothing fetched. -->\n"
    "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>hprof timeline</title>\n<style>\n"
    "body { margin: 0; font: 13px sans-serif; color: #222; background: #fff; }\n"
    "header { background: #fafafa; border-bottom: 1px solid #ccc; padding: 8px 12px; }\n"
    "h1 { font-size: 16px; margin: 0 0 3px; } h2 { font-size: 14px; margin: 14px 12px 4px; }\n"
    "#info { color: #555; } svg { display: block; margin: 0 12px; } .axis { stroke: #888; }\n"
    "text { font: 11px sans-serif; fill: #444; } table { border-collapse: collapse; margin: 0 12px; }\n"
    "td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; } td.l { text-align: left; }\n"
    "#legend span, td span { display: inline-block; width: 11px; height: 11px; margin: 0 3px 0 10px; }\n"
    "</style>\n</head>\n<body>\n<header><h1>hprof timeline</h1><div id=\"info\"></div></header>\n"
    "<h2>Heap after each GC (bytes)</h2><div id=\"legend\"></div><svg id=\"heap\" width=\"900\" height=\"260\"></svg>\n"
    "<h2>Live bytes of the leak suspects, per allocation record</h2><svg id=\"sites\" width=\"900\" "
    "height=\"260\"></svg>\n"
    "<h2>Leak suspects</h2><table id=\"suspects\"></table>\n<pre id=\"result\" hidden></pre>\n<script>\nconst T = ";

static const char TAIL[] =
    ";\n(function () {\n'use strict';\n"
    "const NS = 'http://www.w3.org/2000/svg', COLORS = ['#c33', '#36c', '#393', '#c90', '#939', '#099', '#666'];\n"
    "function el(tag, attrs, parent) { const e = document.createElementNS(NS, tag);\n"
    "  for (const k in attrs) e.setAttribute(k, attrs[k]); parent.appendChild(e); return e; }\n"
    "function human(v) { const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB']; let i = 0;\n"
    "  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; } return v.toFixed(i ? 1 : 0) + ' ' + u[i]; }\n"
    "/* One chart: series of [x, y] points, scaled to the svg; returns the polylines drawn. */\n"
    "function chart(svg, series, xname) {\n"
    "  const W = +svg.getAttribute('width'), H = +svg.getAttribute('height'), L = 70, B = 20;\n"
    "  let xmax = 1, ymax = 1;\n"
    "  for (const s of series) for (const p of s.points) { xmax = Math.max(xmax, p[0]); ymax = Math.max(ymax, p[1]); "
    "}\n"
    "  el('line', {x1: L, y1: H - B, x2: W, y2: H - B, class: 'axis'}, svg);\n"
    "  el('line', {x1: L, y1: 0, x2: L, y2: H - B, class: 'axis'}, svg);\n"
    "  el('text', {x: 2, y: 12}, svg).textContent = human(ymax);\n"
    "  el('text', {x: W - 120, y: H - 4}, svg).textContent = xname + ' ' + xmax;\n"
    "  let n = 0;\n"
    "  series.forEach(function (s, i) {\n"
    "    const pts = s.points.map(p => (L + p[0] / xmax * (W - L - 4)).toFixed(1) + ',' + (H - B - p[1] / ymax * (H - "
    "B - 4)).toFixed(1));\n"
    "    if (!pts.length) return;\n"
    "    const line = el('polyline', {points: pts.join(' '), fill: 'none', stroke: COLORS[i % COLORS.length], "
    "'stroke-width': 1.5}, svg);\n"
    "    el('title', {}, line).textContent = s.name; n++;\n"
    "  });\n"
    "  return n;\n}\n"
    "const g = T.gcs;\n"
    "const heap = [{name: 'used', points: g.map(x => [x[1], x[2]])}, {name: 'committed', points: g.map(x => [x[1], "
    "x[3]])},\n"
    "              {name: 'live (heap=sites)', points: g.map(x => [x[1], x[4]])}];\n"
    "document.getElementById('legend').innerHTML = heap.map((s, i) => '<span style=\"background:' + COLORS[i] + "
    "'\"></span>' + s.name).join('');\n"
    "const lines = chart(document.getElementById('heap'), heap, 'ms');\n"
    "const sites = T.suspects.map(s => ({name: s.name + ' (trace ' + s.trace + ')', points: s.points.map((v, i) => "
    "[T.intervals[i] + 1, v])}));\n"
    "const slines = chart(document.getElementById('sites'), sites, 'record');\n"
    "const tab = document.getElementById('suspects');\n"
    "tab.innerHTML = '<tr><th>rank</th><th>class</th><th>trace</th><th>grew</th><th>first live</th><th>last "
    "live</th><th>new highs</th></tr>' +\n"
    "  T.suspects.map((s, i) => '<tr><td>' + (i + 1) + '</td><td class=\"l\"><span style=\"background:' + COLORS[i % "
    "COLORS.length] + '\"></span>' +\n"
    "    s.name.replace(/&/g, '&amp;').replace(/</g, '&lt;') + '</td><td>' + s.trace + '</td><td>' + human(s.last - "
    "s.first) + '</td><td>' +\n"
    "    human(s.first) + '</td><td>' + human(s.last) + '</td><td>' + s.highs + '/' + s.intervals + "
    "'</td></tr>').join('');\n"
    "document.getElementById('info').textContent = g.length + ' GCs drawn of ' + T.gcCount + ', ' + T.records + ' "
    "allocation records, ' +\n"
    "  T.suspects.length + ' leak suspects';\n"
    "document.getElementById('result').textContent = 'gcs=' + g.length + ' heaplines=' + lines + ' suspects=' + "
    "T.suspects.length +\n"
    "  ' sitelines=' + slines + ' first=' + (T.suspects.length ? T.suspects[0].name : '');\n"
    "})();\n</script>\n</body>\n</html>\n";

/* A JSON string (class names may hold any character). */
static void json_string(struct buf *b, const char *s)
{
    buf_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>')
            buf_printf(b, "\\u%04x", c); /* no </script> inside */
        else
            buf_printf(b, "%c", c);
    }
    buf_printf(b, "\"");
}

static void data(struct buf *b, const struct timeline_table *t, const struct suspect *s, int n)
{
    buf_printf(b, "{\"gcCount\": %u, \"records\": %u, \"gcs\": [", t->gcs, t->intervals);
    for (uint32_t i = 0; i < t->nheap; i++) {
        const struct heap_point *p = &t->heap[i];
        buf_printf(b, "%s[%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", i ? "," : "", p->gc, p->ms,
                   p->used_after, p->committed, p->live_bytes);
    }
    buf_printf(b, "], \"intervals\": [");
    for (uint32_t i = 0; i < t->npoints; i++) buf_printf(b, "%s%u", i ? "," : "", t->point_interval[i]);
    buf_printf(b, "], \"suspects\": [");
    for (int i = 0; i < n; i++) {
        buf_printf(b, "%s{\"name\": ", i ? "," : "");
        json_string(b, s[i].site->cls->name);
        buf_printf(b,
                   ", \"trace\": %u, \"first\": %" PRIu64 ", \"last\": %" PRIu64 ", \"highs\": %u, \"intervals\": %u, "
                   "\"points\": [",
                   s[i].site->trace->serial, s[i].first_live, s[i].last_live, s[i].highs, s[i].intervals);
        const uint64_t *v = timeline_series(t, s[i].site->id);
        for (uint32_t j = 0; v && j < t->npoints; j++) buf_printf(b, "%s%" PRIu64, j ? "," : "", v[j]);
        buf_printf(b, "]}");
    }
    buf_printf(b, "]}");
}

int timeline_html_write(const char *path, const struct timeline_table *t, const struct suspect *s, int n, char *err,
                        size_t errlen)
{
    struct buf b;
    buf_init(&b);
    buf_put(&b, HEAD, sizeof HEAD - 1);
    data(&b, t, s, n);
    buf_put(&b, TAIL, sizeof TAIL - 1);
    bool good = fd_write_file(path, b.data, b.len) == 0;
    if (!good) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    buf_free(&b);
    return good ? 0 : -1;
}
