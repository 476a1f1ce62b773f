#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/server.sh: what the agent costs a server in its steady state: requests a second
# against the same server without it (issue 50).
#
#   bench/server.sh [--jdk DIR]... [--workloads tomcat,loop] [--runs N] [--warmup S]
#                   [--measure S] [--modes "heap=sites;cpu=samples;jvm:-Xint"] [--asprof LIB]
#                   [--agent PATH] [--threads N] [--connections N] [--java-opts "OPTS"]
#                   [--start-timeout S] [--stop-timeout S] [--out FILE]
#   bench/server.sh --report FILE.tsv     (the table again, from earlier runs)
#
# Workloads:
#   tomcat  Debian's Tomcat 10 serving bench/tomcat/index.jsp (200 short strings built,
#           sorted, counted into a TreeMap, a small page rendered: bench/java/RequestWork),
#           loaded by `wrk -t2 -cN` (N = --connections, default 16) on loopback. Every run is
#           a fresh Tomcat: its CATALINA_BASE a private temporary directory (removed after the
#           run), started with the JDK under test (JAVA_HOME) and the mode in CATALINA_OPTS;
#           wrk warms it up for --warmup seconds (default 20), then measures --measure seconds
#           (default 30); the table gives requests/s and wrk's p99 latency.
#   loop    the same requests without the network (bench/java/RequestLoop): --threads
#           threads (default 2) serving them back to back, --warmup then --measure seconds.
#
# Modes (--modes, separated by ';'; default: the modes of issue 50): any agent option string
# (file= is left out: the script puts the output in the run's directory), `jvm:FLAGS` (JVM
# flags joined by commas, no agent); `none` (the baseline) always runs first; --asprof LIB
# adds async-profiler's event=alloc. Every JDK of tests/lib/jdks.sh (or each --jdk), every
# workload, then --runs N rounds (default 3) of every mode in turn, so that every mode sees
# the same drift in the machine's load; medians of the runs.
#
# A run fails (a FAILED row that says why, its log kept in build/bench/logs/) when Tomcat
# does not answer within --start-timeout seconds (default 90) or exits, when a request fails,
# when the agent reports an error or writes no output. Every wait is bounded: Tomcat gets
# --stop-timeout seconds (default 120: the agent writes its profile at exit) after SIGTERM,
# then SIGKILL. "others' CPUs" is what the rest of the machine kept busy during the measured
# seconds (Tomcat and wrk, or RequestLoop, excluded): the machine is shared.
#
# Needs: apt-get install -y tomcat10 wrk (tomcat only; the script installs nothing).
# Output: the Markdown table on stdout and in FILE (default build/bench/server.md), every run
# in FILE.tsv.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2

usage() {
  sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-0}"
}

JDKS=()
WORKLOADS="tomcat,loop"
RUNS=3
WARMUP=20
MEASURE=30
MODES="heap=sites;heap=sites,alloc_sample=524288;heap=sites,live=sampled;cpu=samples"
ASPROF=""
AGENT="$ROOT/build/libhprof.so"
THREADS=2
CONNECTIONS=16
JAVA_OPTS=""
START_TIMEOUT=90
STOP_TIMEOUT=120
OUT=build/bench/server.md
REPORT=""
export CATALINA_HOME=${CATALINA_HOME:-/usr/share/tomcat10}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDKS+=("${2:?}"); shift ;;
    --workloads) WORKLOADS=${2:?}; shift ;;
    --runs) RUNS=${2:?}; shift ;;
    --warmup) WARMUP=${2:?}; shift ;;
    --measure) MEASURE=${2:?}; shift ;;
    --modes) MODES=${2-}; shift ;;
    --asprof) ASPROF=${2:?}; shift ;;
    --agent) AGENT=${2:?}; shift ;;
    --threads) THREADS=${2:?}; shift ;;
    --connections) CONNECTIONS=${2:?}; shift ;;
    --java-opts) JAVA_OPTS=${2-}; shift ;;
    --start-timeout) START_TIMEOUT=${2:?}; shift ;;
    --stop-timeout) STOP_TIMEOUT=${2:?}; shift ;;
    --out) OUT=${2:?}; shift ;;
    --report) REPORT=${2:?}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "server.sh: unknown argument: $1" >&2; usage 2 >&2 ;;
  esac
  shift
