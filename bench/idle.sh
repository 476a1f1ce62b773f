#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/idle.sh: what an agent left idle costs (issue #30): a session stopped leaves the
# agent loaded (a JVMTI agent cannot be unloaded), and it must cost nothing measurable.
# javac compiles the generated corpus round after round in one JVM (bench/java/
# JavacRounds), in runs that take turns:
#   none     no agent
#   stopped  `hprof start PID` with every mode an attach can take (cpu=samples, sampled
#            heap=sites, monitor=y) after round 1, `hprof stop PID` after round 3: the
#            rounds after that run beside an idle agent
# and the script reports, for each, the median wall time and CPU time (user+system) of
# the rounds after --from (default 6: two rounds after the stop, the JIT settled), their
# ratio stopped / none, and the agent's idle state as `hprof status` says it.
#
#   bench/idle.sh [--rounds 14] [--from 6] [--runs 3] [--jdk DIR] [--out DIR]
#
# Every run is written to OUT/NAME-I.rounds ("round wall_ms cpu_ms"); the table to
# OUT/results.md. Read the ratio with the load it says: it wants a quiet machine.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

ROUNDS=14 FROM=6 RUNS=3 JDK="" OUT="$ROOT/build/idle"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS=${2:?}; shift ;;
    --from) FROM=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --jdk) JDK=${2:?}; shift ;;
    --out) OUT=${2:?}; shift ;;
    -h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "idle.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
JDK=${JDK:-${JAVA_HOME:-$(tests/lib/jdks.sh --first)}}
[[ -x "$JDK/bin/java" ]] || { echo "idle.sh: no JDK (use --jdk)" >&2; exit 2; }
[[ -x build/hprof && -f build/libhprof.so ]] || { echo "idle.sh: run make first" >&2; exit 2; }
((FROM > 3 && FROM <= ROUNDS)) || { echo "idle.sh: --from must be after round 3 and at most --rounds" >&2; exit 2; }

source "$ROOT/bench/inputs.sh"
CORPUS=$(prepare_javac_corpus) || exit 1
rm -rf "$OUT" && mkdir -p "$OUT/classes"
"$JDK/bin/javac" -nowarn -d "$OUT/classes" bench/java/Rounds.java bench/java/JavacRounds.java || exit 1

HZ=$(getconf CLK_TCK)
rounds_done() { grep -c '^round [0-9]*:' "$1" 2>/dev/null; }

# run NAME I: one JVM; its rounds in OUT/NAME-I.rounds. The CPU time of a round is read
# from /proc when its line appears (polled every 50 ms: a round takes seconds).
run() {
  local name=$1 i=$2 log="$OUT/$1-$2.out" pid seen=0 n t prev
  (cd "$CORPUS" && exec "$JDK/bin/java" -Xms1g -Xmx1g -cp "$OUT/classes" JavacRounds "$ROUNDS" -nowarn \
    -encoding UTF-8 -d "$OUT/$name-$i-classes" @sources.txt) >"$log" 2>&1 &
  pid=$!
  prev=$(cpu_ticks $pid)
  : >"$OUT/$name-$i.rounds"
  while kill -0 $pid 2>/dev/null; do
    sleep 0.05
    n=$(rounds_done "$log")
    ((n > seen)) || continue
    t=$(cpu_ticks $pid); [[ -n $t ]] || break
    # several lines at once (a slow poll): the CPU time goes to the last of them
    sed -n "$((seen + 1)),${n}p" <(grep '^round [0-9]*:' "$log") |
      awk -v cpu="$(((t - prev) * 1000 / HZ))" -v n="$n" '{ sub(":", "", $2); print $2, $3, ($2 == n ? cpu : 0) }' \
        >>"$OUT/$name-$i.rounds"
    prev=$t seen=$n
    if [[ $name == stopped && $n == 1 ]]; then
      build/hprof start $pid "cpu=samples,interval=10,heap=sites,alloc_sample=524288,monitor=y,file=$OUT/stopped-$i.txt" \
        >"$OUT/stopped-$i.hprof" 2>&1 || echo "idle.sh: hprof start failed (see $OUT/stopped-$i.hprof)" >&2
    elif [[ $name == stopped && $n == 3 ]]; then
      build/hprof stop $pid >>"$OUT/stopped-$i.hprof" 2>&1 || echo "idle.sh: hprof stop failed" >&2
      build/hprof status $pid >"$OUT/stopped-$i.status" 2>&1
    fi
  done
  wait $pid 2>/dev/null
}

load() { awk '{ print $1 }' /proc/loadavg; }
l0=$(load)
echo "idle.sh: $(basename "$JDK"), $RUNS runs each of $ROUNDS javac rounds, rounds $FROM.. measured" >&2
for i in $(seq "$RUNS"); do
  run none "$i"
  run stopped "$i"
done
l1=$(load)

# median of column C over the rounds >= FROM of every run of NAME
median() {
  cat "$OUT/$1"-*.rounds | awk -v from="$FROM" -v c="$2" '$1 >= from && $c > 0 { print $c }' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print 0 }'
}
{
  echo "idle.sh: $(basename "$JDK"), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' DIRTY'), $RUNS runs of each, rounds $FROM-$ROUNDS, load $l0 before, $l1 after"
  echo
  echo "| run | median round wall ms | median round CPU ms |"
  echo "|---|---:|---:|"
  for name in none stopped; do echo "| $name | $(median "$name" 2) | $(median "$name" 3) |"; done
  awk -v a="$(median none 2)" -v b="$(median stopped 2)" -v c="$(median none 3)" -v d="$(median stopped 3)" \
    'BEGIN { if (a > 0 && c > 0) printf "\nstopped / none: wall %.3f, CPU %.3f\n", b / a, d / c }'
  echo
  echo "hprof status after the stop (run 1): $(tr '\n' ' ' <"$OUT/stopped-1.status" 2>/dev/null)"
} | tee "$OUT/results.md"
