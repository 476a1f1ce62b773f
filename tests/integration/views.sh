#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# view=: the agent's flame graph, collapsed stacks and pprof of each stack-based
# section, read back with real tools (go tool pprof, headless chromium) and compared
# with the text profile of the same run; and hprof view on the agent's own files.
source "$HPROF_ROOT/tests/lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"
set +e

same() { # same DESCRIPTION FILE1 FILE2: the two files are equal and not empty (diff shown when not)
  if [[ -s $2 ]] && cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; diff "$2" "$3" | head -5 | sed 's/^/#   /'; fi
}

# ---- cpu=samples: every view of the same run says what CPU SAMPLES says ----
run_java "$(agent cpu=samples,view=all,cutoff=0,interval=2)" HotMethod 1500
check "cpu=samples,view=all runs" test "$RC" -eq 0
check "the depth used is said on stderr" grep -q "stacks are taken 64 frames deep" out.txt
check "java.hprof.cpu.{html,collapsed,pb.gz} written beside java.hprof.txt" \
  test -s java.hprof.txt -a -s java.hprof.cpu.html -a -s java.hprof.cpu.collapsed -a -s java.hprof.cpu.pb.gz
total=$(cpu_total java.hprof.txt)
check "collapsed stacks add up to CPU SAMPLES' total ($total)" test "$(collapsed_total java.hprof.cpu.collapsed)" = "$total" -a "$total" -gt 0
text_collapsed java.hprof.txt "CPU SAMPLES" >expected.txt
merge_collapsed <java.hprof.cpu.collapsed >ours.txt
same "collapsed stacks = the text's TRACEs and CPU SAMPLES rows, stack by stack" expected.txt ours.txt
if have_go; then
  check "go tool pprof -top: the total is CPU SAMPLES' total" test "$(pprof_total java.hprof.cpu.pb.gz samples)" = "$total"
  pprof_collapsed java.hprof.cpu.pb.gz samples >pprof.txt
  same "go tool pprof -traces: the same stacks and counts as the text profile" expected.txt pprof.txt
  HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -raw java.hprof.cpu.pb.gz >raw.txt 2>&1
  check "pprof frames carry file names and lines (HotMethod.hot HotMethod.java:N)" \
    grep -Eq 'HotMethod\.hot HotMethod\.java:[0-9]+' raw.txt
  check "pprof sample types are named with their units (samples/count, cpu/nanoseconds)" \
    grep -q 'samples/count\[dflt\] cpu/nanoseconds' raw.txt
else
  not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
fi
if have_chromium; then
  hot=$(awk '/HotMethod\.hot/ { s += $NF } END { print s + 0 }' java.hprof.cpu.collapsed)
  html_search "$WORK/java.hprof.cpu.html" HotMethod.hot >search.txt
  check "flame graph in chromium: searching HotMethod.hot matches its $hot samples of $total" \
    grep -qx "matched=$hot" search.txt
  check "... and the page says the total and type" grep -qx "total=$total" search.txt
  shot=$ARTIFACTS/views-cpu-$JDK_NAME.png
  check "screenshot of the flame graph kept ($shot)" html_screenshot "$WORK/java.hprof.cpu.html" "$shot" HotMethod.hot
  chromium_run --dump-dom "file://$WORK/java.hprof.cpu.html" >dom.txt
  check "the page's title names the program and mode" grep -q "<title>hprof flame graph: cpu=samples of java HotMethod 1500</title>" dom.txt
  check "stacks 64 deep: no note that they were cut" grep -q '<div id="cut" hidden="">' dom.txt
else
  not_ok "chromium not found (Debian: apt-get install chromium)"
fi
# The converter makes the same collapsed stacks from the text file as the agent did.
"$HPROF_TOOL" view java.hprof.txt -o conv.collapsed 2>conv.err
merge_collapsed <conv.collapsed >conv.txt
same "hprof view of java.hprof.txt = the agent's own collapsed stacks" ours.txt conv.txt

# ---- format=b: the views beside a binary file, and hprof view of that file ----
run_java "$(agent cpu=samples,format=b,view=collapsed,cutoff=0,depth=12)" HotMethod 800
check "format=b,view=collapsed: java.hprof and java.hprof.cpu.collapsed" test -s java.hprof -a -s java.hprof.cpu.collapsed
check "depth= given: no note on stderr" bash -c "[[ $RC -eq 0 && -s java.hprof ]] && ! grep -q 'frames deep' '$WORK/out.txt'"
"$HPROF_TOOL" view java.hprof -o bin.collapsed 2>/dev/null
merge_collapsed <java.hprof.cpu.collapsed >ours-b.txt
merge_collapsed <bin.collapsed >conv-b.txt
same "hprof view of the binary java.hprof = the agent's collapsed stacks" ours-b.txt conv-b.txt

