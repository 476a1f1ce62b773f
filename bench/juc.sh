#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/juc.sh: what monitor=y costs programs that lock through java.util.concurrent.
#
#   bench/juc.sh [--jdk DIR] [--runs N] [--ap PATH/libasyncProfiler.so] [--also PATH/libhprof.so]
#                [--work "lock 4 2000000;..."]
#
# bench/java/JucWork.java's workloads (default: 4 threads handing a ReentrantLock around,
# one thread taking it uncontended, a pool of 4 fed through a LinkedBlockingQueue, one
# thread parking 2,000,000 times with its permit given first), each run with no agent,
# with monitor=y, given --also with monitor=y of another build of the agent (an older
# one, to compare in the same paired run) and given --ap with async-profiler's
# event=lock, alternating, N runs each (default 7). Prints each mode's median of the time
# the program measured itself (for park: the parking thread's CPU time) and its ratio to
# the run without an agent, then the load the machine had (others' programs count).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
RUNS=7
AP="" ALSO=""
WORK_LIST="lock 4 2000000;uncontended 50000000;pool 4 400000;park 2000000"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --ap) AP=${2:?}; shift ;;
    --also) ALSO=${2:?}; shift ;;
    --work) WORK_LIST=${2:?}; shift ;;
    *) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hprof-juc-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" -nowarn -d "$TMP" "$ROOT/bench/java/JucWork.java" || exit 1
MODES=("none" "-agentpath:$ROOT/build/libhprof.so=monitor=y,file=$TMP/p.txt")
NAMES=("none" "monitor=y")
if [[ -n $ALSO ]]; then
  MODES+=("-agentpath:$ALSO=monitor=y,file=$TMP/p2.txt")
  NAMES+=("monitor=y (also)")
fi
if [[ -n $AP ]]; then
  MODES+=("-agentpath:$AP=start,event=lock,file=$TMP/ap.txt")
  NAMES+=("ap event=lock")
fi
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
IFS=';' read -ra WORKS <<<"$WORK_LIST"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %-16s %8s %7s\n' workload mode ms ratio
for w in "${WORKS[@]}"; do
  for ((r = 0; r < RUNS; r++)); do
    for ((m = 0; m < ${#MODES[@]}; m++)); do
      opt=${MODES[$m]}; [[ $opt == none ]] && opt=-Dnone
      ms=$("$JDK/bin/java" "$opt" -cp "$TMP" JucWork $w 2>/dev/null | sed -n 's/^ms //p')
      echo "${ms:-0}" >>"$TMP/t.$m"
    done
  done
  base=$(median <"$TMP/t.0")
  for ((m = 0; m < ${#MODES[@]}; m++)); do
    med=$(median <"$TMP/t.$m")
    printf '%-28s %-16s %8s %7.3f\n' "$w" "${NAMES[$m]}" "$med" "$(awk -v a="$med" -v b="$base" 'BEGIN { print (b > 0 ? a / b : 0) }')"
    rm -f "$TMP/t.$m"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
