#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# timeline=: the run header against what the JVM reports; one GC record per collection the
# JVM counts, under every collector; exact allocation counts per interval at a known site
# and live counts that drop when the program lets go; the leaker first among the leak
# suspects and the churner not; top=3; the net= command ALLOCS; format=short; the binary
# records read by hprof-dump and VisualVM's heap library; the HTML page in chromium.
source "$HPROF_ROOT/tests/lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"
# Every check runs, whatever the one before found (run_java turns errexit back on).
set +e
eval "common_$(declare -f run_java)"
run_java() { common_run_java "$@"; set +e; }

# ---- the run header and the GC count, under each collector ----
for gc in SerialGC ParallelGC G1GC ZGC ShenandoahGC; do
  opts=("-XX:+Use$gc")
  have_collector "$gc" || continue
  # JDK 17's Parallel collector runs a young collection inside each full one's pause
  # (ScavengeBeforeFullGC, gone since): one JVMTI GC, two in its MXBeans.
  [[ $gc == ParallelGC ]] && "$JAVA" -XX:-ScavengeBeforeFullGC -version >/dev/null 2>&1 && opts+=(-XX:-ScavengeBeforeFullGC)
  run_java "${opts[@]}" "$(agent cpu=samples,timeline=gc,file=h-$gc.txt)" TimelineInfo one two
  cp out.txt info-$gc.out
  check "$gc: runs, exit 0" test "$RC" -eq 0
  check "$gc: the run header right after the first line" bash -c "sed -n 3p h-$gc.txt | grep -q '^RUN command: '"
  for f in command java.class.path os.name os.arch os.version heap.initial heap.max java.vm.name java.vm.version gc pid start; do
    want=$(grep "^RUN $f: " info-$gc.out); got=$(grep "^RUN $f: " h-$gc.txt)
    check "$gc: header $f equals the JVM's (${want#RUN $f: })" test -n "$want" -a "$want" = "$got"
  done
  check "$gc: header host is the host's name" test "$(sed -n 's/^RUN host: //p' h-$gc.txt)" = "$(hostname)"
  check "$gc: header options as given" grep -qx "RUN options: cpu=samples,timeline=gc,file=h-$gc.txt" h-$gc.txt
  n=$(sed -n 's/^gcs \([0-9]*\) .*/\1/p' info-$gc.out); recs=$(grep -c '^GC [0-9]* (at ' h-$gc.txt || true)
  check "$gc: $recs GC records, as many as the JVM counted ($(sed 's/^gcs //' <(grep ^gcs info-$gc.out)))" \
    bash -c "[[ -n '$n' && '$n' -gt 0 && '$recs' -eq '$n' ]]"
  # (Shenandoah updates its used counter lazily: early records may say 0.)
  check "$gc: GC records numbered 1..$recs, each with the heap committed, the last with some used" bash -c "
    awk '/^GC [0-9]+ \(at / { k++; if (\$2 != k) bad = 1; if (\$0 !~ /heap used [0-9]+ -> [0-9]+ bytes, committed [1-9]/) bad = 1; last = \$0 }
         END { exit bad || k == 0 || last !~ /-> [1-9]/ }' h-$gc.txt"
  check "$gc: a HEAP SIZE record after the first GC" grep -q '^HEAP SIZE (committed [1-9][0-9]* bytes, after collection 1)$' h-$gc.txt
done
# Without timeline= the text header still has the run; nothing else new.
run_java "$(agent cpu=samples,file=plain.txt)" TimelineInfo
check "without timeline=: the run header, no GC records" bash -c "
  sed -n 3p plain.txt | grep -q '^RUN command: TimelineInfo' && ! grep -q '^GC [0-9]' plain.txt && ! grep -q '^HEAP SIZE' plain.txt"

