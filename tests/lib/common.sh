# SPDX-License-Identifier: Apache-2.0
# Shared helpers for integration tests. Sourced by tests/integration/*.sh.
# The runner exports: JAVA_HOME (the JDK under test), HPROF_LIB (build/libhprof.so),
# HPROF_ROOT (the checkout), TEST_CLASSES (compiled tests/java), HPROF_DUMP (the reader).
set -u
JAVA="$JAVA_HOME/bin/java"
JDK_NAME=$(basename "$JAVA_HOME")
# (tests/run.sh gives it in HPROF_JDK_FEATURE: one JVM start less per script)
JDK_FEATURE=${HPROF_JDK_FEATURE:-$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')}
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-$TEST_NAME-XXXXXX")
trap '[[ -n ${HPROF_KEEP_WORK:-} ]] || rm -rf "$WORK"' EXIT   # HPROF_KEEP_WORK=1: left for a look
cd "$WORK"

ok()     { echo "ok - [$JDK_NAME] $TEST_NAME: $*"; }
not_ok() { echo "not ok - [$JDK_NAME] $TEST_NAME: $*"; }
# skip WHAT REASON: a check that could not run; counted as skipped, never as passed.
skip()   { echo "ok - [$JDK_NAME] $TEST_NAME: $1 # SKIP $2"; }

# have_collector NAME: whether the JVM under test runs with -XX:+UseNAME. When not, says
# why itself: a SKIP when the JVM does not know the option ("Unrecognized VM option"),
# a failure for anything else (a JVM that crashes must not read as a JDK without it).
# Tried twice, a second apart (sites_live.sh did): one start that fails under load is
# not the collector's absence.
have_collector() {
  local out rc try
  for try in 1 2; do
    rc=0; out=$("$JAVA" "-XX:+Use$1" -version 2>&1) || rc=$?
    [[ $rc -eq 0 ]] && return 0
    if grep -q "Unrecognized VM option 'Use$1'" <<<"$out"; then
      skip "-XX:+Use$1" "collector not in this JDK"; return 1
    fi
    [[ $try -eq 1 ]] && sleep 1
  done
  not_ok "-XX:+Use$1 -version failed (status $rc): $(head -c 300 <<<"$out")"
  return 1
}

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1; shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# run_java [java options...] MainClass [args]: runs the JVM under test with -Xcheck:jni,
# stdout+stderr captured in $WORK/out.txt and the exit code in $RC.
run_java() {
  start_java "$WORK/out.txt" "$@"
  wait_java $JPID "$WORK/out.txt"
}

# start_java OUT [java options...] MainClass [args]: runs the JVM under test as run_java
# does, in the background, its output in OUT; its pid in JPID. wait_java PID OUT: waits
# for it, its exit code in RC. For runs of one script that wait more than they work, side
# by side (what they check is counts, never time).
start_java() {
  local out=$1; shift
  timeout -k 10 "${RUN_TIMEOUT:-300}" "$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" "$@" >"$out" 2>&1 &
  JPID=$!
}
wait_java() {
  set +e
  wait "$1"
  RC=$?
  cat "$2" >>"$WORK/all-runs.txt"
  hs_err_shown
  set -e
}

# hs_err_shown: a JVM that crashed in $WORK left hs_err_pid*.log, which goes with the
# folder: its head goes to the test's output (as comments) first, once a file.
hs_err_shown() {
  local f
  for f in "$WORK"/hs_err_pid*.log; do
    [[ -f $f && ! -e $f.shown ]] || continue
    echo "# [$JDK_NAME] $TEST_NAME: a JVM crashed (status $RC); the head of $(basename "$f"):"
    sed -n '1,40p' "$f" | sed 's/^/#   /'
    : >"$f.shown"
  done
}

# sigquit_dumps N END OUT [java options...] MainClass [args]: runs a program that prints
# "ready", asks for N dumps by SIGQUIT, each after the one before says "Dumping Java heap
# ... done" in its output (OUT), then ends it: END "kill" sends SIGTERM (the dump at exit
# follows), "wait" lets it end by itself. Its exit status in RC. With -Xcheck:jni, as
# run_java.
sigquit_dumps() {
  local n=$1 end=$2 out=$3 pid k; shift 3
  set +e
  "$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" "$@" >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q ready "$out" 2>/dev/null && break; sleep 0.1; done
  for ((k = 1; k <= n; k++)); do
    kill -QUIT $pid 2>/dev/null
    for _ in $(seq 600); do (( $(grep -c 'Dumping Java heap .* done' "$out") >= k )) && break; sleep 0.1; done
  done
  [[ $end == kill ]] && kill $pid
  wait $pid; RC=$?
  cat "$out" >>"$WORK/all-runs.txt"
  set -e
}

# sigquit_dump OUT [java options...] MainClass [args]: one SIGQUIT dump, then SIGTERM.
sigquit_dump() { sigquit_dumps 1 kill "$@"; }

# jni_clean: no -Xcheck:jni complaint in any run_java of this script so far.
jni_clean() {
  if grep -Eq 'WARNING in native method|WARNING: JNI|FATAL ERROR in native method' "$WORK/all-runs.txt" 2>/dev/null; then
    not_ok "-Xcheck:jni reported: $(grep -Em1 'WARNING in native method|WARNING: JNI|FATAL ERROR' "$WORK/all-runs.txt")"
  else
    ok "no -Xcheck:jni warnings in any run"
  fi
}

# agent OPTIONS: the -agentpath argument for the library under test.
agent() { if [[ -n "${1:-}" ]]; then echo "-agentpath:$HPROF_LIB=$1"; else echo "-agentpath:$HPROF_LIB"; fi; }

# cpu_time_calls FILE METHOD CALLER_REGEX: calls of METHOD in the CPU TIME rows of FILE
# whose trace's second frame (the caller) matches CALLER_REGEX.
cpu_time_calls() {
  awk -v m="$2" -v c="$3" '
    /^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); n = 0; next }
    /^\t/ { n++; f = $0; sub(/^\t/, "", f); sub(/\(.*/, "", f); fr[tr, n] = f; next }
    /^CPU TIME \(ms\) BEGIN/ { i = 1; next } /^CPU TIME \(ms\) END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ && $6 == m && fr[$5, 2] ~ c { s += $4 }
    END { print s + 0 }' "$1"
}

