#!/usr/bin/env bash
# bench/run.sh: measures what the agent costs, against the same run without it.
#
#   bench/run.sh [--jdk DIR] [--runs N] [--workloads javac,cpu,alloc,threads]
#                [--modes "cpu=samples,interval=10;heap=sites"] [--jfr] [--out FILE]
#                [--warmup N] [--timeout S] [--agent PATH] [--java-opts "OPTS"]
#                [--quiet-wait S] [--busy CPUS] [--alloc-args "THREADS ROUNDS"]
#   bench/run.sh --report FILE.tsv [--busy CPUS]     (the table again, from earlier runs)
#
# Workloads: javac (javac compiling the generated corpus, build/bench/corpus), cpu, alloc,
# threads (bench/java/*Work.java). For each workload it runs one discarded warm-up without
# the agent, then N rounds of: baseline (no agent), each mode, and JFR when --jfr is given,
# in that order, so that every configuration sees the same drift in machine load.
# Every run is checked: exit status 0, the workload's own "done" line, and for agent and
# JFR runs a non-empty output file in a per-run temporary directory (removed afterwards).
# A configuration with one failed run is reported as FAILED, never as a number.
#
# The machine is shared, so before each run it waits up to --quiet-wait seconds (default 10,
# and 120 in all) for the other processes to use less than --busy CPUs (default 0.5). The
# table shows how many CPUs other work took during the runs (median), the ratio of the
# fastest runs, and the ratio of the medians of the quiet runs (those during which other
# work used less than --busy CPUs), with how many runs of the mode were quiet: the two
# suffer least from such work.
#
# Output: a Markdown table on stdout and in FILE (default build/bench/results-<jdk>.md),
# every run in FILE.tsv, and the logs of failed runs in build/bench/logs/.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

usage() {
  sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-0}"
}

JDK=""
RUNS=5
WORKLOADS="javac,cpu,alloc,threads"
MODES="cpu=samples,interval=10"
JFR=0
OUT=""
WARMUP=1
TIMEOUT=300
AGENT="$ROOT/build/libhprof.so"
JAVA_OPTS=""
ALLOC_ARGS=""
QUIET_WAIT=10
REPORT=""
BUSY=0.5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --workloads) WORKLOADS=${2:?}; shift ;;
    --modes) MODES=${2-}; shift ;;
    --jfr) JFR=1 ;;
    --out) OUT=${2:?}; shift ;;
    --warmup) WARMUP=${2:?}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --agent) AGENT=${2:?}; shift ;;
    --java-opts) JAVA_OPTS=${2-}; shift ;;
    --alloc-args) ALLOC_ARGS=${2-}; shift ;;
    --quiet-wait) QUIET_WAIT=${2:?}; shift ;;
    --busy) BUSY=${2:?}; shift ;;
    --report) REPORT=${2:?}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage 2 >&2 ;;
  esac
  shift
done

