#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof analyze against VisualVM's heap library (Debian package visualvm): the same shallow
# and retained size for every object of dumps of a program of known shapes (chains,
# diamonds, cycles, shared subtrees, weak and soft references, static and thread roots)
# written by the JVM (jcmd GC.heap_dump, hprof heap) and by this agent (heap=all), and
# for every object (the 100 biggest too) of a dump of javac mid-run; exact sizes of the known shapes;
# the by-site table of a leak from one line; two dumps compared; gzip; the HTML page in
# headless chromium; memory refused up front; the dump never written.
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"

HP=$HPROF_TOOL
JAR=$(dpkg -L visualvm 2>/dev/null | grep 'org-graalvm-visualvm-lib-jfluid-heap\.jar$' | head -1)
VV=0
if [[ -n "$JAR" && -f "$JAR" ]]; then
  mkdir -p vv
  "$JAVA_HOME/bin/javac" -nowarn -d vv -cp "$JAR" "$HPROF_ROOT/tests/java/visualvm/RetainedVisualVM.java" && VV=1
fi
vv() { "$JAVA" -Xmx2g -cp "vv:$JAR" RetainedVisualVM "$@" 2>>vv-errors.txt; }
NO_VV="VisualVM's heap library is not installed (apt-get install visualvm)"

# The known shapes, dumped by the JVM twice (jcmd, hprof heap) while the program waits.
set +e
"$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" AnalyzeShapes wait >shapes.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -q ready shapes.out 2>/dev/null && break; sleep 0.1; done
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$WORK/jcmd.hprof" >/dev/null 2>&1
"$HP" heap $PID "$WORK/hheap.hprof" >hheap.out 2>&1
kill $PID; wait $PID 2>/dev/null
# The leak, dumped by the JVM (to compare with the first) ...
"$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" AnalyzeShapes leak wait >leak.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -q ready leak.out 2>/dev/null && break; sleep 0.1; done
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$WORK/leak.hprof" >/dev/null 2>&1
kill $PID; wait $PID 2>/dev/null
# ... and by the agent with a trace per object (heap=all).
"$JAVA" -Xcheck:jni "$(agent heap=all,format=b,file=all.hprof,depth=4)" -cp "$TEST_CLASSES" AnalyzeShapes leak \
  >all.out 2>&1
set -e
check "the dumps were written" test -s jcmd.hprof -a -s hheap.hprof -a -s leak.hprof -a -s all.hprof

# compare NAME DUMP: every object VisualVM lists, ours against its (shallow, retained).
compare() {
  local name=$1 dump=$2
  "$HP" analyze "$dump" --objects >"$name.ours" 2>"$name.err"
  awk '{ print $1, $3, $4 }' "$name.ours" | LC_ALL=C sort >"$name.ours.s"
  vv all "$dump" | LC_ALL=C sort >"$name.vv"
  # VisualVM lists the unreachable with retained 0; --objects only the reachable
  LC_ALL=C join -a1 -e X -o 0,1.2,1.3,2.2,2.3 "$name.vv" "$name.ours.s" >"$name.join"
  local n bad missing
  n=$(awk '$4 != "X"' "$name.join" | wc -l)
  bad=$(awk '$4 != "X" && ($2 != $4 || $3 != $5)' "$name.join" | wc -l)
  missing=$(awk '$4 == "X" && $3 != 0' "$name.join" | wc -l)
  check "$name: $n objects, the same shallow and retained sizes as VisualVM ($bad differ)" \
    test "$n" -gt 1000 -a "$bad" -eq 0 -a "$missing" -eq 0
  if [[ $bad -gt 0 ]]; then awk '$4 != "X" && ($2 != $4 || $3 != $5)' "$name.join" | head -5 | sed 's/^/#   /'; fi
}