# ---- exact counts per interval at a known site (no young GC can come between) ----
run_java -XX:+UseSerialGC -Xmn64m "$(agent heap=sites,timeline=gc,file=c.txt)" TimelineAlloc counts c.txt
# For each of the first four ALLOCS LIVE sections: "allocated live" of TimelineAlloc$Known.
known=$(awk '/^ALLOCS LIVE BEGIN/ { n++; a[n] = "0 0" } /^ALLOCS LIVE END/ { next }
  n && $7 == "TimelineAlloc$Known" { a[n] = $2 " " $4 } END { for (i = 1; i <= 4; i++) printf "%s|", a[i] }' c.txt)
check "exact counts: 1000 Known allocated in each of 3 intervals, live 1000, 2000, 3000, then none ($known)" \
  test "$known" = "1000 1000|1000 2000|1000 3000|0 0|"
check "exact counts: one ALLOCS LIVE per GC, before the GC's record" bash -c "
  [[ \$(grep -c '^ALLOCS LIVE BEGIN (interval [0-9]*, at collection' c.txt) -eq \$(grep -c '^GC [0-9]' c.txt) ]] &&
  awk '/^ALLOCS LIVE BEGIN/ { want = \$8 } /^GC [0-9]/ { if (\$2 \",\" != want) bad = 1 } END { exit bad }' c.txt"
check "exact counts: the GC records count the same allocations as the intervals" bash -c "
  awk '/^ALLOCS LIVE BEGIN/ { a = \$10 } /^GC [0-9]/ { if (\$0 !~ (\"allocated \" a \" objects\")) bad = 1 } END { exit bad }' c.txt"

# ---- leak suspects: the leaker first, the churner not; the HTML page ----
run_java "$(agent heap=sites,timeline=gc,file=l.txt)" TimelineAlloc leak l.txt
sed -n '/^LEAK SUSPECTS BEGIN/,/^LEAK SUSPECTS END/p' l.txt >suspects.txt
check "leak suspects: TimelineAlloc\$Leak is the first" bash -c "awk 'NR == 3 { good = \$7 == \"TimelineAlloc\$Leak\" } END { exit !good }' suspects.txt"
check "leak suspects: the churning site is not listed" bash -c "! grep -q 'TimelineAlloc\$Churn' suspects.txt && grep -q 'TimelineAlloc\$Churn' l.txt"
check "leak suspects: the leaker at a new high at each of the 8 forced GCs ($(awk 'NR == 3 { print $5 }' suspects.txt))" bash -c "
  awk 'NR == 3 { split(\$5, h, \"/\"); good = h[1] >= 8 && h[1] * 2 > h[2] } END { exit !good }' suspects.txt"
check "legend: ALLOCS LIVE and LEAK SUSPECTS described; unanchored cuts and greps find only the real ones" bash -c '
  sed -n "1,/^--------\$/p" l.txt >legend.txt
  grep -qF "  ALLOCS LIVE " legend.txt && grep -qF "  LEAK SUSPECTS " legend.txt || exit 1
  for s in "ALLOCS LIVE" "LEAK SUSPECTS"; do
    [[ $(sed -n "/$s BEGIN/,/$s END/p" l.txt | grep -c .) -eq $(awk -v b="$s BEGIN" -v e="$s END" "index(\$0, b) == 1 { i = 1 } i { n++ } index(\$0, e) == 1 { i = 0 } END { print n }" l.txt) ]] || exit 1
  done
  for m in "RUN " "GC [0-9]" "HEAP SIZE"; do [[ $(grep -c "$m" l.txt) -eq $(grep -c "^$m" l.txt) ]] || { echo "$m"; exit 1; }; done'
check "the HTML page is written beside the profile" test -s l.timeline.html
if have_chromium; then
  chromium_run --dump-dom "file://$WORK/l.timeline.html" >dom.txt
  res=$(awk '/<pre id="result"/ { sub(/.*<pre id="result"[^>]*>/, ""); sub(/<\/pre>.*/, ""); print }' dom.txt)
  gcs=$(grep -c '^GC [0-9]' l.txt)
  check "HTML in chromium: $gcs GCs drawn, 3 heap lines, the leaker first ($res)" \
    bash -c "[[ '$res' == 'gcs=$gcs heaplines=3 suspects='[1-9]*' sitelines='[1-9]*' first=TimelineAlloc\$Leak' ]]"
else
  not_ok "chromium not found (Debian: apt-get install chromium)"
fi

# ---- top=3 in every ranked section ----
rows() { sed -n "/^$2 BEGIN/,/^$2 END/p" "$1" | grep -cE '^ *[0-9]+ ' || true; }
run_java "$(agent cpu=samples,heap=sites,timeline=gc,top=3,file=t.txt)" TimelineTop
check "top=3: SITES lists 3" test "$(rows t.txt SITES)" -eq 3
check "top=3: CPU SAMPLES lists 3" test "$(rows t.txt 'CPU SAMPLES')" -eq 3
check "top=3: every ALLOCS LIVE lists at most 3, the first ones 3" bash -c "
  awk '/^ALLOCS LIVE BEGIN/ { n = 0; on = 1; k++; next } /^ALLOCS LIVE END/ { on = 0; if (n > 3 || (k == 1 && n != 3)) bad = 1; next }
       on && /^ *[0-9]+ / { n++ } END { exit bad || !k }' t.txt"
run_java "$(agent cpu=samples,heap=sites,timeline=gc,file=t0.txt)" TimelineTop
check "without top=: more than 3 in SITES ($(rows t0.txt SITES)) and CPU SAMPLES ($(rows t0.txt 'CPU SAMPLES'))" \
  bash -c "[[ $(rows t0.txt SITES) -gt 3 && $(rows t0.txt 'CPU SAMPLES') -gt 3 ]]"
run_java -Xverify:all "$(agent cpu=times,monitor=y,top=3,file=m.txt)" TimelineTop
check "top=3: CPU TIME lists 3" test "$(rows m.txt 'CPU TIME .ms.')" -eq 3
check "top=3: MONITOR TIME lists 3 (4 call sites contend)" test "$(rows m.txt 'MONITOR TIME')" -eq 3
run_java -Xverify:all "$(agent cpu=times,monitor=y,file=m0.txt)" TimelineTop
check "without top=: CPU TIME and MONITOR TIME list more than 3" \
  bash -c "[[ $(rows m0.txt 'CPU TIME .ms.') -gt 3 && $(rows m0.txt 'MONITOR TIME') -gt 3 ]]"

# ---- binary: format=short, the records, readers ----
run_java "$(agent format=short,file=s.hprof)" TimelineAlloc leak -
check "format=short: exit 0, a valid file" bash -c "[[ $RC -eq 0 ]] && \"$HPROF_DUMP\" --check s.hprof"
"$HPROF_DUMP" s.hprof >s.txt
check "format=short: RUN_HEADER first after the file's own records, GC and ALLOCS_LIVE records, no heap dump" bash -c "
  grep -q '^RUN_HEADER fields=15' s.txt && [[ \$(grep -c '^GC seq=' s.txt) -ge 8 ]] &&
  [[ \$(grep -c '^ALLOCS_LIVE ' s.txt) -ge 8 ]] && ! grep -q 'HEAP_DUMP' s.txt &&
  grep -q 'ROW class=[0-9]*(TimelineAlloc\$Leak) .* alloc_objs=2000 ' s.txt"
run_java "$(agent heap=sites,format=b,file=p.hprof)" TimelineAlloc leak -
check "binary without timeline=: none of the new records" bash -c "
  \"$HPROF_DUMP\" --check p.hprof && ! \"$HPROF_DUMP\" p.hprof | grep -Eq '^(RUN_HEADER|GC |HEAP_SIZE|ALLOCS)'"
JAR=$(dpkg -L visualvm 2>/dev/null | grep 'org-graalvm-visualvm-lib-jfluid-heap\.jar$' | head -1)
if [[ -n "$JAR" && -f "$JAR" ]]; then
  mkdir -p vv
  "$JAVA_HOME/bin/javac" -nowarn -d vv -cp "$JAR" "$HPROF_ROOT/tests/java/visualvm/HeapDumpVisualVM.java"
  run_java "$(agent heap=all,timeline=gc,format=b,file=d.hprof)" TimelineAlloc leak -
  "$JAVA" -cp "vv:$JAR" HeapDumpVisualVM check d.hprof >vv.txt 2>vv.err || true
  check "VisualVM opens a heap dump file that carries the timeline records" bash -c "
    grep -q '^INSTANCES [1-9]' vv.txt && grep -q '^UNRESOLVED 0$' vv.txt && \"$HPROF_DUMP\" d.hprof | grep -q '^ALLOCS_LIVE '"
else
  skip "VisualVM opens a heap dump file that carries the timeline records" \
    "VisualVM's heap library is not installed (apt-get install visualvm)"
fi

# hprof view reads the files with the new records (binary: skips them; text: its sections).
"$HPROF_BIN/hprof" view s.hprof -o s.collapsed 2>view.err; rc1=$?
"$HPROF_BIN/hprof" view l.txt -o l.collapsed 2>>view.err; rc2=$?
check "hprof view reads a format=short file and a text timeline profile (their SITES)" bash -c "
  [[ $rc1 -eq 0 && $rc2 -eq 0 ]] && grep -q 'TimelineAlloc\$Leak' s.collapsed && grep -q 'TimelineAlloc\$Leak' l.collapsed"

# ---- the net= command ALLOCS ----
rm -f port.txt
"$HPROF_BIN/hprof-front" -q -P port.txt -o n.hprof -t 60 <<'CMDS' 2>front.err &
pause 800
allocs
pause 300
allocs
exit
CMDS
FPID=$!
for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
run_java "$(agent "heap=sites,timeline=gc,format=b,net=127.0.0.1:$(cat port.txt)")" NetServer 60000
wait $FPID || true
"$HPROF_DUMP" n.hprof >n.txt 2>&1 || true
check "net= ALLOCS: answered twice with an ALLOCS record, numbered in the run's sequence" bash -c "
  [[ \$(grep -c '^ALLOCS number=' n.txt) -eq 2 ]] && \"$HPROF_DUMP\" --check n.hprof >/dev/null"
check "net= ALLOCS: the answers count allocations (the first has rows)" bash -c "
  grep '^ALLOCS number=' n.txt | head -1 | grep -Eq 'alloc_objs=[1-9].* nrows=[1-9]'"
jni_clean
