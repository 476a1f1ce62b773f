#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/rolling.sh: what a rolling cpu=samples profile (rotate=, keep=: a pprof file per
# window, as a continuous-profiling collector takes them) costs a long-lived program, and
# whether its memory stays flat. javac compiles the generated corpus over and over in one
# JVM (bench/java/JavacRounds) for the given time, once without the agent and once with
#   -agentpath:libhprof.so=cpu=samples,rotate=EVERY,keep=KEEP,file=OUT/w-%t.pb.gz
# and the script reports, for each: the rounds done, the CPU time (user+system) per round,
# and the RSS after the first window and at the end; then the ratio of CPU per round
# (agent / none), the RSS growth, and the windows' files (how many kept, their size).
#
#   bench/rolling.sh [--seconds 3600] [--base-seconds S] [--every 60] [--keep 5]
#                    [--interval 10] [--heap 1536m] [--jdk DIR] [--agent LIB] [--out DIR]
#                    [--together]
#
# --base-seconds: the run without the agent (default: as long as --seconds; 0: none,
# for a soak of memory alone). Each run's RSS every window goes to OUT/NAME.rss
# ("seconds KiB rounds"), and the table gives it at a quarter, half and the end of the
# run. The agent's run has HPROF_TABLE_STATS=1: its OUT/rolling.out ends with the
# traces it holds and those it forgot.
# The Java heap is fixed and touched at start (-Xms = -Xmx = HEAP, AlwaysPreTouch): else
# its growth, which G1 decides (seen: 2.3 GB, then 3.7 GB after 30 minutes), hides what
# the native memory does.
#
# The two runs take turns on a shared machine: read the ratio with the load it says.
# --together runs them at the same time instead (an hour's pair in an hour): each sees the
# same load from the other and from the machine, at the price of sharing its 2 cores.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

TOGETHER=0 SECONDS_EACH=3600 BASE_SECONDS="" HEAP=1536m EVERY=60 KEEP=5 INTERVAL=10 JDK="" AGENT="$ROOT/build/libhprof.so" OUT="$ROOT/build/rolling"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) SECONDS_EACH=${2:?}; shift ;;
    --base-seconds) BASE_SECONDS=${2:?}; shift ;;
    --heap) HEAP=${2:?}; shift ;;
    --every) EVERY=${2:?}; shift ;;
    --keep) KEEP=${2:?}; shift ;;
    --interval) INTERVAL=${2:?}; shift ;;
    --jdk) JDK=${2:?}; shift ;;
    --agent) AGENT=${2:?}; shift ;;
    --out) OUT=${2:?}; shift ;;
    --together) TOGETHER=1 ;;
    -h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "rolling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
JDK=${JDK:-${JAVA_HOME:-$(tests/lib/jdks.sh --first)}}
[[ -x "$JDK/bin/java" ]] || { echo "rolling.sh: no JDK (use --jdk)" >&2; exit 2; }
[[ -f "$AGENT" ]] || { echo "rolling.sh: run make first" >&2; exit 2; }

source "$ROOT/bench/inputs.sh"
CORPUS=$(prepare_javac_corpus) || exit 1
rm -rf "$OUT" && mkdir -p "$OUT/classes" "$OUT/windows"
"$JDK/bin/javac" -nowarn -d "$OUT/classes" bench/java/Rounds.java bench/java/JavacRounds.java || exit 1

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }  # KiB
load() { awk '{ print $1 }' /proc/loadavg; }

