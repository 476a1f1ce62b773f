#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/perf-times.sh: the CPU time (user+sys) cpu=times costs, two agent libraries side by
# side, against the same run without an agent; runs alternate so that each sees the same
# drift in the machine's load. Medians of the rounds, and their ratios to the baseline.
#
#   bench/perf-times.sh [--jdk DIR] [--runs N] [--workloads cpu,javac,rhino] [--mode OPTS]
#                       [--units N] [--corpus DIR] BEFORE.so AFTER.so
#
# cpu: bench/java/CpuWork.java (4 threads, --units work units, default 600); javac: javac
# over a corpus of bench/gen-corpus.c (default build/bench/corpus, as bench/run.sh makes
# it; `build/bench/gen-corpus DIR 3` makes a smaller one); rhino: Debian's Rhino running
# bench/js/RhinoWork.js once. Wall time is noise on a shared machine: only CPU time is
# compared, with each run's peak RSS (MB) beside it.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=/usr/lib/jvm/java-17-openjdk-amd64 RUNS=3 WORKLOADS=cpu,javac MODE=cpu=times UNITS=600 CORPUS=
while [[ $# -gt 2 ]]; do
  case "$1" in
    --jdk) JDK=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --workloads) WORKLOADS=$2; shift ;;
    --mode) MODE=$2; shift ;;
    --units) UNITS=$2; shift ;;
    --corpus) CORPUS=$(realpath "$2"); shift ;;
    *) echo "perf-times.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $# -eq 2 ]] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
LIBS=("" "$(realpath "$1")" "$(realpath "$2")")
NAMES=(none before after)
CORPUS=${CORPUS:-$ROOT/build/bench/corpus}
CLASSES=$ROOT/build/bench/classes-$(basename "$JDK")
if [[ ! -f "$CLASSES/CpuWork.class" ]]; then
  mkdir -p "$CLASSES" && "$JDK/bin/javac" -nowarn -d "$CLASSES" "$ROOT/bench/java/CpuWork.java" \
    "$ROOT/bench/java/Rounds.java" || exit 2
fi
[[ ",$WORKLOADS," != *,javac,* || -f "$CORPUS/sources.txt" ]] ||
  { echo "perf-times.sh: no corpus in $CORPUS (run bench/run.sh once)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perf-times-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# one WORKLOAD LIB: prints the run's CPU seconds (user+sys) and peak RSS (MB), or FAILED.
one() {
  local w=$1 lib=$2 opt=() cmd
  [[ -n "$lib" ]] && opt=("-agentpath:$lib=$MODE,file=$WORK/out.txt")
  rm -rf "$WORK/classes" "$WORK/out.txt"
  case "$w" in
    cpu) cmd=("$JDK/bin/java" "${opt[@]}" -cp "$CLASSES" CpuWork 4 "$UNITS") ;;
    javac) cmd=("$JDK/bin/javac" "${opt[@]/#/-J}" -nowarn -encoding UTF-8 -d "$WORK/classes" "@$CORPUS/sources.txt") ;;
    rhino) cmd=("$JDK/bin/java" "${opt[@]}" -cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main
      "$ROOT/bench/js/RhinoWork.js" 1) ;;
  esac
  if (cd "$CORPUS" && /usr/bin/time -o "$WORK/time" -f "%U %S %M" "${cmd[@]}" >"$WORK/log" 2>&1); then
    awk '{ printf "%.2f/%d\n", $1 + $2, $3 / 1024 }' "$WORK/time"
  else
    echo FAILED
  fi
}

median() { sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

IFS=, read -r -a WL <<<"$WORKLOADS"
for w in "${WL[@]}"; do
  declare -A T=()
  for ((r = 1; r <= RUNS; r++)); do
    for i in 0 1 2; do
      t=$(one "$w" "${LIBS[$i]}")
      T[$i]+="$t "
      echo "  $w round $r ${NAMES[$i]}: $t s" >&2
    done
  done
  base=$(tr ' ' '\n' <<<"${T[0]}" | grep . | cut -d/ -f1 | median)
  for i in 0 1 2; do
    m=$(tr ' ' '\n' <<<"${T[$i]}" | grep . | cut -d/ -f1 | median)
    rss=$(tr ' ' '\n' <<<"${T[$i]}" | grep . | cut -d/ -f2 | median)
    printf '%s %-6s CPU s/RSS MB: %-30s median %6.2f  ratio %5.2fx  RSS %s MB\n' "$w" "${NAMES[$i]}" "${T[$i]}" \
      "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$rss"
  done
  unset T
done
