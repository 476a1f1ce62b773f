#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The sites' views hold every site, whatever SITES' cutoff, so that their totals are the
# run's; and alloc_sample= estimates never show more live than allocated.
#   R  exact heap=sites on tests/java/SitesRequests.java: per-request garbage at 1024
#      stacks (51,200 char[12], 2,048,000 bytes, 2,000 at each stack) beside 32 MB of
#      long[] kept live. SITES, ranked and cut by live bytes, lists none of the char[];
#      the collapsed stacks, pprof (read by go tool pprof) and the flame graph (read in
#      chromium) hold each of them with its exact count. hprof view of the text file says
#      what it lacks; of the binary file, it adds what ALLOC SITES cut as one stack, so
#      its total is the record's.
#   E  alloc_sample=524288 on tests/java/SitesSampledLive.java (arrays of 1 KB to 1 MB
#      kept live at three sites): every SITES row and every pprof sample has live bytes
#      and objects no more than allocated ones.
source "$HPROF_ROOT/tests/lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"
set +e

pprof_bytes() { # pprof_bytes FILE TYPE [FOCUS]: pprof_total's figure in bytes, without the unit
  local out
  out=$(HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -top -unit=byte -nodefraction=0 -nodecount=1000000 \
    -sample_index="$2" ${3:+"-focus=$3"} "$1" 2>/dev/null)
  if [[ -n "${3:-}" ]]; then
    sed -n 's/.*accounting for \([0-9]*\)B, .*/\1/p' <<<"$out" | head -1
  else
    sed -n 's/.* of \([0-9]*\)B total.*/\1/p' <<<"$out" | head -1
  fi
}

