#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=dump benchmark: time, file size and memory to dump a heap of small objects with
# hprof (format=b, SIGQUIT) and with the JDK's own dumper (jcmd GC.heap_dump), same program,
# same heap, alternating, each in a fresh JVM. Prints one Markdown table row per JDK: the
# medians of the runs (time, RSS growth) and the ratio of the median times.
#   bench/heap-dump.sh [--mib N] [--runs N] [--jdk DIR]...
#   (default: 1024 MiB, 3 runs, every JDK found)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIB=1024; RUNS=3; JDKS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mib) MIB=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --jdk) JDKS+=("$2"); shift ;;
    *) echo "usage: $0 [--mib N] [--runs N] [--jdk DIR]..." >&2; exit 2 ;;
  esac
  shift
done
[[ ${#JDKS[@]} -gt 0 ]] || mapfile -t JDKS < <("$ROOT/tests/lib/jdks.sh")
OUT=$ROOT/build/bench/heap-dump; mkdir -p "$OUT"
HEAP=$(( MIB * 3 / 1024 + 2 ))g     # room for the live set, fixed for both runs

kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
start() {  # start JAVA [opts...]: HeapFill in the background; sets PID
  rm -f "$OUT/run.out"
  "$@" -Xms$HEAP -Xmx$HEAP -cp "$OUT/classes" HeapFill "$MIB" >"$OUT/run.out" 2>&1 &
  PID=$!
  for _ in $(seq 1200); do grep -q ready "$OUT/run.out" 2>/dev/null && return 0; sleep 0.1; done
  echo "HeapFill did not get ready" >&2; cat "$OUT/run.out" >&2; exit 1
}
stop() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| JDK | live heap | objects | hprof: time | hprof: file | hprof: RSS growth | jcmd: time | jcmd: file | jcmd: RSS growth | time ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for jdk in "${JDKS[@]}"; do
  mkdir -p "$OUT/classes"
  "$jdk/bin/javac" -nowarn -d "$OUT/classes" "$ROOT/bench/java/HeapFill.java"
  : >"$OUT/times"
  for run in $(seq "$RUNS"); do
    rm -f "$OUT/ours.hprof"
    HPROF_HEAP_TIMES=1 start "$jdk/bin/java" "-agentpath:$ROOT/build/libhprof.so=heap=dump,format=b,doe=n,file=$OUT/ours.hprof"
    rss0=$(kib $PID VmRSS); hwm0=$(kib $PID VmHWM)
    kill -QUIT $PID
    for _ in $(seq 36000); do grep -q 'Dumping Java heap ... done' "$OUT/run.out" && break; sleep 0.1; done
    ours_t=$(awk '$3 == "end" { print $4 }' "$OUT/run.out")
    hwm1=$(kib $PID VmHWM)
    ours_mem=$(( (hwm1 - (hwm0 > rss0 ? hwm0 : rss0)) / 1024 ))
    [[ $ours_mem -lt 0 ]] && ours_mem=0
    stop
    cp "$OUT/run.out" "$OUT/ours-$(basename "$jdk")-$run.out"     # with the phase times
    objects=$("$ROOT/build/hprof-dump" --summary "$OUT/ours.hprof" | sed -n 's/^subrecords_total=//p' || true)
    ours_size=$(stat -c %s "$OUT/ours.hprof")
    rm -f "$OUT/ours.hprof"; sleep 3     # both dumpers start from the same state of memory

    rm -f "$OUT/jdk.hprof"
    start "$jdk/bin/java"
    rss0=$(kib $PID VmRSS); hwm0=$(kib $PID VmHWM)
    jcmd_out=$("$jdk/bin/jcmd" $PID GC.heap_dump "$OUT/jdk.hprof")
    jdk_t=$(echo "$jcmd_out" | sed -n 's/.* in \([0-9.]*\) secs.*/\1/p')
    hwm1=$(kib $PID VmHWM)
    jdk_mem=$(( (hwm1 - (hwm0 > rss0 ? hwm0 : rss0)) / 1024 ))
    [[ $jdk_mem -lt 0 ]] && jdk_mem=0
    stop
    jdk_size=$(stat -c %s "$OUT/jdk.hprof")
    rm -f "$OUT/jdk.hprof"; sleep 3
    echo "$ours_t $ours_mem $jdk_t $jdk_mem" >>"$OUT/times"
    echo "# $(basename "$jdk") run $run: hprof $ours_t s, jcmd $jdk_t s" >&2
  done
  ot=$(awk '{ print $1 }' "$OUT/times" | median); om=$(awk '{ print $2 }' "$OUT/times" | median)
  jt=$(awk '{ print $3 }' "$OUT/times" | median); jm=$(awk '{ print $4 }' "$OUT/times" | median)
  printf '| %s | %s MiB | %s | %s s | %s MB | %s MiB | %s s | %s MB | %s MiB | %.2fx |\n' "$(basename "$jdk")" "$MIB" \
    "$objects" "$ot" "$(( ours_size / 1000000 ))" "$om" "$jt" "$(( jdk_size / 1000000 ))" "$jm" \
    "$(awk -v a="$ot" -v b="$jt" 'BEGIN { print a / b }')"
done
