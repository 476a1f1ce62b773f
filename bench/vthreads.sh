#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/vthreads.sh: what thread=y costs virtual threads (JDK 21+), which it follows through
# every mount and unmount.
#
#   bench/vthreads.sh [--jdk DIR] [--runs N] [--threads N] [--rounds N] [--modes "none;..."]
#
# bench/java/VirtualSwitch.java (N virtual threads that only yield) under each mode
# (default: none, cpu=samples and heap=sites, each without and with thread=y),
# alternating, N runs each (default 7).
# Prints each mode's median time, its ratio to the run without the agent and the cost per
# switch (a yield is one unmount and one mount) over the run without the agent.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=${JAVA_HOME:-}
RUNS=7
THREADS=1000
ROUNDS=2000
MODES="none;cpu=samples;cpu=samples,thread=y;heap=sites;heap=sites,thread=y"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --threads) THREADS=${2:?}; shift ;;
    --rounds) ROUNDS=${2:?}; shift ;;
    --modes) MODES=${2:?}; shift ;;
    *) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done
if [[ -z "$JDK" ]]; then   # the first JDK found that has virtual threads
  for d in $("$ROOT/tests/lib/jdks.sh"); do
    v=$("$d/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    [[ ${v%%.*} -ge 21 ]] && { JDK=$d; break; }
  done
fi
[[ -n "$JDK" ]] || { echo "no JDK 21+ found (--jdk DIR)" >&2; exit 1; }
AGENT=$ROOT/build/libhprof.so
[[ -f "$AGENT" ]] || { echo "build first (make)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-vthreads-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$JDK/bin/javac" -nowarn -d "$WORK" "$ROOT/bench/java/VirtualSwitch.java" || exit 1

IFS=';' read -r -a MODES <<<"$MODES"
declare -A times
for ((r = 0; r < RUNS; r++)); do
  for m in "${MODES[@]}"; do
    opt=(); [[ $m == none ]] || opt=("-agentpath:$AGENT=$m,file=$WORK/p.txt")
    out=$("$JDK/bin/java" "${opt[@]}" -cp "$WORK" VirtualSwitch "$THREADS" "$ROUNDS" 2>/dev/null) || { echo "$m: failed" >&2; exit 1; }
    times[$m]+="$(sed -n 's/^switches [0-9]* ms //p' <<<"$out") "
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(median <<<"${times[${MODES[0]}]}")
switches=$((THREADS * ROUNDS * 2))
echo "VirtualSwitch $THREADS threads x $ROUNDS yields, $("$JDK/bin/java" -version 2>&1 | head -1), $RUNS alternating runs each"
echo
echo "| mode | median ms | vs ${MODES[0]} | per mount or unmount |"
echo "|---|---|---|---|"
for m in "${MODES[@]}"; do
  t=$(median <<<"${times[$m]}")
  awk -v m="$m" -v first="${MODES[0]}" -v t="$t" -v b="$base" -v s="$switches" 'BEGIN { printf "| `%s` | %d | %.2fx | %s |\n", m, t, t / b, m == first ? "-" : sprintf("%.2f us", (t - b) * 1000 / s) }'
done