# ---- heap=sites: bytes and objects allocated ----
rm -f java.hprof*
run_java "$(agent heap=sites,view=collapsed+pprof,cutoff=0)" SitesKnown
check "heap=sites,view=collapsed+pprof runs" test "$RC" -eq 0 -a -s java.hprof.sites.collapsed -a -s java.hprof.sites.pb.gz
alloc=$(awk '/^SITES BEGIN/ { n = 0; s = 0; o = 0; inside = 1; next } /^SITES END/ { inside = 0 }
             inside && $1 ~ /^[0-9]+$/ { s += $6; o += $7 } END { print s, o }' java.hprof.txt)
check "collapsed stacks add up to the bytes SITES says were allocated (${alloc% *})" \
  test "$(collapsed_total java.hprof.sites.collapsed)" = "${alloc% *}"
text_collapsed java.hprof.txt SITES >expected-s.txt
merge_collapsed <java.hprof.sites.collapsed >ours-s.txt
same "sites' collapsed stacks = the text's rows (the class allocated on top)" expected-s.txt ours-s.txt
check "stacks deeper than the original's default of 4 (view= without depth=)" \
  awk -F';' 'NF > 6 { found = 1 } END { exit !found }' java.hprof.sites.collapsed
if have_go; then
  check "go tool pprof: alloc_objects total = the objects SITES says (${alloc#* })" \
    test "$(pprof_total java.hprof.sites.pb.gz alloc_objects)" = "${alloc#* }"
  check "go tool pprof: SitesKnown\$Foo allocated under SitesKnown.main" \
    bash -c "HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -traces -sample_index=alloc_objects '$WORK/java.hprof.sites.pb.gz' 2>/dev/null | grep -A3 'SitesKnown\\\$Foo\$' | grep -q SitesKnown"
else
  skip "go tool pprof reads the sites' pprof" "go tool pprof not found (Debian: apt-get install golang-go)"
fi

# ---- monitor=y: contended time, at SIGQUIT and at exit ----
rm -f java.hprof*
set +e
timeout -k 10 120 "$JAVA" -Xcheck:jni "$(agent monitor=y,view=collapsed+pprof,cutoff=0)" -cp "$TEST_CLASSES" \
  MonitorContention 10 20 0 dump >out.txt 2>&1 &
pid=$!
for _ in $(seq 1 200); do grep -q READY out.txt && break; sleep 0.1; done
kill -QUIT $pid
wait $pid
cat out.txt >>all-runs.txt
check "monitor=y: the SIGQUIT dump's views are numbered (.1), the exit's are not" \
  test -s java.hprof.monitor.1.collapsed -a -s java.hprof.monitor.collapsed
ms=$(awk '/^MONITOR TIME BEGIN/ { match($0, /total = [0-9]+/); t += substr($0, RSTART + 8, RLENGTH - 8) } END { print t + 0 }' java.hprof.txt)
ns=$(cat java.hprof.monitor.1.collapsed java.hprof.monitor.collapsed 2>/dev/null | collapsed_total /dev/stdin)
echo "# monitor: $ns ns in the views, $ms ms in MONITOR TIME"
check "contended ns of both dumps' collapsed stacks = MONITOR TIME's ms ($ms)" test "$(( ns / 1000000 ))" -ge "$(( ms ))" -a "$(( ns / 1000000 ))" -le "$(( ms + 2 ))" -a "$ms" -gt 0
if have_go; then
  n=$(for f in java.hprof.monitor.1.pb.gz java.hprof.monitor.pb.gz; do [[ -f $f ]] && pprof_total $f contentions 'MonitorContention\.enter$'; done | awk '{ s += $1 } END { print s + 0 }')
  # The contender's, in enter(): it enters the Lock exactly 10 times, each contended.
  # Other stacks may hold contentions too (a Thread's monitor, entered with no Java frames
  # as a thread ends while main joins it): only those under enter() are counted here.
  check "go tool pprof: 10 contentions in MonitorContention.enter, as the program makes ($n)" test "$n" = 10
else
  skip "go tool pprof: 10 contentions" "go tool pprof not found (Debian: apt-get install golang-go)"
fi
check "the lock's class is the top frame" grep -q ';lock MonitorContention\$Lock ' java.hprof.monitor.1.collapsed

# ---- cpu=times ----
rm -f java.hprof*
run_java "$(agent cpu=times,view=collapsed,viewonly=y)" TimedCalls
check "viewonly=y: the views and no java.hprof.txt" test -s java.hprof.cpu.collapsed -a ! -e java.hprof.txt
check "cpu=times: TimedCalls.mid under main" grep -q 'TimedCalls.main;TimedCalls.mid ' java.hprof.cpu.collapsed
# leaf() is trivial (docs/instrumentation.md): counted, not timed, its time is mid()'s own.
check "cpu=times: trivial leaf() has no time of its own under mid" \
  bash -c "! grep -q 'TimedCalls.main;TimedCalls.mid;TimedCalls.leaf ' java.hprof.cpu.collapsed"

# A flame graph of stacks cut at depth 2 says so (TimedCalls is main;mid;leaf, and the
# JDK's start-up deeper still).
rm -f java.hprof*
run_java "$(agent cpu=times,depth=2,view=html,viewonly=y)" TimedCalls
check "cpu=times,depth=2,view=html runs" test "$RC" -eq 0 -a -s java.hprof.cpu.html
if have_chromium; then
  check "stacks cut at depth 2: the page says so and how to fix it" test "$(html_cut_note "$WORK/java.hprof.cpu.html")" = \
    "stacks cut at depth 2: run with depth=64 (view= does this) for a readable flame graph"
else
  not_ok "chromium not found (Debian: apt-get install chromium)"
fi

# ---- net=: a capture of the stream converts too ----
rm -f java.hprof* port.txt
"$HPROF_BIN/hprof-listen" port.txt capture.txt 2>listen.err &
lpid=$!
for _ in $(seq 1 100); do [[ -s port.txt ]] && break; sleep 0.1; done
run_java "$(agent cpu=samples,cutoff=0,net=127.0.0.1:$(cat port.txt))" HotMethod 600
wait $lpid
"$HPROF_TOOL" view capture.txt -o net.collapsed 2>/dev/null
check "hprof view of a net= capture: its CPU SAMPLES total ($(cpu_total capture.txt))" \
  test "$(collapsed_total net.collapsed)" = "$(cpu_total capture.txt)" -a -s net.collapsed

jni_clean
