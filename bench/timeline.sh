#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/timeline.sh: what timeline= costs on top of heap=sites, on javac.
#
#   bench/timeline.sh [--jdk DIR] [--runs N] [--modes "heap=sites,timeline=gc;..."]
#
# javac compiles the generated corpus (build/bench/corpus, see bench/run.sh) N times under
# heap=sites and under each timeline mode, alternating (sites, mode 1, mode 2 ..., sites,
# ...), so that drift in the machine's load falls on all alike. For each mode: the median
# wall time and its ratio to heap=sites' median (goal: at most 1.10), the number of GC
# records, and the bytes the timeline adds to the profile per minute of run (the
# profile's size minus heap=sites' median size, over the run's minutes). Every run must
# exit 0 and leave the profile. Results as a Markdown table on stdout.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
RUNS=7
MODES="heap=sites,timeline=gc;heap=sites,timeline=1000"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --modes) MODES=${2:?}; shift ;;
    *) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done
AGENT=$ROOT/build/libhprof.so
[[ -f "$AGENT" ]] || { echo "build first (make)" >&2; exit 1; }
# The corpus, made by bench/run.sh's generator when missing.
CORPUS=$ROOT/build/bench/corpus
if [[ ! -f "$CORPUS/.complete" ]]; then
  mkdir -p "$ROOT/build/bench"
  gcc -std=c11 -D_GNU_SOURCE -O2 -o "$ROOT/build/bench/gen-corpus" "$ROOT/bench/gen-corpus.c" || exit 1
  "$ROOT/build/bench/gen-corpus" "$CORPUS" >/dev/null && touch "$CORPUS/.complete" || exit 1
fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
IFS=';' read -r -a MODE <<<"heap=sites;$MODES"

# run I MODE: one javac run; prints "seconds bytes gcs"
run() {
  local d=$TMP/r$1; rm -rf "$d"; mkdir -p "$d/classes"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$CORPUS" && "$JDK/bin/javac" "-J-agentpath:$AGENT=$2,file=$d/p.txt" -nowarn -encoding UTF-8 -d "$d/classes" \
    "@$CORPUS/sources.txt" >"$d/out" 2>&1) || { echo "FAILED: $2" >&2; cat "$d/out" >&2; exit 1; }
  t1=$(date +%s.%N)
  [[ -s "$d/p.txt" ]] || { echo "FAILED: no profile for $2" >&2; exit 1; }
  echo "$(echo "$t1 - $t0" | bc -l) $(stat -c %s "$d/p.txt") $(grep -c '^GC [0-9]' "$d/p.txt")"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run 0 "${MODE[0]}" >/dev/null    # warm-up (page cache, corpus), discarded
for ((r = 1; r <= RUNS; r++)); do
  for i in "${!MODE[@]}"; do echo "$i $(run "$r$i" "${MODE[$i]}")" >>"$TMP/results"; done
done
echo "javac on $(wc -l <"$CORPUS/sources.txt") files, $("$JDK/bin/java" -version 2>&1 | head -1), $RUNS alternating runs each"
echo
echo "| mode | median s | vs heap=sites | GC records | profile bytes | timeline bytes per minute |"
echo "|---|---|---|---|---|---|"
base_t=$(awk '$1 == 0 { print $2 }' "$TMP/results" | median)
base_b=$(awk '$1 == 0 { print $3 }' "$TMP/results" | median)
for i in "${!MODE[@]}"; do
  t=$(awk -v i="$i" '$1 == i { print $2 }' "$TMP/results" | median)
  b=$(awk -v i="$i" '$1 == i { print $3 }' "$TMP/results" | median)
  g=$(awk -v i="$i" '$1 == i { print $4 }' "$TMP/results" | median)
  extra=$(echo "($b - $base_b) / ($t / 60)" | bc -l)
  printf '| `%s` | %.2f | %.3fx | %s | %s | %s |\n' "${MODE[$i]}" "$t" "$(echo "$t / $base_t" | bc -l)" "$g" "$b" \
    "$([[ $i -eq 0 ]] && echo - || printf '%.0f' "$extra")"
done
