#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What native=y costs a short program at start: the wall and CPU time of a tiny Java
# program (bench/java/Sample.java with 1000 words: about the JVM's start-up alone) under
# cpu=samples with native frames, with native=n, and without the agent, alternating runs,
# medians. The difference native=y - native=n is the reading of the process's code
# (maps, ELF headers, unwind tables) and its share of the sampling thread. Usage:
#   bench/native-startup.sh [--jdk DIR] [--runs N] [--agent LIB]...   (default 11 runs)
# Each --agent adds a build to compare (e.g. a copy of an older libhprof.so); the default
# is build/libhprof.so. Needs `make` first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JDK=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
RUNS=11
AGENTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --agent) AGENTS+=("$(realpath "$2")"); shift ;;
    *) echo "usage: $0 [--jdk DIR] [--runs N] [--agent LIB]..." >&2; exit 2 ;;
  esac
  shift
done
[[ ${#AGENTS[@]} -gt 0 ]] || AGENTS=("$ROOT/build/libhprof.so")
out=$ROOT/build/bench/native-startup
mkdir -p "$out/classes"
"$JDK/bin/javac" -nowarn -d "$out/classes" bench/java/Sample.java
modes=("none")
for a in "${AGENTS[@]}"; do modes+=("$a=cpu=samples,file=$out/p.txt" "$a=cpu=samples,native=n,file=$out/p.txt"); done
# one run: "wall_ms cpu_ms" (CPU: user + system of the JVM, from /usr/bin/time)
run() {
  local opt=()
  [[ $1 == none ]] || opt=("-agentpath:$1")
  /usr/bin/time -f '%e %U %S' -o "$out/time.txt" "$JDK/bin/java" "${opt[@]}" -cp "$out/classes" Sample 1000 >/dev/null 2>&1
  awk '{ printf "%.0f %.0f\n", $1 * 1000, ($2 + $3) * 1000 }' "$out/time.txt"
}
for m in "${modes[@]}"; do : >"$out/$(echo "$m" | md5sum | cut -c1-8).txt"; done
for i in $(seq "$RUNS"); do
  for m in "${modes[@]}"; do run "$m" >>"$out/$(echo "$m" | md5sum | cut -c1-8).txt"; done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# $(basename "$JDK"), $RUNS alternating runs, medians (ms)"
printf '%-70s %8s %8s\n' mode wall cpu
for m in "${modes[@]}"; do
  f=$out/$(echo "$m" | md5sum | cut -c1-8).txt
  printf '%-70s %8s %8s\n' "${m/$ROOT\//}" "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)"
done