die() { echo "run.sh: $*" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
[[ "$WARMUP" =~ ^[0-9]+$ ]] || die "--warmup wants a number"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds"
[[ "$QUIET_WAIT" =~ ^[0-9]+$ ]] || die "--quiet-wait wants a number of seconds"
[[ "$BUSY" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--busy wants a number of CPUs"

# --- the table ----------------------------------------------------------------------------
# stats WORKLOAD MODE: "median_wall min max median_rss_kb median_cpu n median_others
# quiet_median_wall quiet_n" from the TSV; the quiet runs are those during which other work
# used less than BUSY CPUs.
stats() {
  awk -F'\t' -v w="$1" -v m="$2" -v busy="$BUSY" '
    function median(a, n,   i, j, t) {
      if (n == 0) return "-"
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR > 1 && $2 == w && $3 == m {
      n++; wall[n] = $5; rss[n] = $6; cpu[n] = $7 + $8; oth[n] = $9
      if ($9 < busy) { q++; quiet[q] = $5 }
    }
    END {
      if (n == 0) { print "-"; exit }
      min = wall[1]; max = wall[1]
      for (i = 2; i <= n; i++) { if (wall[i] < min) min = wall[i]; if (wall[i] > max) max = wall[i] }
      printf "%.3f %.2f %.2f %d %.2f %d %.2f %s %d\n", median(wall, n), min, max, median(rss, n), median(cpu, n), n,
        median(oth, n), median(quiet, q + 0), q + 0
    }' "$TSV"
}

# ratio A B: A/B as "1.23x", or "–" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "–"; else printf "%.2fx", a / b }'; }

# table: the Markdown table of WL x CFG_NAME from the TSV (FAILED rows say why).
table() {
  echo "| workload | mode | median wall s | ratio | min–max s | min ratio | quiet runs: ratio | median peak RSS MiB | RSS ratio | median CPU s | CPU ratio | others' CPUs |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  local w ci name wall min max rss cpu n others qwall qn bwall bmin brss bcpu bq
  for w in "${WL[@]}"; do
    read -r bwall bmin _ brss bcpu _ _ bq _ <<<"$(stats "$w" baseline)"
    for ci in "${!CFG_NAME[@]}"; do
      name=${CFG_NAME[$ci]}
      if [[ -n "${FAILED[$w|$ci]:-}" ]]; then
        echo "| $w | $name | FAILED: ${FAILED[$w|$ci]} | | | | | | | | | |"
        continue
      fi
      read -r wall min max rss cpu n others qwall qn <<<"$(stats "$w" "$name")"
      [[ "$wall" == "-" ]] && { echo "| $w | $name | no runs | | | | | | | | | |"; continue; }
      printf '| %s | %s | %.2f | %s | %s–%s | %s | %s: %s | %d | %s | %.1f | %s | %s |\n' "$w" "$name" "$wall" \
        "$(ratio "$wall" "$bwall")" "$min" "$max" "$(ratio "$min" "$bmin")" "$qn" "$(ratio "$qwall" "$bq")" \
        $((rss / 1024)) "$(ratio "$rss" "$brss")" "$cpu" "$(ratio "$cpu" "$bcpu")" "$others"
    done
  done
}

declare -A FAILED=()
if [[ -n "$REPORT" ]]; then
  # Only the table again, from the runs an earlier invocation wrote.
  [[ -f "$REPORT" ]] || die "no such file: $REPORT"
  TSV=$REPORT
  mapfile -t WL < <(awk -F'\t' 'NR > 1 && !seen[$2]++ { print $2 }' "$TSV")
  mapfile -t CFG_NAME < <(awk -F'\t' 'NR > 1 && !seen[$3]++ { print $3 }' "$TSV")
  echo "### $(awk -F'\t' 'NR == 2 { print $1 }' "$TSV") (from $TSV)"
  echo
  table
  exit 0
fi


if [[ -z "$JDK" ]]; then JDK=${JAVA_HOME:-$(tests/lib/jdks.sh --first 2>/dev/null)}; fi
[[ -n "$JDK" && -x "$JDK/bin/java" && -x "$JDK/bin/javac" ]] || die "no JDK (give --jdk DIR or set JAVA_HOME)"
JDK=$(cd "$JDK" && pwd -P)
JDK_NAME=$(basename "$JDK")
JDK_VERSION=$("$JDK/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')
[[ "$AGENT" == /* ]] || AGENT="$ROOT/$AGENT"
OUT=${OUT:-build/bench/results-$JDK_NAME.md}
mkdir -p "$(dirname "$OUT")" build/bench/logs
TSV="$OUT.tsv"

IFS=',' read -r -a WL <<<"$WORKLOADS"
for w in "${WL[@]}"; do
  case "$w" in javac|cpu|alloc|threads) ;; *) die "unknown workload '$w' (javac, cpu, alloc, threads)" ;; esac
done

# Configurations: index 0 is the baseline; KIND is base, agent or jfr.
CFG_NAME=("baseline"); CFG_KIND=("base"); CFG_ARG=("")
if [[ -n "$MODES" ]]; then
  IFS=';' read -r -a ML <<<"$MODES"
  for m in "${ML[@]}"; do
    m=$(echo "$m" | tr -d '[:space:]')
    [[ -n "$m" ]] || continue
    [[ ",$m," == *",file="* ]] && die "mode '$m': leave file= out, run.sh picks the output file"
    CFG_NAME+=("$m"); CFG_KIND+=("agent"); CFG_ARG+=("$m")
  done
fi
if [[ $JFR -eq 1 ]]; then
  CFG_NAME+=("JFR settings=profile"); CFG_KIND+=("jfr"); CFG_ARG+=("profile")
fi

# --- helpers, corpus and workload classes ------------------------------------------------
CC=${CC:-gcc}
build_tool() {  # build_tool NAME: bench/NAME.c -> build/bench/NAME when missing or stale
  local src="bench/$1.c" bin="build/bench/$1"
  if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
    "$CC" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$bin" "$src" || die "cannot build $bin"
  fi
}
build_tool runstat
build_tool gen-corpus
RUNSTAT=$ROOT/build/bench/runstat

# The corpus is the same on every run: regenerated only when the generator changed, into a
# new directory that then replaces the old one.
CORPUS=$ROOT/build/bench/corpus
if [[ ! -f "$CORPUS/.complete" || build/bench/gen-corpus -nt "$CORPUS/.complete" ]]; then
  rm -rf "$CORPUS.new.$$"
  build/bench/gen-corpus "$CORPUS.new.$$" >/dev/null || die "corpus generation failed"
  touch "$CORPUS.new.$$/.complete"
  rm -rf "$CORPUS" && mv "$CORPUS.new.$$" "$CORPUS" || die "cannot replace $CORPUS"
fi
CORPUS_FILES=$(wc -l <"$CORPUS/sources.txt")
CORPUS_LINES=$(cd "$CORPUS" && xargs cat <sources.txt | wc -l)

CLASSES=$ROOT/build/bench/classes-$JDK_NAME
if [[ ! -f "$CLASSES/.stamp" || -n "$(find bench/java -name '*.java' -newer "$CLASSES/.stamp")" ]]; then
  rm -rf "$CLASSES"; mkdir -p "$CLASSES"
  "$JDK/bin/javac" -nowarn -d "$CLASSES" bench/java/*.java || die "javac of bench/java failed"
  touch "$CLASSES/.stamp"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench-XXXXXX")
RUNNING=""
trap 'rm -rf "$WORK"' EXIT
trap '[[ -n "$RUNNING" ]] && kill -TERM "$RUNNING" 2>/dev/null; wait; exit 130' INT TERM

# --- one run ------------------------------------------------------------------------------
read -r -a EXTRA <<<"$JAVA_OPTS"

# busy_cpus: how many CPUs the machine keeps busy, over half a second.
busy_cpus() {
  local a b
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat)
  sleep 0.5
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat)
  awk -v a="$a" -v b="$b" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz / 0.5 }'
}

# wait_quiet: waits up to QUIET_WAIT seconds for other work to use less than BUSY CPUs,
# and no more once it has waited QUIET_TOTAL seconds in all.
QUIET_TOTAL=120
WAITED=0
wait_quiet() {
  local start=$SECONDS b
  local deadline=$((SECONDS + QUIET_WAIT))
  ((QUIET_TOTAL - WAITED < QUIET_WAIT)) && deadline=$((SECONDS + QUIET_TOTAL - WAITED))
  while :; do
    b=$(busy_cpus)
    if awk -v b="$b" -v max="$BUSY" 'BEGIN { exit !(b < max) }'; then
      WAITED=$((WAITED + SECONDS - start)); return 0
    fi
    if ((SECONDS >= deadline)); then
      WAITED=$((WAITED + SECONDS - start)); return 1
    fi
    sleep 0.5
  done
}

# run_one WORKLOAD CFG_INDEX LABEL: runs once, appends a row to the TSV unless it is a warm-up.
run_one() {
  local w=$1 ci=$2 label=$3
  local kind=${CFG_KIND[$ci]} name=${CFG_NAME[$ci]}
  local dir="$WORK/run"
  rm -rf "$dir"; mkdir -p "$dir"
  local -a jvm=("${EXTRA[@]}")
  local expect=""
  case "$kind" in
    agent) jvm+=("-agentpath:$AGENT=${CFG_ARG[$ci]},file=$dir/hprof.out"); expect="$dir/hprof.out" ;;
    jfr) jvm+=("-XX:StartFlightRecording=filename=$dir/rec.jfr,settings=${CFG_ARG[$ci]}"); expect="$dir/rec.jfr" ;;
  esac
  local -a cmd
  local cwd="$dir" done_re
  case "$w" in
    javac)
      cmd=("$JDK/bin/javac")
      for o in "${jvm[@]}"; do cmd+=("-J$o"); done
      cmd+=(-nowarn -encoding UTF-8 -d "$dir/classes" "@$CORPUS/sources.txt")
      cwd=$CORPUS ;;
    cpu) cmd=("$JDK/bin/java" "${jvm[@]}" -cp "$CLASSES" CpuWork) ;;
    alloc) cmd=("$JDK/bin/java" "${jvm[@]}" -cp "$CLASSES" AllocWork $ALLOC_ARGS) ;;
    threads) cmd=("$JDK/bin/java" "${jvm[@]}" -cp "$CLASSES" ThreadsWork) ;;
  esac
  wait_quiet || echo "  (other work keeps $BUSY CPUs or more busy: running anyway)" >&2
  "$RUNSTAT" -t "$TIMEOUT" -o "$dir/stat" -C "$cwd" -- "${cmd[@]}" >"$dir/log" 2>&1 &
  RUNNING=$!
  wait "$RUNNING"
  RUNNING=""
  local wall rss user sys status others
  read -r wall rss user sys status others <"$dir/stat" || { wall=0; rss=0; user=0; sys=0; status=127; others=0; }

  local why=""
  if [[ "$status" != 0 ]]; then
    why="exit status $status"; [[ "$status" == 124 ]] && why="timed out after ${TIMEOUT}s"
  elif [[ "$w" == javac && ! -f "$dir/classes/corpus/app/Main.class" ]]; then
    why="javac wrote no classes"
  elif [[ "$w" != javac ]] && ! grep -q 'Work done:' "$dir/log"; then
    why="the workload did not finish"
  elif [[ -n "$expect" && ! -s "$expect" ]]; then
    why="no output file written"
  elif [[ "$kind" == agent ]] && grep -q 'HPROF ERROR' "$dir/log"; then
    why="the agent reported an error"
  fi
  if [[ -n "$why" ]]; then
    local slug; slug=$(printf '%s' "$JDK_NAME-$w-$name" | tr -c 'A-Za-z0-9.=_-' '_')
    local keep="build/bench/logs/$slug-$label.log"
    { echo "# ${cmd[*]}"; cat "$dir/log"; } >"$keep"
    FAILED["$w|$ci"]="$why (run $label; log: $keep)"
    printf '  %-8s %-28s %-7s FAILED: %s\n' "$w" "$name" "$label" "$why" >&2
    tail -n 5 "$dir/log" | sed 's/^/      | /' >&2
  else
    printf '  %-8s %-28s %-7s %7.2f s %6d MiB  cpu %6.2f s  others %4.2f CPUs\n' "$w" "$name" "$label" "$wall" \
      $((rss / 1024)) "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$others" >&2
    [[ "$label" == warmup* ]] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
      "$JDK_NAME" "$w" "$name" "$label" "$wall" "$rss" "$user" "$sys" "$others" >>"$TSV"
  fi
  rm -rf "$dir"
}

# --- the runs -----------------------------------------------------------------------------
printf 'jdk\tworkload\tmode\trun\twall_s\tmaxrss_kb\tuser_s\tsys_s\tothers_cpus\n' >"$TSV"
if [[ ${#CFG_NAME[@]} -gt 1 && " ${CFG_KIND[*]} " == *" agent "* && ! -f "$AGENT" ]]; then
  for w in "${WL[@]}"; do
    for ci in "${!CFG_NAME[@]}"; do
      [[ "${CFG_KIND[$ci]}" == agent ]] && FAILED["$w|$ci"]="no agent at $AGENT (run make)"
    done
  done
  echo "run.sh: $AGENT is missing: agent modes are not run (run make)" >&2
fi
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date +%s)
echo "bench: $JDK_NAME ($JDK_VERSION), $RUNS rounds, corpus $CORPUS_FILES files / $CORPUS_LINES lines" >&2
for w in "${WL[@]}"; do
  for ((i = 1; i <= WARMUP; i++)); do run_one "$w" 0 "warmup$i"; done
  for ((r = 1; r <= RUNS; r++)); do
    for ci in "${!CFG_NAME[@]}"; do
      [[ -n "${FAILED[$w|$ci]:-}" ]] && continue
      run_one "$w" "$ci" "$r"
    done
  done
done
ELAPSED=$(( $(date +%s) - START ))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "### $JDK_NAME ($JDK_VERSION)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $RUNS alternating rounds after $WARMUP warm-up," \
       "load average ${LOAD_BEFORE// /\/} before, ${LOAD_AFTER// /\/} after, ${ELAPSED}s in all." \
       "javac corpus: $CORPUS_FILES files, $CORPUS_LINES lines."
  echo
  table
} >"$OUT"
echo >&2
cat "$OUT"
echo >&2
echo "bench: table in $OUT, every run in $TSV" >&2
[[ ${#FAILED[@]} -eq 0 ]]
