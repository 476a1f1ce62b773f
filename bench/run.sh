#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/run.sh: measures what the agent costs, against the same run without it.
#
#   bench/run.sh [--jdk DIR] [--runs N] [--rounds N] [--workloads javac,cpu,alloc,threads]
#                [--modes "cpu=samples,interval=10;heap=sites;jvm:-Xint"] [--jfr] [--asprof LIB]
#                [--asprof-event itimer|alloc|lock]
#                [--out FILE] [--warmup N] [--timeout S] [--agent PATH] [--java-opts "OPTS"]
#                [--quiet-wait S] [--busy CPUS] [--alloc-args "THREADS ROUNDS"]
#   bench/run.sh --report FILE.tsv [--busy CPUS]     (the table again, from earlier runs)
#
# Workloads: javac (javac compiling the generated corpus, build/bench/corpus), commons-lang
# (javac compiling Apache Commons Lang 3, from Debian's source package), java.time (javac
# compiling the JDK's own java.time sources), rhino (Debian's Rhino running
# bench/js/RhinoWork.js), ant (Debian's Ant building ~100 files, bench/ant/build.xml), cpu,
# alloc, threads (bench/java/*Work.java); bench/inputs.sh says what each needs from Debian.
# For each workload it runs one discarded warm-up without
# the agent, then N rounds of: baseline (no agent), each mode, JFR when --jfr is given and
# async-profiler when --asprof names its library (its event by --asprof-event: itimer at
# 10 ms, the default, or alloc or lock at its default interval), in that order, so that every configuration sees the same drift in machine load.
# Every run is checked: exit status 0, the workload's own "done" line, and for agent and
# JFR runs a non-empty output file in a per-run temporary directory (removed afterwards).
# A configuration with one failed run is reported as FAILED, never as a number.
#
# Start-up and steady state: with --rounds N (default 1), each run does the workload's work
# N times in one JVM (javac and ant through bench/java/JavacRounds and AntRounds), as a
# server would, and the workload prints each round's time. "start-up" is then the run's wall
# time less rounds 2..N (JVM start, round 1, and the agent's work at exit), and "steady" the
# median of the last half of the rounds (rounds 3-5 of 5): the cost once the JIT is done.
# threads does one round whatever N is.
#
# The machine is shared, so before each run it waits up to --quiet-wait seconds (default 10,
# and 120 in all) for the other processes to use less than --busy CPUs (default 0.5). The
# table shows how many CPUs other work took during the runs (median), the ratio of the
# fastest runs, and the ratio of the medians of the quiet runs (those during which other
# work used less than --busy CPUs), with how many runs of the mode were quiet: the two
# suffer least from such work.
#
# A mode with rotate= is a rolling profile: a pprof file a window (w-%t.pb.gz), as
# bench/rolling.sh writes them (a run must end one window at least).
#
# Runs of cpu=samples modes also count the samples of the text profile and those whose
# stack walk failed ([walk_failed].*), for a second table: the failure share, and the
# samples times the interval against the process's CPU time.
#
# Output: a Markdown table on stdout and in FILE (default build/bench/results-<jdk>.md),
# headed by the commit and whether the tree was clean, every run in FILE.tsv, and the logs
# of failed runs in build/bench/logs/.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

usage() {
  sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-0}"
}