done

die() { echo "server.sh: $*" >&2; exit 2; }
for v in RUNS WARMUP MEASURE THREADS CONNECTIONS START_TIMEOUT STOP_TIMEOUT; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$(echo "$v" | tr 'A-Z_' 'a-z-') wants a positive number"
done

# --- the table ----------------------------------------------------------------------------
# TSV columns: 1 jdk, 2 workload, 3 mode, 4 run, 5 requests_s, 6 p99_ms, 7 others_cpus,
# 8 error (empty for a run that counts).
TSV_HEADER=$'jdk\tworkload\tmode\trun\trequests_s\tp99_ms\tothers_cpus\terror'

# table TSV: one row per JDK, workload and mode: medians of the runs, share of none's median.
table() {
  echo "| JDK | workload | mode | requests/s | share of none | min–max requests/s | p99 ms | runs | others' CPUs |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '
    function median(list,   a, n, i, j, t) {
      n = split(list, a, " ")
      if (n == 0) return "-"
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function range(list,   a, n, i, lo, hi) {
      n = split(list, a, " "); lo = hi = a[1]
      for (i = 2; i <= n; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
      return sprintf("%.0f–%.0f", lo, hi)
    }
    NR == 1 { next }
    {
      k = $1 SUBSEP $2 SUBSEP $3
      if (!(k in seen)) { seen[k] = 1; order[++n] = k }
      if ($8 != "") { err[k] = "run " $4 ": " $8; next }
      rs[k] = rs[k] " " $5; oth[k] = oth[k] " " $7; runs[k]++
      if ($6 != "-") p99[k] = p99[k] " " $6
    }
    END {
      for (i = 1; i <= n; i++) {
        split(order[i], f, SUBSEP)
        if (f[1] != jdk || f[2] != wl) { jdk = f[1]; wl = f[2]; base = median(rs[f[1] SUBSEP f[2] SUBSEP "none"]) }
        k = order[i]
        if (k in err) { printf "| %s | %s | %s | FAILED: %s | | | | | |\n", f[1], f[2], f[3], err[k]; continue }
        m = median(rs[k]); p = median(p99[k])
        printf "| %s | %s | %s | %.0f | %s | %s | %s | %d | %.2f |\n", f[1], f[2], f[3], m,
          (base == "-" || base == 0) ? "–" : sprintf("%.2f", m / base), range(rs[k]),
          p == "-" ? "–" : sprintf("%.1f", p), runs[k], median(oth[k])
      }
    }' "$1"
}

if [[ -n "$REPORT" ]]; then
  [[ -f "$REPORT" ]] || die "no such file: $REPORT"
  table "$REPORT"
  exit 0
fi

# --- what is needed -----------------------------------------------------------------------
IFS=',' read -r -a WL <<<"$WORKLOADS"
for w in "${WL[@]}"; do
  case "$w" in
    tomcat|loop) ;;
    *) die "unknown workload '$w' (tomcat, loop)" ;;
  esac
done
if [[ ",$WORKLOADS," == *,tomcat,* ]]; then
  missing=""
  [[ -x "$CATALINA_HOME/bin/catalina.sh" ]] || missing+=" tomcat10"
  command -v wrk >/dev/null || missing+=" wrk"
  command -v curl >/dev/null || missing+=" curl"
  [[ -z "$missing" ]] || die "the tomcat workload needs Debian packages: apt-get install -y$missing"