# shapes_exact NAME: the known shapes' sizes from the program's text (Node: 3 fields and a
# long; payload byte[n]), worked out here and found in --objects.
if [[ $VV == 1 ]]; then
  compare jcmd jcmd.hprof
  compare hheap hheap.hprof
  compare agent all.hprof
  # the 100 biggest by retained size
  top100() { vv top "$1" 100 | awk '{ print $2 }' >"$2.vv.top"
             "$HP" analyze "$1" --objects | sort -k4,4nr | head -100 | awk '{ print $4 }' >"$2.ours.top"; }
  top100 jcmd.hprof jcmd
  check "jcmd: the 100 biggest retained sizes are VisualVM's" cmp -s jcmd.vv.top jcmd.ours.top
  # javac mid-run (interpreted, so that it is still at work when dumped): the 100 biggest
  mkdir -p javac-out
  set +e
  "$JAVA_HOME/bin/javac" -J-Xint -J-Xcheck:jni -d javac-out "$HPROF_ROOT"/tests/java/*.java >javac.out 2>&1 &
  JP=$!
  for _ in $(seq 100); do "$JAVA_HOME/bin/jcmd" $JP VM.uptime >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 2
  "$JAVA_HOME/bin/jcmd" $JP GC.heap_dump "$WORK/javac.hprof" >/dev/null 2>&1
  kill $JP 2>/dev/null; wait $JP 2>/dev/null
  set -e
  if [[ -s javac.hprof ]]; then
    # every object, and the 100 biggest. The application class loader, its list of
    # classes and the list's array once retained 12% more than VisualVM says: its walk
    # from the roots reaches a class from its first instance met, before the list
    # (an_class_edges); without that edge, 3 objects differ here.
    compare javac javac.hprof
    vv top javac.hprof 100 | LC_ALL=C sort >javac.vv100
    "$HP" analyze javac.hprof --objects | sort -k4,4nr | head -100 | awk '{ print $1, $4 }' | LC_ALL=C sort >javac.ours100
    same=$(LC_ALL=C comm -12 javac.vv100 javac.ours100 | wc -l)
    check "javac mid-run: $same of the 100 biggest objects have VisualVM's retained sizes" test "$same" -eq 100
    LC_ALL=C comm -3 javac.vv100 javac.ours100 | head -10 | sed 's/^/#   VisualVM | ours: /'
  else
    skip "javac mid-run: the 100 biggest retained sizes are VisualVM's" "javac ended before its dump"
  fi
else
  skip "retained sizes equal VisualVM's" "$NO_VV"
fi

# Exact sizes of the shapes with compressed oops (the default heap): Node 12 + 4 + 4 + 8
# + 4 = 32 bytes; byte[n] 16 + n aligned to 8.
arr() { echo $(( (16 + $1 + 7) / 8 * 8 )); }
node() { echo $(( 32 + $(arr "$1") )); }
head_id=$("$HP" analyze jcmd.hprof --path 'AnalyzeShapes$Node' | sed -n 's/.*AnalyzeShapes\$Node#\(0x[0-9a-f]*\).*/\1/p' | tail -1)
want=$(node 10); for i in $(seq 0 98); do want=$(( want + $(node $i) )); done
check "the chain's head retains the 100 nodes and their arrays ($want bytes)" \
  grep -q "^$head_id AnalyzeShapes\$Node 32 $want 0x" jcmd.ours
# the biggest Node instance is the chain's head; its path starts at a root, the class
"$HP" analyze jcmd.hprof --path 'AnalyzeShapes$Node' | sed -n '/^PATH BEGIN/,/^PATH END/p' >path.txt
check "--path CLASS: from a root through the class AnalyzeShapes to the chain's head" \
  bash -c "sed -n 2p path.txt | grep -q '^root ' && grep -q -- '-> java.lang.Class AnalyzeShapes#' path.txt &&
           tail -2 path.txt | head -1 | grep -q 'AnalyzeShapes\$Node#$head_id '"