# ---- R: every site in the views ----
run_java "$(agent heap=sites,depth=32,view=all,file=r.txt)" SitesRequests
check "R: view=all runs, the program's output unchanged" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx 'requests 25600 kept 4 sink 6144000' out.txt && [[ -s r.sites.collapsed && -s r.sites.pb.gz && -s r.sites.html ]]"
# handle_rows FILE: the SITES rows of traces through SitesRequests.handle
handle_rows() {
  awk '/^TRACE [0-9]+:/ { t = $2; sub(/:/, "", t); next } /^[^\t]/ { t = "" }
    t != "" && /^\tSitesRequests\.handle\(/ { h[t] = 1 }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && ($8 in h) { n++ } END { print n + 0 }' "$1"
}
check "R: SITES (cut by live bytes) lists none of the per-request char[] ($(handle_rows r.txt) rows)" \
  test "$(handle_rows r.txt)" = 0
grep -E ';SitesRequests\.handle;char\[\] [0-9]+$' r.sites.collapsed >handle.txt || true
check "R: the collapsed stacks hold the 1024 request stacks, 2000 bytes each ($(wc -l <handle.txt) stacks)" \
  bash -c "[[ \$(wc -l <handle.txt) -eq 1024 && \$(awk '\$NF != 2000' handle.txt | wc -l) -eq 0 ]]"
check "R: ... 2,048,000 bytes of char[] under handle in all ($(collapsed_total handle.txt))" \
  test "$(collapsed_total handle.txt)" = 2048000
check "R: no stack of sites cut out" bash -c "! grep -q 'under cutoff' r.sites.collapsed"
ctotal=$(collapsed_total r.sites.collapsed)
check "R: the collapsed total holds the 32 MB kept and the requests' garbage ($ctotal)" \
  test "$ctotal" -ge $((4 * (8 * 1048576 + 16) + 2048000))
if have_go; then
  check "R: go tool pprof: alloc_space total = the collapsed total ($(pprof_bytes r.sites.pb.gz alloc_space))" \
    test "$(pprof_bytes r.sites.pb.gz alloc_space)" = "$ctotal"
  check "R: go tool pprof: 2,048,000 bytes allocated under SitesRequests.handle ($(pprof_bytes r.sites.pb.gz alloc_space 'SitesRequests\.handle$'))" \
    test "$(pprof_bytes r.sites.pb.gz alloc_space 'SitesRequests\.handle$')" = 2048000
  check "R: go tool pprof: 51,200 objects allocated under SitesRequests.handle ($(pprof_total r.sites.pb.gz alloc_objects 'SitesRequests\.handle$'))" \
    test "$(pprof_total r.sites.pb.gz alloc_objects 'SitesRequests\.handle$')" = 51200
  n=$(pprof_collapsed r.sites.pb.gz alloc_objects | grep -cE ';SitesRequests\.handle;char\[\] 50$' || true)
  check "R: go tool pprof -traces: 1024 request stacks of 50 char[] each ($n)" test "$n" = 1024
else
  not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
fi
if have_chromium; then
  html_search "$WORK/r.sites.html" SitesRequests.handle >search.txt || true
  check "R: flame graph in chromium: SitesRequests.handle matches 2,048,000 bytes of $ctotal" \
    bash -c "grep -qx 'matched=2048000' search.txt && grep -qx 'total=$ctotal' search.txt"
else
  not_ok "chromium not found (Debian: apt-get install chromium)"
fi
"$HPROF_TOOL" view r.txt -o text.collapsed 2>text.err || true
check "R: hprof view of the text file says its SITES holds only what the cutoff kept" \
  grep -q "note: a text file's SITES lists only the sites its cutoff kept" text.err

# The binary file's ALLOC SITES is cut as SITES is, but its header has the run's totals.
run_java "$(agent heap=sites,depth=32,format=b,file=r.hprof)" SitesRequests
"$HPROF_TOOL" view r.hprof -o bin.collapsed 2>bin.err || true
all=$("$HPROF_DUMP" r.hprof 2>/dev/null | sed -n 's/^.*ALLOC_SITES .* alloc_bytes=\([0-9]*\) .*/\1/p' | tail -1)
btotal=$(collapsed_total bin.collapsed)
check "R: hprof view of the binary file: its total is ALLOC SITES' alloc_bytes ($btotal, ${all:-none})" \
  test -n "$all" -a "$btotal" = "$all"
check "R: ... what the record's list left out as one stack" grep -qE '^\[rows under the cutoff\] [0-9]+$' bin.collapsed

# ---- E: alloc_sample= estimates: live never more than allocated ----
run_java -Xmx512m "$(agent heap=sites,alloc_sample=524288,cutoff=0,view=pprof,file=e.txt)" SitesSampledLive
check "E: alloc_sample=524288 runs" bash -c "[[ $RC -eq 0 ]] && grep -q '^kept 6120 ' out.txt && [[ -s e.sites.pb.gz ]]"
rows=$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $1 ~ /^[0-9]+$/ {
  n++; if ($4 > 0) live++; if ($4 > $6 || $5 > $7) { bad++; if (!first) first = $0 } }
  END { printf "%d %d %d %s\n", n, live, bad, first }' e.txt)
read -r nrows nlive nbad first <<<"$rows"
check "E: every SITES row has live bytes and objects <= allocated ($nbad of $nrows rows more${first:+: $first})" \
  test "$nbad" = 0 -a "$nrows" -gt 0
check "E: the three sites of kept arrays (at least) have live estimates ($nlive rows)" test "$nlive" -ge 3
if have_go; then
  HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -raw e.sites.pb.gz >raw.txt 2>/dev/null || true
  raw=$(awk '/^alloc_space\/bytes/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:/ {
    sub(/:.*/, ""); n++; if ($3 > 0) live++; if ($3 > $1 || $4 > $2) bad++ } END { print n + 0, live + 0, bad + 0 }' raw.txt)
  read -r ns nslive nsbad <<<"$raw"
  check "E: go tool pprof -raw: every sample has inuse <= alloc, space and objects ($nsbad of $ns more)" \
    test "$nsbad" = 0 -a "$ns" -gt 0 -a "$nslive" -ge 3
else
  not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
fi
jni_clean
