#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where output goes and what is said about it: file, force, net, verbose, doe, format.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent cpu=samples)" HotMethod 300
check "default text file is java.hprof.txt" bash -c "[[ -s java.hprof.txt ]] && grep -q '^CPU SAMPLES END' java.hprof.txt"
run_java "$(agent cpu=samples,format=b)" HotMethod 300
check "default binary file is java.hprof" bash -c "head -c 18 java.hprof | grep -q 'JAVA PROFILE 1.0.1'"

run_java "$(agent cpu=samples,file=custom.out)" HotMethod 300
check "file= is used exactly as given" bash -c "[[ -s custom.out && ! -e custom.out.txt ]]"

# force=y (default) replaces; force=n keeps the old file and says which new name it used.
echo "old content" >keep.txt
run_java "$(agent cpu=samples,file=keep.txt)" HotMethod 300
check "force=y replaces an existing file" bash -c "head -1 keep.txt | grep -q '^JAVA PROFILE'"
echo "old content" >keep.txt
run_java "$(agent cpu=samples,file=keep.txt,force=n)" HotMethod 300
newname=$(ls keep.*.txt 2>/dev/null | head -1)
check "force=n leaves the existing file alone" bash -c "[[ \$(cat keep.txt) == 'old content' ]]"
check "force=n writes to keep.<pid>.txt and says so" bash -c "[[ -n '$newname' ]] && grep -q '^CPU SAMPLES END' '$newname' && grep -q '$newname' out.txt"
echo "old" >bin.hprof
run_java "$(agent cpu=samples,file=bin.hprof,force=n,format=b)" HotMethod 300
check "force=n in binary: bin.hprof.<pid>" bash -c "ls bin.hprof.[0-9]* >/dev/null 2>&1 && [[ \$(cat bin.hprof) == old ]]"

# A file that cannot be opened stops the JVM with an HPROF ERROR.
run_java "$(agent cpu=samples,file=/nonexistent-dir/x.txt)" HotMethod 300
check "unwritable file: HPROF ERROR and non-zero exit" bash -c "[[ $RC -ne 0 ]] && grep -q '^HPROF ERROR: .*nonexistent-dir' out.txt && ! grep -q '^done' out.txt"

# verbose
run_java "$(agent cpu=samples,file=v.txt)" HotMethod 300
check "verbose=y (default): the Dumping line on stderr" has_line out.txt '^Dumping CPU usage by sampling running threads \.\.\. done\.$'
run_java "$(agent cpu=samples,file=v.txt,verbose=n)" HotMethod 300
check "verbose=n: no Dumping line" bash -c "! grep -q Dumping out.txt && grep -q '^CPU SAMPLES END' v.txt"

# doe
run_java "$(agent cpu=samples,file=doe.txt,doe=n)" HotMethod 300
check "doe=n: no dump at exit" bash -c "[[ $RC -eq 0 ]] && grep -q '^THREAD START' doe.txt && ! grep -q '^CPU SAMPLES' doe.txt"

# net=host:port: the same bytes go to a TCP peer
"$HPROF_BIN/hprof-listen" port.txt net.txt 2>listen.err &
LPID=$!
for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
run_java "$(agent "cpu=samples,net=127.0.0.1:$(cat port.txt)")" HotMethod 500
wait $LPID || true
check "net=: the text profile arrives over TCP" bash -c "[[ $RC -eq 0 ]] && head -1 net.txt | grep -q '^JAVA PROFILE 1.0.1' && grep -q '^CPU SAMPLES END' net.txt && [[ ! -e java.hprof.txt || \$(stat -c %Y java.hprof.txt) -lt \$(stat -c %Y net.txt) ]]"
# A port file of its own: the first listener's port, in port.txt, is closed now.
"$HPROF_BIN/hprof-listen" portb.txt netb.hprof 2>listenb.err &
LPID=$!
for _ in $(seq 100); do [[ -s portb.txt ]] && break; sleep 0.1; done
run_java "$(agent "cpu=samples,format=b,net=127.0.0.1:$(cat portb.txt)")" HotMethod 500
wait $LPID || true
check "net=: the binary profile arrives whole" hprof_check netb.hprof