# diamond: top retains l, r and bottom; the cycle's entry retains the three
want=$(( $(node 1) + $(node 2) + $(node 3) + $(node 1000) ))
check "the diamond's top retains its four nodes ($want bytes)" \
  grep -q "AnalyzeShapes\$Node 32 $want 0x" jcmd.ours
check "the shared subtree is retained by neither of its two holders" \
  test "$(grep -c "AnalyzeShapes\$Node 32 $(( $(node 4000) + $(node 100) )) 0x" jcmd.ours)" -eq 1
check "a weak referent held by nothing else is not reachable (Node 3000 absent)" \
  bash -c "! grep -q 'AnalyzeShapes\$Node 32 $(node 3000) 0x' jcmd.ours"
check "a thread-local value and a local of a thread are reachable (Node 5000, 6000)" \
  bash -c "grep -q 'AnalyzeShapes\$Node 32 $(node 5000) 0x' jcmd.ours && grep -q 'AnalyzeShapes\$Node 32 $(node 6000) 0x' jcmd.ours"

# The report: JSON parses; waste finds the 5 strings held 10 times and the empty lists.
"$HP" analyze jcmd.hprof --json top=5 >r.json
check "--json parses, with every section" python3 -c "
import json; d = json.load(open('r.json'))
assert set(d) >= {'dump', 'histogram', 'biggest', 'leak_suspects', 'waste'}, d.keys()
assert len(d['histogram']) == 5 and d['dump']['reachable'] > 1000"
check "waste: 'duplicated value N' held 10 times each" python3 -c "
import json; d = json.load(open('r.json'))
v = {g['value']: g['copies'] for g in d['waste']['duplicate_strings']['top']}
assert all(v.get('duplicated value %d' % i) == 10 for i in range(5)), v"
check "waste: at least the 20 empty ArrayLists and 10 empty HashMaps" python3 -c "
import json; d = json.load(open('r.json'))
c = {x['class']: x['empty'] for x in d['waste']['collections']}
assert c['java.util.ArrayList'] >= 20 and c['java.util.HashMap'] >= 10, c"

# By allocation site: the leak's line on top.
line=$(grep -n 'LEAK_LINE$' "$HPROF_ROOT/tests/java/AnalyzeShapes.java" | cut -d: -f1)
"$HP" analyze all.hprof top=3 >all.txt
check "by site: the first site's stack holds the leaking line (AnalyzeShapes.java:$line)" \
  bash -c "sed -n '/^SITES BEGIN/,/^   2 /p' all.txt | grep -q 'AnalyzeShapes.main(AnalyzeShapes.java:$line)'"
check "by site: it retains the 2000 links and their 1 KB arrays" \
  bash -c "sed -n '/^SITES BEGIN/,/^SITES END/p' all.txt | awk '\$1 == 1 { exit !(\$2 >= 2000 * 1040) }'"

# Two dumps: the leak's run against the plain one, both by the JVM.
"$HP" analyze --diff jcmd.hprof leak.hprof top=5 >diff.txt
check "--diff: the 2000 links grew by their retained bytes (2000 x (24 + 1040)), on top" \
  bash -c "awk '/^GROWTH BY CLASS BEGIN/,/^GROWTH BY CLASS END/' diff.txt | awk '\$1 == 1 { exit !(\$2 == \"+2000\" && \$4 == \"+2128000\" && \$NF == \"AnalyzeShapes\$Link\") }'"
check "--diff: byte[] grew by the leak's 2000 arrays at least" \
  bash -c "awk '/^GROWTH BY CLASS BEGIN/,/^GROWTH BY CLASS END/' diff.txt | grep -q . && '$HP' analyze --diff jcmd.hprof leak.hprof top=1000 | awk '\$NF == \"byte[]\" { f = 1; exit !(\$2 >= 2000) } END { exit !f }'"
check "--diff: the subtree under the class AnalyzeShapes grew" \
  bash -c "awk '/^GROWTH BY SUBTREE BEGIN/,/END/' diff.txt | grep -q 'class AnalyzeShapes / AnalyzeShapes\$Link'"

