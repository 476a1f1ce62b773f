# SPDX-License-Identifier: Apache-2.0
# Programs to attach to, for the attach tests (sourced after common.sh): build/hprof
# (the tree under test's) against tests/java/AttachTarget.java.
HPROF="${HPROF_BIN:-$HPROF_ROOT/build}/hprof"
TIMEOUT=60
AS=()   # a command the target runs under (setpriv ... to run it as another user)

# start_target NAME [java options...]: AttachTarget running (flag file NAME.flag, output
# NAME.out / NAME.err, exit code in NAME.rc once it ends); its pid in $PID.
start_target() {
  local name=$1; shift
  touch "$WORK/$name.flag"
  ( rc=0; timeout -k 10 300 "${AS[@]}" "$JAVA" -Xcheck:jni "$@" -cp "$TEST_CLASSES" AttachTarget "$WORK/$name.flag" 240 3 \
      >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?; echo $rc >"$WORK/$name.rc" ) &
  PID=""
  for _ in $(seq 600); do
    grep -q ready "$WORK/$name.out" 2>/dev/null && break
    sleep 0.1
  done
  PID=$(pgrep -f "AttachTarget $WORK/$name.flag" | while read -r p; do
          [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
}
# end_target NAME: lets it finish; waits for its exit code.
end_target() {
  rm -f "$WORK/$1.flag"
  for _ in $(seq 3000); do [[ -s "$WORK/$1.rc" ]] && break; sleep 0.1; done
  [[ -s "$WORK/$1.rc" ]] || echo "# $1 did not end within 300 s" >&2
  cat "$WORK/$1.out" "$WORK/$1.err" >>"$WORK/all-runs.txt"
}
# hp ARGS...: runs build/hprof; stdout in hp.out, stderr in hp.err, exit code in $HRC.
# (|| keeps a failing exit code from ending the script under set -e, which helpers turn on)
# Every run's stdout is kept in hp-all.out too.
hp() { HRC=0; timeout -k 5 $((TIMEOUT + 60)) "$HPROF" "$@" >hp.out 2>hp.err || HRC=$?; cat hp.out >>hp-all.out; }
# expect_fail CODE REGEX WHAT: the last hp ended with CODE and said REGEX on stderr.
expect_fail() {
  if [[ $HRC == "$1" ]] && grep -Eq -- "$2" hp.err; then ok "$3 (exit $1)"
  else not_ok "$3: exit $HRC, said: $(head -c 300 hp.err) $(head -c 300 hp.out)"; fi
}

# check_said WHAT ERE: the last hp ended with 0 and said ERE on stdout; when not, what it
# said instead goes with the failure.
check_said() {
  if [[ $HRC == 0 ]] && grep -Eq -- "$2" hp.out; then ok "$1"
  else not_ok "$1: exit $HRC, said: $(head -c 300 hp.err) $(head -c 300 hp.out)"; fi
}

# start_phases NAME [java options...] [-- ALLOC]: tests/java/Phases.java running in
# $WORK/NAME (its run file; cmd.N and hot there set its phases), output in NAME.out, exit
# code in NAME.rc once it ends; its pid in $PID.
start_phases() {
  local name=$1 alloc=""; shift
  local opts=()
  while [[ $# -gt 0 ]]; do [[ $1 == -- ]] && { alloc=$2; break; }; opts+=("$1"); shift; done
  mkdir -p "$WORK/$name"; touch "$WORK/$name/run"
  ( timeout -k 10 300 "$JAVA" -Xcheck:jni "${opts[@]}" -cp "$TEST_CLASSES" Phases "$WORK/$name" 240 $alloc \
      >"$WORK/$name.out" 2>&1; echo $? >"$WORK/$name.rc" ) &
  PID=""
  for _ in $(seq 600); do grep -q ready "$WORK/$name.out" 2>/dev/null && break; sleep 0.1; done
  PID=$(pgrep -f "Phases $WORK/$name 240" | while read -r p; do
          [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
}
# wait_phases NAME: until it has ended; end_phases NAME: ends it (its run file gone).
wait_phases() { for _ in $(seq 900); do [[ -s "$WORK/$1.rc" ]] && break; sleep 0.1; done; }
end_phases() { rm -f "$WORK/$1/run"; wait_phases "$1"; }