JDK=""
RUNS=5
ROUNDS=1
ASPROF=""
ASPROF_EVENT=itimer
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
    --rounds) ROUNDS=${2:?}; shift ;;
    --asprof) ASPROF=${2:?}; shift ;;
    --asprof-event) ASPROF_EVENT=${2:?}; shift ;;
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
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive number"
[[ "$WARMUP" =~ ^[0-9]+$ ]] || die "--warmup wants a number"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a positive number of seconds"
[[ "$QUIET_WAIT" =~ ^[0-9]+$ ]] || die "--quiet-wait wants a number of seconds"
[[ "$BUSY" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--busy wants a number of CPUs"

# --- the table ----------------------------------------------------------------------------
# TSV columns: 1 jdk, 2 workload, 3 mode, 4 run, 5 wall_s, 6 maxrss_kb, 7 user_s, 8 sys_s,
# 9 others_cpus, 10 startup_s, 11 steady_ms, 12 samples, 13 walk_failed, 14 rounds_ms
# (a TSV of an earlier version has 9: its start-up is the wall time, it has no steady state).
TSV_HEADER=$'jdk\tworkload\tmode\trun\twall_s\tmaxrss_kb\tuser_s\tsys_s\tothers_cpus\tstartup_s\tsteady_ms\tsamples\twalk_failed\trounds_ms'

# stats WORKLOAD MODE: "median_startup min max median_rss_kb median_cpu n median_others
# quiet_median_startup quiet_n median_steady_ms samples walk_failed median_sampled_cpu_share"
# from the TSV; the quiet runs are those during which other work used less than BUSY CPUs;
# samples and walk_failed are sums over the runs, the sampled share is samples x interval
# over the process's CPU time, a median of the runs ("-" where a number is missing).
stats() {
  awk -F'\t' -v w="$1" -v m="$2" -v busy="$BUSY" '
    function median(a, n,   i, j, t) {
      if (n == 0) return "-"
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    BEGIN { iv = 10; if (match(m, /interval=[0-9]+/)) iv = substr(m, RSTART + 9, RLENGTH - 9) }
    NR > 1 && $2 == w && $3 == m {
      n++; start[n] = (NF >= 10 && $10 != "-") ? $10 : $5; rss[n] = $6; cpu[n] = $7 + $8; oth[n] = $9
      if ($9 < busy) { q++; quiet[q] = start[n] }
      if (NF >= 11 && $11 != "-") { s++; steady[s] = $11 }
      if (NF >= 13 && $12 != "-") { samples += $12; failed += $13; k++; share[k] = cpu[n] > 0 ? $12 * iv / 1000 / cpu[n] : 0 }
    }
    END {
      if (n == 0) { print "-"; exit }
      min = start[1]; max = start[1]
      for (i = 2; i <= n; i++) { if (start[i] < min) min = start[i]; if (start[i] > max) max = start[i] }
      printf "%.3f %.3f %.3f %d %.2f %d %.2f %s %d %s %s %s %s\n", median(start, n), min, max, median(rss, n),
        median(cpu, n), n, median(oth, n), median(quiet, q + 0), q + 0, median(steady, s + 0),
        k ? samples : "-", k ? failed : "-", median(share, k + 0)
    }' "$TSV"
}

# ratio A B: A/B as "1.23x", or "–" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "–"; else printf "%.2fx", a / b }'; }

# num X FORMAT: X in FORMAT, or "–" when missing.
num() { awk -v x="$1" -v f="$2" 'BEGIN { if (x == "-" || x == "") print "–"; else printf f, x }'; }

# table: the Markdown table of WL x CFG_NAME from the TSV (FAILED rows say why), and the
# table of the cpu=samples runs' samples when there are any.
table() {
  echo "| workload | mode | start-up s | ratio | min–max s | min ratio | quiet runs: ratio | steady ms/round | steady ratio | median peak RSS MiB | RSS ratio | median CPU s | CPU ratio | others' CPUs |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  local w ci name st min max rss cpu n others qst qn steady samples failed share
  local bst bmin brss bcpu bq bsteady sampled=""
  for w in "${WL[@]}"; do
    read -r bst bmin _ brss bcpu _ _ bq _ bsteady _ <<<"$(stats "$w" baseline)"
    for ci in "${!CFG_NAME[@]}"; do
      name=${CFG_NAME[$ci]}
      if [[ -n "${FAILED[$w|$ci]:-}" ]]; then
        echo "| $w | $name | FAILED: ${FAILED[$w|$ci]} | | | | | | | | | | | |"
        continue
      fi
      read -r st min max rss cpu n others qst qn steady samples failed share <<<"$(stats "$w" "$name")"
      [[ "$st" == "-" ]] && { echo "| $w | $name | no runs | | | | | | | | | | | |"; continue; }
      printf '| %s | %s | %.2f | %s | %.2f–%.2f | %s | %s: %s | %s | %s | %d | %s | %.1f | %s | %s |\n' "$w" "$name" "$st" \
        "$(ratio "$st" "$bst")" "$min" "$max" "$(ratio "$min" "$bmin")" "$qn" "$(ratio "$qst" "$bq")" \
        "$(num "$steady" %.0f)" "$(ratio "$steady" "$bsteady")" \
        $((rss / 1024)) "$(ratio "$rss" "$brss")" "$cpu" "$(ratio "$cpu" "$bcpu")" "$others"
      [[ "$samples" != "-" && -n "$samples" ]] &&
        sampled+="| $w | $name | $samples | $(awk -v f="$failed" -v s="$samples" 'BEGIN { printf "%.1f%%", s ? 100 * f / s : 0 }') | $(num "$share" %.2f) |"$'\n'
    done
  done
  if [[ -n "$sampled" ]]; then
    echo
    echo "cpu=samples: samples of all runs, the share whose stack walk failed, and samples x interval / process CPU time (median of the runs):"
    echo
    echo "| workload | mode | samples | walk failed | sampled / CPU time |"
    echo "|---|---|---:|---:|---:|"
    printf '%s' "$sampled"
  fi
}

declare -A FAILED=()
if [[ -n "$REPORT" ]]; then
  # Only the table again, from the runs an earlier invocation wrote.
  [[ -f "$REPORT" ]] || die "no such file: $REPORT"
  TSV=$REPORT
  mapfile -t WL < <(awk -F'\t' 'NR > 1 && !seen[$2]++ { print $2 }' "$TSV")
  mapfile -t CFG_NAME < <(awk -F'\t' 'NR > 1 && !seen[$3]++ { print $3 }' "$TSV")
  if [[ -f "${TSV%.tsv}" ]]; then
    sed '/^| workload/,$d' "${TSV%.tsv}"
  else
    echo "### $(awk -F'\t' 'NR == 2 { print $1 }' "$TSV") (from $TSV)"
    echo
  fi
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
  case "$w" in
    javac|commons-lang|java.time|rhino|ant|cpu|alloc|threads) ;;
    *) die "unknown workload '$w' (javac, commons-lang, java.time, rhino, ant, cpu, alloc, threads)" ;;
  esac
done
. "$ROOT/bench/inputs.sh"
MISSING=$(missing_packages "${WL[@]}")
[[ -z "$MISSING" ]] || die "these workloads need Debian packages: apt-get install -y $MISSING (or bench/table.sh --install as root)"

# Configurations: index 0 is the baseline; KIND is base, agent or jfr.
CFG_NAME=("baseline"); CFG_KIND=("base"); CFG_ARG=("")
if [[ -n "$MODES" ]]; then
  IFS=';' read -r -a ML <<<"$MODES"
  for m in "${ML[@]}"; do
    m=$(echo "$m" | tr -d '[:space:]')
    [[ -n "$m" ]] || continue
    # jvm:FLAGS (flags joined by commas, "\," a comma inside one, e.g. another agent's
    # options: jvm:-agentpath:/tmp/old.so=heap=sites\,callers=sampled): those JVM flags, e.g. what the JVM's
    # own part of a mode costs (jvm:-XX:+UnlockDiagnosticVMOptions,-XX:+DebugNonSafepoints)
    if [[ "$m" == jvm:* ]]; then
      CFG_NAME+=("$m"); CFG_KIND+=("jvm"); CFG_ARG+=("${m#jvm:}")
      continue
    fi
    [[ ",$m," == *",file="* ]] && die "mode '$m': leave file= out, run.sh picks the output file"
    CFG_NAME+=("$m"); CFG_KIND+=("agent"); CFG_ARG+=("$m")
  done
fi
if [[ $JFR -eq 1 ]]; then
  CFG_NAME+=("JFR settings=profile"); CFG_KIND+=("jfr"); CFG_ARG+=("profile")
fi
if [[ -n "$ASPROF" ]]; then
  [[ -f "$ASPROF" ]] || die "--asprof: no such library: $ASPROF"
  [[ "$ASPROF" == /* ]] || ASPROF="$ROOT/$ASPROF"
  # the event beside the modes it compares with: itimer (10 ms) for CPU, alloc (its
  # default 512 KiB) for allocation sampling, lock for monitor=y
  case "$ASPROF_EVENT" in
    itimer) CFG_NAME+=("async-profiler itimer 10ms") ;;
    alloc|lock) CFG_NAME+=("async-profiler event=$ASPROF_EVENT") ;;
    *) die "--asprof-event: itimer, alloc or lock, not '$ASPROF_EVENT'" ;;
  esac
  CFG_KIND+=("asprof"); CFG_ARG+=("$ASPROF")
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

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench-XXXXXX")
RUNNING=""
trap 'rm -rf "$WORK"' EXIT

# The other inputs (bench/inputs.sh), and what each is, for the table's header.
# A workload whose input cannot be had is a FAILED row that says why.
declare -A INPUT=() UNAVAILABLE=()
INPUTS_NOTE=""
for w in "${WL[@]}"; do
  case "$w" in
    commons-lang) INPUT[$w]=$(prepare_commons_lang) || UNAVAILABLE[$w]="no commons-lang sources (apt-get source failed)" ;;
    java.time) INPUT[$w]=$(prepare_java_time "$JDK" 2>"$WORK/why") || UNAVAILABLE[$w]=$(tail -n 1 "$WORK/why") ;;
    ant) INPUT[$w]=$(prepare_ant "$ROOT/build/bench/gen-corpus") || UNAVAILABLE[$w]="cannot make the ant input" ;;
    rhino) INPUTS_NOTE+=" rhino: $(dpkg-query -W -f '${Package} ${Version}' rhino 2>/dev/null || echo "$RHINO_JAR"), bench/js/RhinoWork.js." ;;
  esac
  [[ -n "${UNAVAILABLE[$w]:-}" ]] && INPUT[$w]="" && echo "run.sh: $w: ${UNAVAILABLE[$w]}" >&2
  if [[ -n "${INPUT[$w]:-}" ]]; then
    INPUTS_NOTE+=" $w: $(cat "${INPUT[$w]}/origin"), $(wc -l <"${INPUT[$w]}/sources.txt") files, $(cd "${INPUT[$w]}" && xargs cat <sources.txt | wc -l) lines."
    [[ "$w" == ant ]] && INPUTS_NOTE="${INPUTS_NOTE%.}, $(dpkg-query -W -f '${Package} ${Version}' ant 2>/dev/null)."
  fi
done

# Only the classes of the workloads: others in bench/java belong to other scripts (Soak.java
# needs tests/java).
CLASSES=$ROOT/build/bench/classes-$JDK_NAME
BENCH_JAVA=(bench/java/{Rounds,CpuWork,AllocWork,ThreadsWork,JavacRounds,AntRounds}.java)
if [[ ! -f "$CLASSES/.stamp" || -n "$(find "${BENCH_JAVA[@]}" -newer "$CLASSES/.stamp")" ]]; then
  rm -rf "$CLASSES"; mkdir -p "$CLASSES"
  "$JDK/bin/javac" -nowarn -d "$CLASSES" "${BENCH_JAVA[@]}" || die "javac of bench/java failed"
  touch "$CLASSES/.stamp"
fi

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
    agent) expect="$dir/hprof.out"
      # a rolling profile (rotate=): a pprof file per window, as bench/rolling.sh writes them
      [[ ",${CFG_ARG[$ci]}," == *",rotate="* ]] && expect="$dir/w-%t.pb.gz"
      jvm+=("-agentpath:$AGENT=${CFG_ARG[$ci]},file=$expect") ;;
    jvm) local -a flags; local f arg=${CFG_ARG[$ci]//\\,/$'\x01'}  # "\," is a comma inside a flag
      IFS=, read -r -a flags <<<"$arg"
      for f in "${flags[@]}"; do jvm+=("${f//$'\x01'/,}"); done ;;
    jfr) jvm+=("-XX:StartFlightRecording=filename=$dir/rec.jfr,settings=${CFG_ARG[$ci]}"); expect="$dir/rec.jfr" ;;
    asprof) local ev="event=$ASPROF_EVENT"; [[ $ASPROF_EVENT == itimer ]] && ev+=",interval=10ms"
      jvm+=("-agentpath:${CFG_ARG[$ci]}=start,$ev,collapsed,file=$dir/prof.txt")
      expect="$dir/prof.txt" ;;
  esac
  local -a cmd=("$JDK/bin/java" "${jvm[@]}")
  local cwd="$dir" done_re="Work done:" in=${INPUT[$w]:-}
  local -a javac=("$JDK/bin/java" "${jvm[@]}" -cp "$CLASSES" JavacRounds "$ROUNDS" -nowarn -encoding UTF-8 -d "$dir/classes")
  case "$w" in
    javac) cmd=("${javac[@]}" "@$CORPUS/sources.txt"); cwd=$CORPUS; done_re="JavacRounds done:" ;;
    commons-lang) cmd=("${javac[@]}" "@$in/sources.txt"); cwd=$in; done_re="JavacRounds done:" ;;
    java.time) cmd=("${javac[@]}" --patch-module "java.base=$in/java.base" "@$in/sources.txt"); cwd=$in
      done_re="JavacRounds done:" ;;
    rhino) cmd+=(-cp "$RHINO_JAR" org.mozilla.javascript.tools.shell.Main "$ROOT/bench/js/RhinoWork.js" "$ROUNDS") ;;
    ant) cmd+=(-cp "$ANT_LIB/ant.jar:$ANT_LIB/ant-launcher.jar:$CLASSES" AntRounds "$ROUNDS" "$in/build.xml" all)
      done_re="AntRounds done:" ;;
    cpu) cmd+=(-cp "$CLASSES" CpuWork 4 8000 "$ROUNDS") ;;
    alloc) cmd+=(-cp "$CLASSES" AllocWork ${ALLOC_ARGS:-2 6000000} "$ROUNDS") ;;
    threads) cmd+=(-cp "$CLASSES" ThreadsWork) ;;
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
  elif ! grep -q "$done_re" "$dir/log"; then
    why="the workload did not finish"
  elif [[ -n "$expect" ]] && ! wrote "$expect"; then
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
    [[ "$label" == warmup* ]] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
      "$JDK_NAME" "$w" "$name" "$label" "$wall" "$rss" "$user" "$sys" "$others" \
      "$(round_times "$wall" <"$dir/log")" "$(sample_counts "$kind" "$expect")" \
      "$(sed -n 's/^round [0-9]*: \([0-9.]*\) ms$/\1/p' "$dir/log" | paste -sd, | grep . || echo -)" >>"$TSV"
  fi
  rm -rf "$dir"
}

# tree_note: the commit and whether the tree is clean, and the agent's build time: a table
# from a dirty tree, or from an agent built before the last commit that changed src/, says so.
tree_note() {
  local commit changed agent_time
  commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo "not a git tree"; return; }
  changed=$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
  agent_time=$(date -u -r "$AGENT" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || echo missing)
  if ((changed == 0)); then
    printf 'commit %s, clean tree' "$commit"
  else
    printf 'commit %s, DIRTY tree (%d uncommitted changes: not what the commit holds)' "$commit" "$changed"
  fi
  printf ', agent %s built %s' "${AGENT#"$ROOT"/}" "$agent_time"
  if [[ -f "$AGENT" ]] && (( $(stat -c %Y "$AGENT") < $(git -C "$ROOT" log -1 --format=%ct -- src) )); then
    printf ' (before the last commit to src/: rebuild)'
  fi
}

# round_times WALL <LOG: "startup_s<TAB>steady_ms" from the "round N: MS ms" lines of the
# log, ahead of the rounds' times joined by commas for the TSV's last column ("-" for none).
round_times() {
  awk -v wall="$1" '
    /^round [0-9]+: [0-9.]+ ms$/ { n++; t[n] = $3 }
    END {
      if (n < 2) { printf "%.3f\t-", wall; exit }
      later = 0; for (i = 2; i <= n; i++) later += t[i]
      k = int((n + 1) / 2); for (i = 1; i <= k; i++) s[i] = t[n - k + i]
      for (i = 2; i <= k; i++) { v = s[i]; for (j = i - 1; j >= 1 && s[j] > v; j--) s[j + 1] = s[j]; s[j + 1] = v }
      printf "%.3f\t%.1f", wall - later / 1000, k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2
    }'
}

# wrote FILE: the run wrote FILE, not empty (for a rolling profile's w-%t.pb.gz, one window).
wrote() {
  local f
  for f in ${1/\%t/*}; do [[ -s "$f" ]] && return 0; done
  return 1
}

# sample_counts KIND FILE: "samples<TAB>walk_failed" from a cpu=samples run's text profile,
# "-<TAB>-" for other runs.
sample_counts() {
  if [[ "$1" == agent && -f "$2" ]] && grep -q '^CPU SAMPLES BEGIN (total = ' "$2"; then
    awk '/^CPU SAMPLES BEGIN \(total = / { on = 1; total = $6 + 0; next }
         /^CPU SAMPLES END/ { on = 0 }
         on && $6 ~ /^\[walk_failed\]/ { failed += $4 }
         END { printf "%d\t%d", total, failed }' "$2"
  else
    printf -- '-\t-'
  fi
}

# --- the runs -----------------------------------------------------------------------------
echo "$TSV_HEADER" >"$TSV"
if [[ ${#CFG_NAME[@]} -gt 1 && " ${CFG_KIND[*]} " == *" agent "* && ! -f "$AGENT" ]]; then
  for w in "${WL[@]}"; do
    for ci in "${!CFG_NAME[@]}"; do
      [[ "${CFG_KIND[$ci]}" == agent ]] && FAILED["$w|$ci"]="no agent at $AGENT (run make)"
    done
  done
  echo "run.sh: $AGENT is missing: agent modes are not run (run make)" >&2
fi
for w in "${!UNAVAILABLE[@]}"; do
  for ci in "${!CFG_NAME[@]}"; do FAILED["$w|$ci"]=${UNAVAILABLE[$w]}; done
done
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
TREE_NOTE=$(tree_note)
START=$(date +%s)
echo "bench: $JDK_NAME ($JDK_VERSION), $RUNS runs of $ROUNDS round(s), corpus $CORPUS_FILES files / $CORPUS_LINES lines" >&2
for w in "${WL[@]}"; do
  [[ -n "${UNAVAILABLE[$w]:-}" ]] && continue
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
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $TREE_NOTE, $(nproc) cores, $RUNS alternating runs after $WARMUP warm-up," \
       "$ROUNDS round(s) of work in each run, load average ${LOAD_BEFORE// /\/} before," \
       "${LOAD_AFTER// /\/} after, ${ELAPSED}s in all. javac corpus: $CORPUS_FILES files, $CORPUS_LINES lines.$INPUTS_NOTE"
  echo
  table
} >"$OUT"
echo >&2
cat "$OUT"
echo >&2
echo "bench: table in $OUT, every run in $TSV" >&2
[[ ${#FAILED[@]} -eq 0 ]]