# gzip: the same answers.
gzip -c jcmd.hprof >jcmd.hprof.gz
"$HP" analyze jcmd.hprof.gz --objects >gz.ours
check "a gzipped dump gives the same sizes" cmp -s gz.ours jcmd.ours

# Ids 4 GB and more apart (the index keeps an id's low half, its high half in runs): a
# chain of 6 objects over three such ranges, written out of id order, 8-byte ids; each
# Link is 24 bytes (8 of header id, 8 of class, 8 of its field), so the k-th from the
# root retains (6 - k) * 24.
python3 -c "
import struct, sys
out = sys.stdout.buffer
def rec(tag, body): out.write(struct.pack('>BII', tag, 0, len(body)) + body)
out.write(b'JAVA PROFILE 1.0.2\0' + struct.pack('>IQ', 8, 0))
rec(1, struct.pack('>Q', 1) + b'Link'); rec(1, struct.pack('>Q', 2) + b'next')
rec(2, struct.pack('>IQIQ', 1, 0x100, 0, 1))
ids = [0x100001000, 0x300002000, 0x200003000, 0x100001008, 0x300002008, 0x200003008]
body = bytearray(struct.pack('>BQIQQQQQQI', 0x20, 0x100, 0, 0, 0, 0, 0, 0, 0, 8) + struct.pack('>HHH', 0, 0, 1))
body += struct.pack('>QB', 2, 2) + struct.pack('>BQ', 0x05, 0x100) + struct.pack('>BQ', 0xFF, ids[0])
for i, x in enumerate(ids):
    body += struct.pack('>BQIQIQ', 0x21, x, 0, 0x100, 8, ids[i + 1] if i + 1 < len(ids) else 0)
rec(0x0C, bytes(body))
" >far.hprof
"$HP" analyze far.hprof --objects | awk '$2 == "Link" { print $1, $4 }' >far.ours
printf '0x100001000 144\n0x300002000 120\n0x200003000 96\n0x100001008 72\n0x300002008 48\n0x200003008 24\n' >far.want
check "ids 4 GB apart, out of order: a chain's retained sizes exact" cmp -s <(sort far.ours) <(sort far.want)

# Memory: said and refused up front; the dump is never written; the page is 0600.
sum=$(sha256sum jcmd.hprof)
set +e
"$HP" analyze jcmd.hprof --max-memory 1 >mem.out 2>mem.err
RC=$?
set -e
check "--max-memory 1: refused before the work, saying what it needs (exit $RC)" \
  bash -c "[[ $RC -eq 1 ]] && grep -q 'objects.*about [0-9]* MB of memory' mem.err"
"$HP" analyze jcmd.hprof -o report.html
check "-o report.html is 0600" test "$(stat -c %a report.html)" = 600
check "the dump is unchanged" test "$(sha256sum jcmd.hprof)" = "$sum"
check "bad input: a truncated dump is reported, no crash" \
  bash -c "head -c 100000 jcmd.hprof >cut.hprof; '$HP' analyze cut.hprof >/dev/null 2>&1; [[ \$? -le 1 ]]"

# The page in headless chromium: it loads offline, a click expands a node, a path shows.
if have_chromium; then
  chromium_run --dump-dom "file://$WORK/report.html" >page.html
  check "page: the histogram has rows" grep -q '<tr class="h"' page.html
  big=$(awk 'NR == 1 { print $1 }' <(sort -k4,4nr jcmd.ours))
  chromium_run --dump-dom "file://$WORK/report.html#expand=$big" >expanded.html
  check "page: expanding the biggest object shows what it dominates" grep -q 'data-parent="'"$big"'"' expanded.html
  chromium_run --dump-dom "file://$WORK/report.html#path=$head_id" >path.html
  check "page: the path from a root to the chain's head" bash -c "grep -A1000 'id=\"path\"' path.html | grep -q '$head_id'"
else
  skip "the page in headless chromium" "chromium is not installed"
fi