# has_line FILE REGEX: FILE contains a line matching the extended REGEX.
has_line() { grep -Eq -- "$2" "$1"; }

# hprof_check FILE: the project's reader validates a binary file.
hprof_check() { "$HPROF_DUMP" --check "$1" >"$WORK/check.txt" 2>&1; }

# sites_live_run AGENT_OPTIONS [java options...]: tests/java/SitesLive under the agent
# (its profile in s.txt, output in s.out): a dump by SIGQUIT once it is ready, then it
# is let go to its end, which dumps again. Its exit status in $SL_RC.
sites_live_run() {
  local opts=$1 pid; shift
  rm -f "$WORK/flag" s.txt s.out
  # Not under timeout(1): it passes a SIGQUIT on to the whole process group, and the JVM
  # would see two.
  HPROF_STACK_STATS=1 "$JAVA" -Xcheck:jni "$@" "$(agent "$opts,file=s.txt")" \
    -cp "$TEST_CLASSES" SitesLive "$WORK/flag" >s.out 2>&1 &
  pid=$!
  for _ in $(seq 1200); do grep -q ready s.out 2>/dev/null && break; sleep 0.1; done
  kill -QUIT $pid 2>/dev/null || true
  for _ in $(seq 1200); do grep -q '^SITES END' s.txt 2>/dev/null && break; sleep 0.1; done
  touch "$WORK/flag"
  for _ in $(seq 1200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -9 $pid 2>/dev/null || true
  SL_RC=0
  wait $pid || SL_RC=$?
  cat s.out >>"$WORK/all-runs.txt"
}

# --- reading text profiles ---

# cpu_rows FILE [N]: the rows of the Nth CPU SAMPLES section (default: the last) as
# "rank self accum count trace method" lines.
cpu_rows() {
  awk -v want="${2:-0}" '
    /^CPU SAMPLES BEGIN/ { n++; cur = n; inside = 1; rows[n] = ""; next }
    /^CPU SAMPLES END/ { inside = 0; next }
    inside && $1 ~ /^[0-9]+$/ { rows[cur] = rows[cur] $0 "\n" }
    END { k = (want > 0 ? want : n); printf "%s", rows[k] }' "$1"
}
# cpu_total FILE [N]: the "total = N" of the Nth (default last) CPU SAMPLES section.
cpu_total() {
  awk -v want="${2:-0}" '/^CPU SAMPLES BEGIN/ { n++; match($0, /total = [0-9]+/); t[n] = substr($0, RSTART + 8, RLENGTH - 8) }
    END { print t[(want > 0 ? want : n)] }' "$1"
}
# kind_samples FILE [KINDS]: the samples of the last CPU SAMPLES section whose trace holds
# a frame of a thread that is not a Java thread, of one of KINDS (a regex of the class
# names without brackets; default every kind: JIT compiler|GC|VM|hprof|other native).
kind_samples() {
  awk -v re="^\t\\[(${2:-JIT compiler|GC|VM|hprof|other native})\\]\\." '
    /^TRACE [0-9]+:/ { t = $2; sub(/:.*/, "", t); next } /^[^\t]/ { t = "" }
    t != "" && $0 ~ re { of[t] = 1 }
    /^CPU SAMPLES BEGIN/ { n = 0; inside = 1; next } /^CPU SAMPLES END/ { inside = 0 }
    inside && $1 ~ /^[0-9]+$/ && ($5 in of) { n += $4 } END { print n + 0 }' "$1"
}
# java_total FILE: the last CPU SAMPLES section's total less kind_samples: the Java threads'.
java_total() { echo $(($(cpu_total "$1") - $(kind_samples "$1"))); }
# cpu_sections FILE: how many CPU SAMPLES sections the file has.
cpu_sections() { grep -c '^CPU SAMPLES BEGIN' "$1" || true; }
# rank1_method FILE: the method of the top row of the last CPU SAMPLES section.
rank1_method() { cpu_rows "$1" | awk 'NR == 1 { print $6 }'; }
# trace_frames FILE SERIAL: the frame lines of TRACE SERIAL (without the tab).
trace_frames() {
  awk -v s="TRACE $2:" 'index($0, s) == 1 { inside = 1; next } /^[^\t]/ { inside = 0 } inside { sub(/^\t/, ""); print }' "$1"
}
