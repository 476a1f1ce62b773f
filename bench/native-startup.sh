#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What native=y costs a short program at start: a tiny Java program (bench/java/Sample.java
# with 1000 words: about the JVM's start-up alone) without the agent, with cpu=samples
# native=n, with native=y and its unwind tables built on first need (the default), and
# with every table built at VM init as before (HPROF_LAZY_TABLES=0); runs alternating,
# medians of the wall and CPU time (bash's time, ms) and of what the agent says it spent
# (HPROF_STACK_STATS=1: its CPU reading the process's code at VM init, which the JVM's
# start waits for, and building tables later on the sampling thread). Usage:
#   bench/native-startup.sh [--jdk DIR] [--runs N] [--agent LIB]   (default 11 runs)
# Needs `make` first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JDK=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
RUNS=11
AGENT=$ROOT/build/libhprof.so
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --agent) AGENT=$(realpath "$2"); shift ;;
    *) echo "usage: $0 [--jdk DIR] [--runs N] [--agent LIB]" >&2; exit 2 ;;
  esac
  shift
done
out=$ROOT/build/bench/native-startup
mkdir -p "$out/classes"
"$JDK/bin/javac" -nowarn -d "$out/classes" bench/java/Sample.java
# NAME|ENVIRONMENT|AGENT OPTIONS ("-": no agent)
modes=("none||-" "native=n||cpu=samples,native=n" "native=y (tables on first need)||cpu=samples"
  "native=y (tables at VM init)|HPROF_LAZY_TABLES=0|cpu=samples")
# one run: "wall_ms cpu_ms start_ms later_ms" (CPU: user + system of the JVM)
run() {
  local env=$1 opts=$2 TIMEFORMAT='%3R %3U %3S' agent=()
  [[ $opts == - ]] || agent=("-agentpath:$AGENT=$opts,file=$out/p.txt")
  { time env HPROF_STACK_STATS=1 $env "$JDK/bin/java" "${agent[@]}" -cp "$out/classes" Sample 1000 >/dev/null 2>"$out/err.txt"; } 2>"$out/time.txt"
  local st
  st=$(sed -n 's/.*native code read at start in \([0-9.]*\) ms.* built later in \([0-9.]*\) ms/\1 \2/p' "$out/err.txt")
  awk -v st="${st:-- -}" '{ printf "%.0f %.0f %s\n", $1 * 1000, ($2 + $3) * 1000, st }' "$out/time.txt"
}
for i in "${!modes[@]}"; do : >"$out/mode$i.txt"; done
for r in $(seq "$RUNS"); do
  for i in "${!modes[@]}"; do
    IFS='|' read -r _ env opts <<<"${modes[$i]}"
    run "$env" "$opts" >>"$out/mode$i.txt"
  done
done
median() { grep -v -- - | sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# $(basename "$JDK"), $(basename "$AGENT"), $RUNS alternating runs, medians (ms)"
printf '%-34s %7s %7s %12s %12s\n' mode wall cpu "at VM init" "built later"
for i in "${!modes[@]}"; do
  f=$out/mode$i.txt
  printf '%-34s %7s %7s %12s %12s\n' "${modes[$i]%%|*}" "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
    "$(cut -d' ' -f3 "$f" | median)" "$(cut -d' ' -f4 "$f" | median)"
done