# Nothing listening: a clear error and a non-zero exit, as for a file it cannot open.
PORT=$(( (RANDOM % 20000) + 30000 ))
run_java "$(agent cpu=samples,net=127.0.0.1:$PORT)" HotMethod 300
check "net= with nobody listening: HPROF ERROR and non-zero exit" bash -c "[[ $RC -ne 0 ]] && grep -q '^HPROF ERROR: .*127.0.0.1:$PORT' out.txt && ! grep -q '^done' out.txt"

# A full disk: reported once, the program goes on with its own output and status.
if [[ -w /dev/full ]]; then
  run_java "$(agent cpu=samples,file=/dev/full)" Lifecycle exit-thread 5
  check "full disk: one HPROF ERROR, program output and exit status unchanged" \
    bash -c "[[ $RC -eq 5 && \$(grep -c '^HPROF ERROR' out.txt) -eq 1 ]] && grep -q 'No space left' out.txt"
else
  skip "full disk" "no writable /dev/full here"
fi
# The legend names every section, and no legend line reads as a marker: for every section
# marker the agent writes, the usual unanchored cut (sed -n '/X BEGIN/,/X END/p') returns
# exactly the real section, and an unanchored grep of a record's name counts only records.
SECTIONS=("CPU SAMPLES" "CPU TIME (ms)" "SITES" "HEAP DUMP" "MONITOR DUMP" "MONITOR TIME" "MONITOR WAIT TIME")
run_java "$(agent cpu=samples,heap=all,monitor=y,file=all.txt)" MonitorContention 2 10 50
RC_ALL=$RC
run_java "$(agent cpu=times,file=times.txt)" HotMethod 100
check "legend runs: both programs end as without the agent" bash -c "[[ $RC_ALL -eq 3 && $RC -eq 0 ]]"
check "legend: every section is described" bash -c '
  sed -n "1,/^--------\$/p" all.txt >legend.txt
  for s in "$@"; do grep -qF "  $s " legend.txt || { echo "legend lacks $s"; exit 1; }; done' _ "${SECTIONS[@]}"
check "the runs write every section the agent has (and no other)" bash -c '
  found=$(grep -hoE "^[A-Z][A-Za-z ()]* (BEGIN( \(|\$)|END\$)" all.txt times.txt | sed -E "s/ (BEGIN|END).*//" | sort -u)
  want=$(printf "%s\n" "$@" | sort -u)
  [[ "$found" == "$want" ]] || { echo "found: $found"; exit 1; }' _ "${SECTIONS[@]}"
check "for every section, the unanchored sed cut is exactly the real section" bash -c '
  for f in all.txt times.txt; do
    for s in "$@"; do
      grep -q "^$s BEGIN" "$f" || continue
      loose=$(sed -n "/$s BEGIN/,/$s END/p" "$f")
      exact=$(awk -v b="$s BEGIN" -v e="$s END" "index(\$0, b) == 1 { i = 1 } i { print } index(\$0, e) == 1 { i = 0 }" "$f")
      [[ -n "$exact" && "$loose" == "$exact" ]] || { echo "$f: $s: the cut differs"; exit 1; }
      for m in "$s BEGIN" "$s END"; do
        [[ $(grep -cF "$m" "$f") -eq $(grep -c "^$m" "$f") ]] || { echo "$f: $m outside its marker"; exit 1; }
      done
    done
  done' _ "${SECTIONS[@]}"
check "record names: an unanchored grep counts only records" bash -c '
  for f in all.txt times.txt; do
    for m in "THREAD START" "THREAD END" "TRACE [0-9]" "WAIT:" "WAITED:" "JAVA PROFILE"; do
      [[ $(grep -c "$m" "$f") -eq $(grep -c "^$m" "$f") ]] || { echo "$f: $m"; exit 1; }
    done
    for m in ROOT OBJ ARR CLS; do
      [[ $(grep -c "$m [0-9a-f]* (" "$f") -eq $(grep -c "^$m [0-9a-f]* (" "$f") ]] || { echo "$f: $m"; exit 1; }
    done
  done'
jni_clean
