#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof analyze benchmark: wall time and peak memory to compute every retained size of a
# heap dump of millions of small objects (bench/java/HeapFill: 32-byte nodes, each with a
# small byte[]; dumped by jcmd GC.heap_dump), against VisualVM's heap library (Debian
# visualvm) computing the same (getBiggestObjectsByRetainedSize(10), which needs all of
# them), same machine, same dump, alternating, medians. One Markdown row per dump size.
#   bench/analyze.sh [--mib N]... [--runs N] [--no-visualvm-above MIB] [--jdk DIR]
#   (default: --mib 250 --mib 1024, 3 runs, VisualVM up to 300 MiB: above, its run takes
#   minutes; --no-visualvm-above 4096 runs it on every size, but it needs about 7 GiB of
#   memory per GiB of dump: a 4096 MiB dump's would not fit a 24 GB machine)
#   The scale rows: bench/analyze.sh --mib 1024 --mib 4096 --runs 1 --no-visualvm-above 1024
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIBS=(); RUNS=3; VV_MAX=300; JDK=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mib) MIBS+=("$2"); shift ;;
    --runs) RUNS=$2; shift ;;
    --no-visualvm-above) VV_MAX=$2; shift ;;
    --jdk) JDK=$2; shift ;;
    *) echo "usage: $0 [--mib N]... [--runs N] [--no-visualvm-above MIB] [--jdk DIR]" >&2; exit 2 ;;
  esac
  shift
done
[[ ${#MIBS[@]} -gt 0 ]] || MIBS=(250 1024)
OUT=$ROOT/build/bench/analyze; mkdir -p "$OUT/classes"
gcc -std=c11 -D_GNU_SOURCE -O2 -o "$ROOT/build/bench/runstat" "$ROOT/bench/runstat.c"
RUNSTAT=$ROOT/build/bench/runstat
"$JDK/bin/javac" -d "$OUT/classes" "$ROOT/bench/java/HeapFill.java"
JAR=$(dpkg -L visualvm 2>/dev/null | grep 'org-graalvm-visualvm-lib-jfluid-heap\.jar$' | head -1 || true)
[[ -n "$JAR" ]] && "$JDK/bin/javac" -nowarn -d "$OUT/classes" -cp "$JAR" "$ROOT/tests/java/visualvm/RetainedVisualVM.java"
HP=$ROOT/build/hprof

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| dump | objects | hprof analyze: time / peak RSS | VisualVM's library: time / peak RSS | time ratio | memory ratio | others' CPUs |"
echo "|---|---|---|---|---|---|---|"
for mib in "${MIBS[@]}"; do
  dump=$OUT/fill-$mib.hprof
  if [[ ! -s $dump ]]; then
    heap=$(( mib * 3 / 1024 + 2 ))g
    "$JDK/bin/java" -Xms$heap -Xmx$heap -cp "$OUT/classes" HeapFill "$mib" >"$OUT/fill.out" 2>&1 &
    pid=$!
    for _ in $(seq 3000); do grep -q ready "$OUT/fill.out" 2>/dev/null && break; sleep 0.1; done
    "$JDK/bin/jcmd" $pid GC.heap_dump "$dump" >/dev/null
    kill $pid; wait $pid 2>/dev/null || true
  fi
  objects=$("$HP" analyze "$dump" --progress top=1 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) objects,.*/\1/p')
  : >"$OUT/ours.$mib"; : >"$OUT/vv.$mib"
  vv=0; [[ -n "$JAR" && $mib -le $VV_MAX ]] && vv=1
  vheap=$(( mib * 40 / 1024 + 2 )); (( vheap > 20 )) && vheap=20
  for _ in $(seq "$RUNS"); do
    "$RUNSTAT" -o "$OUT/stat" -- "$HP" analyze "$dump" top=10 >/dev/null; cat "$OUT/stat" >>"$OUT/ours.$mib"
    if [[ $vv == 1 ]]; then
      rm -rf "$dump.hwcache"   # VisualVM's cache of a dump it read: each run computes afresh
      "$RUNSTAT" -o "$OUT/stat" -- "$JDK/bin/java" -Xmx${vheap}g -cp "$OUT/classes:$JAR" RetainedVisualVM top "$dump" 10 \
        >/dev/null 2>&1 || true
      cat "$OUT/stat" >>"$OUT/vv.$mib"
    fi
  done
  ot=$(awk '{ print $1 }' "$OUT/ours.$mib" | median); orss=$(awk '{ print $2 / 1024 }' "$OUT/ours.$mib" | median)
  others=$(cat "$OUT/ours.$mib" "$OUT/vv.$mib" | awk '{ print $6 }' | median)
  if [[ $vv == 1 ]]; then
    vt=$(awk '{ print $1 }' "$OUT/vv.$mib" | median); vrss=$(awk '{ print $2 / 1024 }' "$OUT/vv.$mib" | median)
    printf "| %s MiB | %s | %.1f s / %.0f MiB | %.1f s / %.0f MiB | %.1fx faster | %.1fx less | %s |\n" \
      "$mib" "$objects" "$ot" "$orss" "$vt" "$vrss" "$(echo "$vt / $ot" | bc -l)" "$(echo "$vrss / $orss" | bc -l)" "$others"
  else
    printf "| %s MiB | %s | %.1f s / %.0f MiB | - | - | - | %s |\n" "$mib" "$objects" "$ot" "$orss" "$others"
  fi
done
