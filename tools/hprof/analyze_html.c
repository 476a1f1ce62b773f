/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report as one self-contained page (no network: data and script inline): the
 * histogram (sortable by a click on a column), the dominator tree from the GC roots,
 * expandable level by level, and on a click on an object the shortest path from a root to
 * it. The page holds the top of the tree only: the biggest children of each node shown,
 * a few levels down, and the objects on those nodes' paths, within a fixed count.
 * For tests and links, the address may say #expand=0xID or #path=0xID.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

#define PAGE_NODES   20000 /* objects the page carries at most */
#define PAGE_KIDS    25    /* children shown under each */
#define PAGE_DEPTH   8     /* levels below the roots */
#define PAGE_CLASSES 1000  /* histogram rows */
#define PATH_MAX_LEN 64    /* objects of a path the page carries */

static const char HEAD[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hprof analyze</title>\n<style>\n"
    "body{font:13px sans-serif;margin:1em}table{border-collapse:collapse}td,th{padding:1px 8px;text-align:right}"
    "td:last-child,th:last-child{text-align:left}th{cursor:pointer;background:#eee}"
    "tr:nth-child(even){background:#f8f8f8}.t{cursor:pointer;font-family:monospace;width:1.5em;display:inline-block}"
    ".o{cursor:pointer;color:#036}#path{white-space:pre;font-family:monospace;background:#f4f4f4;padding:.5em}\n"
    "</style></head><body>\n<h1>What holds the memory</h1><p id=\"summary\"></p>\n"
    "<h2>Dominator tree</h2><p>Click + to open a node, an object for its path from a GC root.</p>"
    "<table "
    "id=\"tree\"><thead><tr><th>retained</th><th>shallow</th><th>object</th></tr></thead><tbody></tbody></table>\n"
    "<h2>Path from a GC root</h2><div id=\"path\">(click an object)</div>\n"
    "<h2>Classes</h2><p>Click a column to sort.</p><table id=\"histo\"><thead><tr><th data-k=\"1\">instances</th>"
    "<th data-k=\"2\">shallow</th><th data-k=\"3\">retained</th><th data-k=\"0\">class</th></tr></thead><tbody>"
    "</tbody></table>\n<script>\nconst D = ";

static const char SCRIPT[] =
    ";\nconst byId = {};\nD.nodes.forEach((n, i) => { byId[n[0]] = i; });\n"
    "const esc = s => s.replace(/[&<>\"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'})[c]);\n"
    "document.getElementById('summary').textContent = D.summary;\n"
    "function row(i, depth, parent) {\n"
    "  const n = D.nodes[i], tr = document.createElement('tr');\n"
    "  tr.dataset.id = n[0]; if (parent !== null) tr.dataset.parent = D.nodes[parent][0];\n"
    "  tr.dataset.depth = depth;\n"
    "  const kids = n[5].length ? '+' : '';\n"
    "  tr.innerHTML = '<td>' + n[3] + '</td><td>' + n[2] + '</td><td style=\"padding-left:' + (depth * 1.2) +\n"
    "    'em\"><span class=\"t\">' + kids + '</span><span class=\"o\">' + esc(n[1]) + '</span></td>';\n"
    "  tr.querySelector('.t').onclick = () => toggle(tr, i, depth);\n"
    "  tr.querySelector('.o').onclick = () => showPath(n[0]);\n"
    "  return tr;\n}\n"
    "function toggle(tr, i, depth) {\n"
    "  const t = tr.querySelector('.t');\n"
    "  if (t.textContent === '-') {\n"
    "    let x = tr.nextSibling;\n"
    "    while (x && +x.dataset.depth > depth) { const y = x.nextSibling; x.remove(); x = y; }\n"
    "    t.textContent = '+'; return;\n  }\n"
    "  if (t.textContent !== '+') return;\n"
    "  let after = tr;\n"
    "  for (const c of D.nodes[i][5]) { const r = row(c, depth + 1, i); after.after(r); after = r; }\n"
    "  t.textContent = '-';\n}\n"
    "function showPath(id) {\n"
    "  const out = [];\n  let i = byId[id];\n"
    "  while (i !== undefined && out.length < 100) {\n"
    "    out.unshift(D.nodes[i]);\n    const f = D.nodes[i][4];\n"
    "    if (f < 0 || f === i) break;\n    i = f;\n  }\n"
    "  const p = document.getElementById('path');\n"
    "  if (!out.length || D.nodes[byId[id]][4] === -1) { p.textContent = id + ': no path from a root'; return; }\n"
    "  p.textContent = out.map((n, k) => ' '.repeat(2 * Math.min(k, 30)) + (k ? '-> ' : 'root ') + n[1] +\n"
    "    ' (retains ' + n[3] + ')').join('\\n');\n}\n"
    "const tb = document.querySelector('#tree tbody');\n"
    "D.top.forEach(i => tb.appendChild(row(i, 0, null)));\n"
    "let sortKey = 3, sortDown = true;\n"
    "function histo() {\n"
    "  const rows = D.histogram.slice().sort((a, b) => {\n"
    "    const x = a[sortKey], y = b[sortKey];\n"
    "    const c = typeof x === 'string' ? x.localeCompare(y) : x - y;\n"
    "    return sortDown ? -c : c; });\n"
    "  document.querySelector('#histo tbody').innerHTML = rows.map(r => '<tr class=\"h\"><td>' + r[1] + '</td><td>' +\n"
    "    r[2] + '</td><td>' + r[3] + '</td><td>' + esc(r[0]) + '</td></tr>').join('');\n}\n"
    "document.querySelectorAll('#histo th').forEach(th => th.onclick = () => {\n"
    "  const k = +th.dataset.k; sortDown = k === sortKey ? !sortDown : k !== 0; sortKey = k; histo(); });\n"
    "histo();\n"
    "function fromHash() {\n"
    "  const m = /^#(expand|path)=(0x[0-9a-f]+)$/.exec(location.hash);\n"
    "  if (!m) return;\n"
    "  if (m[1] === 'path') { showPath(m[2]); return; }\n"
    "  const tr = document.querySelector('#tree tr[data-id=\"' + m[2] + '\"]');\n"
    "  if (tr) tr.querySelector('.t').click();\n}\n"
    "window.addEventListener('hashchange', fromHash);\nfromHash();\n"
    "</script></body></html>\n";

/* The objects the page carries: pos[o] = their index in the page, AN_NONE otherwise. */
struct page {
    uint32_t *pos, *list, n;
};

static bool add(struct page *p, uint32_t o)
{
    if (p->pos[o] != AN_NONE) return true;
    if (p->n == PAGE_NODES) return false;
    p->pos[o] = p->n;
    p->list[p->n++] = o;
    return true;
}

/* The biggest children of o (at most PAGE_KIDS) into out; their count. */
static uint32_t biggest_kids(const struct an_dom *d, const struct an_kids *k, uint32_t o, uint32_t *out)
{
    uint32_t m = 0;
    for (uint32_t i = k->off[o]; i < k->off[o + 1]; i++) {
        uint32_t x = k->v[i];
        if (m == PAGE_KIDS && d->retained[x] <= d->retained[out[m - 1]]) continue;
        uint32_t j = m < PAGE_KIDS ? m++ : PAGE_KIDS - 1;
        while (j > 0 && d->retained[out[j - 1]] < d->retained[x]) out[j] = out[j - 1], j--;
        out[j] = x;
    }
    return m;
}

void an_html(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *out)
{
    struct an_kids k;
    struct page p = {0};
    uint32_t *from = an_bfs(h, AN_NONE), *depth = NULL;
    p.pos = malloc(((size_t)h->n + 1) * sizeof *p.pos);
    p.list = malloc(PAGE_NODES * sizeof *p.list);
    depth = malloc(PAGE_NODES * sizeof *depth);
    if (!from || !p.pos || !p.list || !depth || an_kids_make(h, d, &k)) {
        fprintf(stderr, "hprof analyze: out of memory for the page\n");
        free(from), free(p.pos), free(p.list), free(depth);
        return;
    }
    for (uint32_t i = 0; i <= h->n; i++) p.pos[i] = AN_NONE;
    uint32_t kids[PAGE_KIDS], ntop = biggest_kids(d, &k, h->n, kids), top[PAGE_KIDS];
    memcpy(top, kids, sizeof top);
    /* breadth-first down the tree: the list is its own queue */
    for (uint32_t i = 0; i < ntop; i++) add(&p, top[i]), depth[p.pos[top[i]]] = 0;
    for (uint32_t q = 0; q < p.n; q++) {
        if (depth[q] >= PAGE_DEPTH) continue;
        uint32_t m = biggest_kids(d, &k, p.list[q], kids);
        for (uint32_t i = 0; i < m; i++)
            if (p.pos[kids[i]] == AN_NONE && add(&p, kids[i])) depth[p.pos[kids[i]]] = depth[q] + 1;
    }
    /* the paths of what is there, as far as room allows */
    uint32_t shown = p.n;
    for (uint32_t q = 0; q < shown; q++) {
        uint32_t x = p.list[q];
        for (uint32_t s = 0; s < PATH_MAX_LEN && from[x] != AN_NONE && from[x] != x; s++) {
            x = from[x];
            if (!add(&p, x)) break;
        }
    }
    struct buf b, lb;
    buf_init(&b);
    buf_init(&lb);
    fputs(HEAD, out);
    buf_printf(&b,
               "{\"summary\": \"%u objects, %u reachable from %u GC roots, %" PRIu64
               " bytes; retained sizes as VisualVM computes them\",\n\"nodes\": [",
               h->n, d->nreach, h->nroots, d->total);
    for (uint32_t q = 0; q < p.n; q++) {
        uint32_t x = p.list[q];
        buf_reset(&lb);
        an_object_label(h, x, &lb);
        buf_printf(&b, "%s\n[\"0x%" PRIx64 "\",", q ? "," : "", an_id(h, x));
        an_json_str(&b, lb.data, lb.len);
        int64_t f = from[x] == AN_NONE ? -1 : p.pos[from[x]] == AN_NONE ? -2 : (int64_t)p.pos[from[x]];
        buf_printf(&b, ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",[", an_shallow(h, x), d->retained[x], f);
        uint32_t m = biggest_kids(d, &k, x, kids), c = 0;
        for (uint32_t i = 0; i < m; i++)
            if (p.pos[kids[i]] != AN_NONE) buf_printf(&b, "%s%u", c++ ? "," : "", p.pos[kids[i]]);
        buf_put(&b, "]]", 2);
        if (b.len > (1u << 20)) fwrite(b.data, 1, b.len, out), buf_reset(&b);
    }
    buf_put(&b, "],\n\"top\": [", 11);
    for (uint32_t i = 0; i < ntop; i++) buf_printf(&b, "%s%u", i ? "," : "", p.pos[top[i]]);
    buf_put(&b, "],\n\"histogram\": [", 17);
    uint32_t nr = 0;
    struct an_histo *r = an_histogram(h, d, &nr);
    for (uint32_t i = 0; r && i < nr && i < PAGE_CLASSES; i++) {
        buf_reset(&lb);
        an_class_name(h, r[i].cls, &lb);
        buf_put(&b, i ? ",\n[" : "\n[", i ? 3 : 2);
        an_json_str(&b, lb.data, lb.len);
        buf_printf(&b, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", r[i].count, r[i].shallow, r[i].retained);
    }
    buf_put(&b, "]}", 2);
    fwrite(b.data, 1, b.len, out);
    fputs(SCRIPT, out);
    (void)o;
    free(r);
    buf_free(&b), buf_free(&lb);
    an_kids_free(&k);
    free(from), free(p.pos), free(p.list), free(depth);
}