fi
if [[ ${#JDKS[@]} -eq 0 ]]; then mapfile -t JDKS < <(tests/lib/jdks.sh); fi
[[ ${#JDKS[@]} -gt 0 ]] || die "no JDK (give --jdk DIR or set JAVA_HOME)"
for j in "${JDKS[@]}"; do [[ -x "$j/bin/java" && -x "$j/bin/javac" ]] || die "not a JDK: $j"; done
[[ "$AGENT" == /* ]] || AGENT="$ROOT/$AGENT"
if [[ -n "$ASPROF" ]]; then
  [[ -f "$ASPROF" ]] || die "--asprof: no such library: $ASPROF"
  [[ "$ASPROF" == /* ]] || ASPROF="$ROOT/$ASPROF"
fi

# Modes: index 0 is the baseline; KIND is none, agent, jvm or asprof.
MODE_NAME=("none"); MODE_KIND=("none"); MODE_ARG=("")
IFS=';' read -r -a ML <<<"$MODES"
for m in "${ML[@]}"; do
  m=$(echo "$m" | tr -d '[:space:]')
  [[ -n "$m" && "$m" != none ]] || continue
  [[ ",$m," == *",file="* ]] && die "mode '$m': leave file= out, server.sh picks the output file"
  if [[ "$m" == jvm:* ]]; then
    MODE_NAME+=("$m"); MODE_KIND+=("jvm"); MODE_ARG+=("${m#jvm:}")
  else
    [[ -f "$AGENT" ]] || die "no agent at $AGENT (run make, or give --agent)"
    MODE_NAME+=("$m"); MODE_KIND+=("agent"); MODE_ARG+=("$m")
  fi
done
if [[ -n "$ASPROF" ]]; then
  MODE_NAME+=("async-profiler event=alloc"); MODE_KIND+=("asprof"); MODE_ARG+=("$ASPROF")
fi

mkdir -p build/bench/logs "$(dirname "$OUT")"
TSV="$OUT.tsv"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-server-XXXXXX")
SERVER_PID=""
CLIENT_PID=""
# stop_all: ends what this script started (by pid) and removes its files.
stop_all() {
  [[ -n "$CLIENT_PID" ]] && kill -TERM "$CLIENT_PID" 2>/dev/null  # runstat passes it on
  [[ -n "$SERVER_PID" ]] && kill -KILL "$SERVER_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# --- one run ------------------------------------------------------------------------------
# mode_flags INDEX DIR: the JVM flags of that mode, one a line, outputs in DIR.
mode_flags() {
  local i=$1 dir=$2
  case "${MODE_KIND[$i]}" in
    agent) echo "-agentpath:$AGENT=${MODE_ARG[$i]},file=$dir/hprof.out" ;;
    jvm) tr ',' '\n' <<<"${MODE_ARG[$i]}" ;;
    asprof) echo "-agentpath:${MODE_ARG[$i]}=start,event=alloc,collapsed,file=$dir/ap.txt" ;;
  esac
}

# busy_ticks: the machine's busy CPU time so far, in clock ticks (as runstat counts it).
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# others TICKS0 TICKS1 OWN_TICKS SECONDS: the CPUs everything else kept busy meanwhile.
others() {
  awk -v a="$1" -v b="$2" -v own="$3" -v s="$4" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { o = (b - a - own) / hz / s; printf "%.2f", o < 0 ? 0 : o }'
}

# stop_pid PID: SIGTERM, up to STOP_TIMEOUT seconds for it to exit, then SIGKILL; returns
# its exit status (or 137 when it had to be killed).
stop_pid() {
  local pid=$1 deadline=$((SECONDS + STOP_TIMEOUT)) status
  kill -TERM "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 137
  fi
  wait "$pid" 2>/dev/null; status=$?
  return "$status"
}

# make_base DIR PORT CLASSES: a CATALINA_BASE in DIR serving bench/tomcat/index.jsp on PORT.
make_base() {
  local base=$1 port=$2 classes=$3
  mkdir -p "$base"/{conf,logs,temp,work,webapps/ROOT/WEB-INF/classes/hprofbench} || return 1
  cp "$CATALINA_HOME"/etc/{web.xml,context.xml,catalina.properties} "$base/conf/" || return 1
  sed "s/\"PORT\"/\"$port\"/" bench/tomcat/server.xml >"$base/conf/server.xml"
  printf '%s\n' 'handlers = java.util.logging.ConsoleHandler' '.level = INFO' >"$base/conf/logging.properties"
  cp bench/tomcat/index.jsp "$base/webapps/ROOT/"
  cp "$classes"/hprofbench/*.class "$base/webapps/ROOT/WEB-INF/classes/hprofbench/"
}

# free_port: a loopback port below the kernel's range for outgoing connections (wrk's, and
# other programs', which could hold one when Tomcat binds it) that no socket uses.
free_port() {
  local low p i
  low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
  [[ "$low" =~ ^[0-9]+$ && "$low" -gt 12000 ]] || low=32768
  for ((i = 0; i < 50; i++)); do
    p=$((10000 + RANDOM % (low - 10000)))
    ss -Htan "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

# p99_ms <WRK_OUTPUT: wrk's 99th percentile latency in ms.
p99_ms() {
  awk '$1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
         f = u == "us" ? 0.001 : u == "s" ? 1000 : u == "m" ? 60000 : 1; printf "%.2f", v * f; found = 1 }
       END { if (!found) print "-" }'
}

# start_tomcat JDK CLASSES MODE DIR: a fresh Tomcat in DIR/base under that mode, answering
# at URL; its pid in SERVER_PID. Another port is tried when the one chosen was taken
# meanwhile (Tomcat then runs without its connector); fails with the reason in WHY.
start_tomcat() {
  local jdk=$1 classes=$2 mi=$3 dir=$4 port base opts status attempt
  for attempt in 1 2 3; do
    port=$(free_port) || { WHY="no free port"; return 1; }
    base=$dir/base; URL="http://127.0.0.1:$port/"
    rm -rf "$base"
    make_base "$base" "$port" "$classes" || { WHY="cannot make CATALINA_BASE"; return 1; }
    opts="$JAVA_OPTS $(mode_flags "$mi" "$dir" | paste -sd' ')"
    JAVA_HOME=$jdk CATALINA_BASE=$base CATALINA_TMPDIR=$base/temp \
      CATALINA_OPTS="$opts" JAVA_OPTS="" CATALINA_PID="" \
      "$CATALINA_HOME/bin/catalina.sh" run >>"$dir/log" 2>&1 </dev/null &
    SERVER_PID=$!
    local deadline=$((SECONDS + START_TIMEOUT))
    while ((SECONDS < deadline)) && kill -0 "$SERVER_PID" 2>/dev/null; do
      curl -sf --max-time 10 -o "$dir/page" "$URL" 2>/dev/null && grep -q 'words, first' "$dir/page" && return 0
      grep -q 'java.net.BindException' "$dir/log" && break
      sleep 1
    done
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      wait "$SERVER_PID"; status=$?; SERVER_PID=""; WHY="Tomcat exited during start-up (status $status)"
      return 1
    fi
    stop_pid "$SERVER_PID"; SERVER_PID=""
    grep -q 'java.net.BindException' "$dir/log" || { WHY="no page within ${START_TIMEOUT}s"; return 1; }
    echo "  (port $port taken meanwhile: attempt $attempt, another port)" >&2
    mv "$dir/log" "$dir/log.$attempt"
  done
  WHY="no port could be bound in 3 attempts"; return 1
}

# run_tomcat JDK CLASSES MODE DIR: one fresh Tomcat under that mode; sets
# RESULT to "requests_s p99_ms others", or fails with the reason in WHY.
run_tomcat() {
  local dir=$4 url t0 t1 own0 own1 status
  start_tomcat "$@" || return 1
  url=$URL
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 10s "$url" >"$dir/warmup.txt" 2>&1 &
  CLIENT_PID=$!; wait "$CLIENT_PID"; CLIENT_PID=""
  t0=$(busy_ticks); own0=$(cpu_ticks "$SERVER_PID")
  "$RUNSTAT" -t $((MEASURE + 60)) -o "$dir/wrk.stat" -- \
    wrk -t2 -c"$CONNECTIONS" -d"${MEASURE}s" --timeout 10s --latency "$url" >"$dir/wrk.txt" 2>&1 &
  CLIENT_PID=$!; wait "$CLIENT_PID"; CLIENT_PID=""
  t1=$(busy_ticks); own1=$(cpu_ticks "$SERVER_PID")
  local wall wuser wsys wstatus
  read -r wall _ wuser wsys wstatus _ <"$dir/wrk.stat" || wstatus=127
  local alive=1
  kill -0 "$SERVER_PID" 2>/dev/null || alive=0
  stop_pid "$SERVER_PID"; status=$?; SERVER_PID=""
  cat "$dir/warmup.txt" "$dir/wrk.txt" >>"$dir/log"
  local rps non2xx
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$dir/wrk.txt")
  non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$dir/wrk.txt")
  if ((alive == 0)); then WHY="Tomcat exited under load"; return 1; fi
  if [[ "$wstatus" != 0 || -z "$rps" ]]; then WHY="wrk failed (status $wstatus)"; return 1; fi
  if [[ -n "$non2xx" ]]; then WHY="$non2xx requests failed (non-2xx)"; return 1; fi
  if [[ "$status" == 137 ]]; then WHY="Tomcat did not stop within ${STOP_TIMEOUT}s of SIGTERM"; return 1; fi
  local own=$((own1 - own0)) hz; hz=$(getconf CLK_TCK)
  own=$(awk -v o="$own" -v u="$wuser" -v s="$wsys" -v hz="$hz" 'BEGIN { printf "%d", o + (u + s) * hz }')
  RESULT="$rps $(p99_ms <"$dir/wrk.txt") $(others "$t0" "$t1" "$own" "$wall")"
}

# run_loop JDK CLASSES MODE DIR: one RequestLoop under that mode; sets
# RESULT to "requests_s - others", or fails with the reason in WHY.
run_loop() {
  local jdk=$1 classes=$2 mi=$3 dir=$4 status
  local -a flags extra
  mapfile -t flags < <(mode_flags "$mi" "$dir")
  read -r -a extra <<<"$JAVA_OPTS"
  "$RUNSTAT" -t $((WARMUP + MEASURE + STOP_TIMEOUT)) -o "$dir/stat" -- \
    "$jdk/bin/java" "${extra[@]}" "${flags[@]}" -cp "$classes" RequestLoop "$THREADS" "$WARMUP" "$MEASURE" \
    >"$dir/log" 2>&1 </dev/null &
  CLIENT_PID=$!; wait "$CLIENT_PID"; CLIENT_PID=""
  local others
  read -r _ _ _ _ status others <"$dir/stat" || status=127
  if [[ "$status" != 0 ]]; then
    [[ "$status" == 124 ]] && { WHY="timed out"; return 1; }
    WHY="exit status $status"; return 1
  fi
  grep -q '^RequestLoop done:' "$dir/log" || { WHY="the loop did not finish"; return 1; }
  RESULT="$(sed -n 's/^requests\/s: //p' "$dir/log") - $others"
}

# run_one JDK_NAME JDK CLASSES WORKLOAD MODE RUN: one run, a row in the TSV.
run_one() {
  local jdk_name=$1 jdk=$2 classes=$3 w=$4 mi=$5 r=$6 dir="$WORK/run" why="" rps p99 oth
  rm -rf "$dir"; mkdir -p "$dir"
  RESULT="" WHY=""
  "run_$w" "$jdk" "$classes" "$mi" "$dir" || why=${WHY:-failed}
  if [[ -z "$why" ]]; then
    case "${MODE_KIND[$mi]}" in
      agent) grep -q 'HPROF ERROR' "$dir/log" && why="the agent reported an error"
        [[ -z "$why" && ! -s "$dir/hprof.out" ]] && why="no output file written" ;;
      asprof) [[ -s "$dir/ap.txt" ]] || why="no output file written" ;;
    esac
  fi
  if [[ -n "$why" ]]; then
    local keep; keep="build/bench/logs/server-$(printf '%s' "$jdk_name-$w-${MODE_NAME[$mi]}-$r" | tr -c 'A-Za-z0-9.=_-' '_').log"
    cp "$dir/log" "$keep" 2>/dev/null || : >"$keep"
    FAILED["$jdk_name|$w|$mi"]=1
    printf '%s\t%s\t%s\t%s\t-\t-\t-\t%s\n' "$jdk_name" "$w" "${MODE_NAME[$mi]}" "$r" "$why; log: $keep" >>"$TSV"
    printf '  %-7s %-36s run %s  FAILED: %s\n' "$w" "${MODE_NAME[$mi]}" "$r" "$why" >&2
  else
    read -r rps p99 oth <<<"$RESULT"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n' "$jdk_name" "$w" "${MODE_NAME[$mi]}" "$r" "$rps" "$p99" "$oth" >>"$TSV"
    printf '  %-7s %-36s run %s  %9.0f requests/s  %s  others %s CPUs\n' "$w" "${MODE_NAME[$mi]}" "$r" "$rps" \
      "$([[ "$p99" == - ]] || echo "p99 $p99 ms")" "$oth" >&2
  fi
  rm -rf "$dir"
}

# --- the runs -----------------------------------------------------------------------------
# shellcheck source=bench/inputs.sh
. "$ROOT/bench/inputs.sh"
CC=${CC:-gcc}
RUNSTAT=$ROOT/build/bench/runstat
if [[ ! -x "$RUNSTAT" || bench/runstat.c -nt "$RUNSTAT" ]]; then
  "$CC" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$RUNSTAT" bench/runstat.c || die "cannot build $RUNSTAT"
fi
echo "$TSV_HEADER" >"$TSV"
declare -A FAILED=()
HEAD=""
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date +%s)
for jdk in "${JDKS[@]}"; do
  jdk=$(cd "$jdk" && pwd -P)
  jdk_name=$(basename "$jdk")
  version=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')
  HEAD+=" $jdk_name = $version;"
  classes=$ROOT/build/bench/classes-server-$jdk_name
  if [[ ! -f "$classes/.stamp" || -n "$(find bench/java/RequestWork.java bench/java/RequestLoop.java -newer "$classes/.stamp")" ]]; then
    rm -rf "$classes"; mkdir -p "$classes"
    "$jdk/bin/javac" -nowarn -d "$classes" bench/java/RequestWork.java bench/java/RequestLoop.java || die "javac failed"
    touch "$classes/.stamp"
  fi
  echo "server: $jdk_name ($version), $RUNS runs, ${WARMUP}s warm-up, ${MEASURE}s measured" >&2
  for w in "${WL[@]}"; do
    for ((r = 1; r <= RUNS; r++)); do
      for mi in "${!MODE_NAME[@]}"; do
        [[ -n "${FAILED[$jdk_name|$w|$mi]:-}" ]] && continue
        run_one "$jdk_name" "$jdk" "$classes" "$w" "$mi" "$r"
      done
    done
  done
done
ELAPSED=$(($(date +%s) - START))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

commit=$(git rev-parse --short HEAD 2>/dev/null)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l)
{
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$( ((dirty)) && echo " (DIRTY tree)"), $(nproc) cores," \
    "$RUNS alternating runs, ${WARMUP}s warm-up, ${MEASURE}s measured; wrk -t2 -c$CONNECTIONS, loop $THREADS threads;" \
    "load average ${LOAD_BEFORE// /\/} before, ${LOAD_AFTER// /\/} after, ${ELAPSED}s in all.${HEAD%;}."
  echo
  table "$TSV"
} >"$OUT"
echo >&2
cat "$OUT"
echo "server: table in $OUT, every run in $TSV" >&2
[[ ${#FAILED[@]} -eq 0 ]]