# run NAME SECONDS [java options...]: javac rounds for SECONDS; prints
# "NAME rounds cpu_s_per_round rss_first_kib rss_end_kib load_start load_end cpu_s
#  rss_quarter_kib rss_half_kib"; the RSS of each window's end in OUT/NAME.rss.
run() {
  local name=$1 secs=$2; shift 2
  local log="$OUT/$name.out" pid first="" t0 cpu n l0 next=$EVERY
  mkdir -p "$OUT/$name-classes"
  l0=$(load)
  (cd "$CORPUS" && exec "$JDK/bin/java" "-Xms$HEAP" "-Xmx$HEAP" -XX:+AlwaysPreTouch "$@" -cp "$OUT/classes" JavacRounds 1000000 -nowarn -encoding UTF-8 \
    -d "$OUT/$name-classes" @sources.txt) >"$log" 2>&1 &
  pid=$!
  t0=$(date +%s)
  : >"$OUT/$name.rss"
  while kill -0 $pid 2>/dev/null && (($(date +%s) - t0 < secs)); do
    sleep 1
    # the first window's end: the agent's memory with a window written
    [[ -z $first ]] && (($(date +%s) - t0 >= EVERY + 5)) && first=$(rss $pid)
    if (($(date +%s) - t0 >= next + 5)); then
      echo "$next $(rss $pid) $(grep -c '^round [0-9]*:' "$log")" >>"$OUT/$name.rss"; next=$((next + EVERY))
    fi
  done
  cpu=$(cpu_ticks $pid)
  local last; last=$(rss $pid)
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  n=$(grep -c '^round [0-9]*:' "$log")
  awk -v name="$name" -v n="$n" -v cpu="$cpu" -v hz="$(getconf CLK_TCK)" -v f="${first:-0}" -v e="${last:-0}" \
    -v l0="$l0" -v l1="$(load)" -v q="$(at_fraction "$OUT/$name.rss" 4)" -v h="$(at_fraction "$OUT/$name.rss" 2)" \
    'BEGIN { printf "%s %d %.3f %d %d %s %s %.1f %d %d\n", name, n, n ? cpu / hz / n : 0, f, e, l0, l1, cpu / hz, q, h }'
}

# at_fraction FILE K: the RSS (KiB) recorded at 1/K of the run (0 when none).
at_fraction() { awk -v k="$2" '{ t[NR] = $2 } END { i = int(NR / k); print (i > 0 ? t[i] : 0) + 0 }' "$1"; }

BASE_SECONDS=${BASE_SECONDS:-$SECONDS_EACH}
((TOGETHER)) && how="at the same time" || how="one after the other"
echo "rolling.sh: $(basename "$JDK"), ${SECONDS_EACH}s with the agent, ${BASE_SECONDS}s without ($how), a window every ${EVERY}s, keep=$KEEP, interval=${INTERVAL}ms, heap $HEAP" >&2
none="none 0 0 0 0 - - 0 0 0"
if ((BASE_SECONDS > 0 && TOGETHER)); then
  run none "$BASE_SECONDS" >"$OUT/none.row" &
  base_pid=$!
elif ((BASE_SECONDS > 0)); then
  none=$(run none "$BASE_SECONDS")
fi
agent=$(HPROF_TABLE_STATS=1 run rolling "$SECONDS_EACH" "-agentpath:$AGENT=cpu=samples,interval=$INTERVAL,rotate=$EVERY,keep=$KEEP,service=javac,file=$OUT/windows/w-%t.pb.gz")
[[ -n ${base_pid:-} ]] && wait "$base_pid" && none=$(cat "$OUT/none.row")
files=$(ls "$OUT/windows" | wc -l)
size=$(du -sk "$OUT/windows" | awk '{ print $1 }')
{
  echo "| run | rounds | CPU s in all | CPU s / round | RSS (MiB) after window 1 / at 1/4 / 1/2 / end | load (start, end) |"
  echo "|---|---|---|---|---|---|"
  rows=("$agent"); ((BASE_SECONDS > 0)) && rows=("$none" "$agent")
  for r in "${rows[@]}"; do
    awk '{ printf "| %s | %d | %.1f | %.3f | %.1f / %.1f / %.1f / %.1f | %s, %s |\n", $1, $2, $8, $3, $4 / 1024, $9 / 1024, $10 / 1024, $5 / 1024, $6, $7 }' <<<"$r"
  done
  paste -d' ' <(echo "$none") <(echo "$agent") | awk -v files="$files" -v size="$size" -v base="$BASE_SECONDS" '{
    if ($3 && $13) printf "\nCPU per round, rolling / none: %.3f; ", $13 / $3
    else if (base > 0) printf "\nno javac round finished in one of the runs: give more --seconds; "
    else printf "\n"
    printf "RSS growth from window 1 to the end: "
    if (base > 0) printf "none %+.1f MiB, ", ($5 - $4) / 1024
    printf "rolling %+.1f MiB; ", ($15 - $14) / 1024
    printf "window files kept: %d (%d KiB)\n", files, size }'
  sed -n 's/^HPROF: tables: .* \([0-9]* traces under .*\)/agent at the end: \1/p' "$OUT/rolling.out" | head -1
} | tee "$OUT/results.md"
