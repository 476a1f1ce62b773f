#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/table.sh: the whole table of issue 29 in one command, on every JDK: each workload
# (javac on Apache Commons Lang, on the JDK's own java.time, Debian's Rhino, Debian's Ant,
# and the cpu, alloc and javac workloads of bench/) under no agent, cpu=samples,interval=10,
# JFR, cpu=times, exact heap=sites and heap=sites with view=all (async-profiler too with
# --asprof), through bench/run.sh: start-up and steady-state ratios, peak RSS ratio,
# alternating runs, with the commit and whether the tree was clean in each table's header.
#
#   bench/table.sh [--install] [--jdks "DIR DIR"] [--runs N] [--rounds N] [--workloads LIST]
#                  [--modes "A;B"] [--issue] [--timeout S] [--out FILE] [-- RUN.SH OPTIONS...]
#
#   --install      as root, apt-get install the Debian packages the workloads need first
#                  (otherwise the script names them and stops)
#   --jdks         the JDKs (default: tests/lib/jdks.sh, i.e. every JDK 17+ under /usr/lib/jvm)
#   --runs N       alternating runs of each configuration (default 5)
#   --rounds N     rounds of work in each run; the steady state is the last half (default 5)
#   --workloads    default commons-lang,java.time,rhino,ant,cpu,alloc,javac
#   --modes        default "cpu=samples,interval=10;cpu=times;heap=sites;heap=sites,view=all"
#   --issue        only the rows of issue 29, each workload with its own modes and the cheaper
#                  alternatives beside them: javac (Commons Lang, java.time) and Rhino under
#                  cpu=times, cpu=times,timing=gprof, heap=sites, heap=sites,live=sampled,
#                  heap=sites,callers=sampled; cpu under the two cpu=times; alloc under the
#                  three heap=sites; Ant under
#                  heap=sites and heap=sites,view=all (about 75 minutes for two JDKs at
#                  --runs 3 --rounds 3); --workloads and --modes are then ignored
#   --timeout S    a run taking longer fails (default 3600: exact modes on Ant are slow)
#   --out FILE     the combined Markdown (default build/bench/table.md); each JDK's own table
#                  and runs are in build/bench/table-<jdk>.md and .md.tsv
#
# Inputs that are not Debian packages (the commons-lang and java.time sources, the Ant
# corpus) are made by bench/inputs.sh on first use under build/bench/inputs/.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

usage() {
  sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-0}"
}
die() { echo "table.sh: $*" >&2; exit 2; }

INSTALL=0
JDKS=""
RUNS=5
ROUNDS=5
WORKLOADS="commons-lang,java.time,rhino,ant,cpu,alloc,javac"
MODES="cpu=samples,interval=10;cpu=times;heap=sites;heap=sites,view=all"
TIMEOUT=3600
ISSUE=0
OUT=build/bench/table.md
PASS=()
COMMAND="bench/table.sh$(printf ' %q' "$@")"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --install) INSTALL=1 ;;
    --jdks) JDKS=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --rounds) ROUNDS=${2:?}; shift ;;
    --workloads) WORKLOADS=${2:?}; shift ;;
    --modes) MODES=${2-}; shift ;;
    --issue) ISSUE=1 ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --out) OUT=${2:?}; shift ;;
    --) shift; PASS=("$@"); break ;;
    -h|--help) usage 0 ;;
    *) echo "table.sh: unknown argument: $1" >&2; usage 2 >&2 ;;
  esac
  shift
done

# RUNSETS: "workloads|modes" lines, one bench/run.sh invocation each.
if [[ $ISSUE -eq 1 ]]; then
  WORKLOADS="commons-lang,java.time,rhino,cpu,alloc,ant"
  RUNSETS="commons-lang,java.time,rhino|cpu=times;cpu=times,timing=gprof;heap=sites;heap=sites,live=sampled;heap=sites,callers=sampled
cpu|cpu=times;cpu=times,timing=gprof
alloc|heap=sites;heap=sites,live=sampled;heap=sites,callers=sampled
ant|heap=sites;heap=sites,view=all"
  JFR=()
else
  RUNSETS="$WORKLOADS|$MODES"
  JFR=(--jfr)
fi

. "$ROOT/bench/inputs.sh"
IFS=',' read -r -a WL <<<"$WORKLOADS"
MISSING=$(missing_packages "${WL[@]}")
if [[ -n "$MISSING" ]]; then
  if [[ $INSTALL -eq 1 && $(id -u) -eq 0 ]]; then
    echo "table.sh: apt-get install -y $MISSING" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $MISSING >&2 || die "apt-get install failed"
  else
    die "the workloads need Debian packages: apt-get install -y $MISSING (or, as root: bench/table.sh --install)"
  fi
fi

[[ -f build/libhprof.so ]] || die "no build/libhprof.so: run make -j2 first"
if [[ -z "$JDKS" ]]; then JDKS=$(tests/lib/jdks.sh | xargs); fi
[[ -n "$JDKS" ]] || die "no JDK found (give --jdks)"

STATUS=0
PARTS=()
START=$(date +%s)
for jdk in $JDKS; do
  name=$(basename "$(cd "$jdk" && pwd -P)")
  g=0
  while IFS='|' read -r wl modes; do
    g=$((g + 1))
    part=build/bench/table-$name.md
    [[ $ISSUE -eq 1 ]] && part=build/bench/table-$name-$g.md
    echo "table.sh: $name: $wl" >&2
    rm -f "$part"
    bench/run.sh --jdk "$jdk" --runs "$RUNS" --rounds "$ROUNDS" --workloads "$wl" --modes "$modes" \
      "${JFR[@]}" --timeout "$TIMEOUT" --out "$part" "${PASS[@]}" >/dev/null || STATUS=1
    [[ -f "$part" ]] && PARTS+=("$part")
  done <<<"$RUNSETS"
done
{
  echo "## Current table"
  echo
  echo "\`$COMMAND\` ($(( ($(date +%s) - START) / 60 )) min). Ratios are against the same workload without an agent" \
       "in the same invocation: start-up = one run's wall time less its rounds 2..N, steady = median time of a" \
       "round in the last half of the rounds, peak RSS of the process. A FAILED row says why."
  for p in "${PARTS[@]}"; do echo; cat "$p"; done
} >"$OUT"
cat "$OUT"
echo "table.sh: $OUT" >&2
exit "$STATUS"
