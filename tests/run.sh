#!/usr/bin/env bash
# The whole test suite: unit tests, then integration tests on every JDK found.
# Ends with "N passed, N failed". Options: --unit-only, --only REGEX (integration scripts).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
UNIT_ONLY=0; ONLY="."
while [[ $# -gt 0 ]]; do
  case "$1" in
    --unit-only) UNIT_ONLY=1 ;;
    --only) ONLY=$2; shift ;;
  esac
  shift
done

LOG=$(mktemp); trap 'rm -f "$LOG"' EXIT
run_one() {  # run_one LABEL COMMAND...: streams its output, collecting ok/not ok lines
  local label=$1; shift
  local out; out=$(mktemp)
  timeout 900 "$@" >"$out" 2>&1; local rc=$?
  cat "$out"; grep -E '^(ok|not ok) ' "$out" >>"$LOG"
  if [[ $rc -ne 0 ]] && ! grep -q '^not ok ' "$out"; then
    echo "not ok - $label exited with status $rc"; echo "not ok - $label exited with status $rc" >>"$LOG"
  fi
  if ! grep -qE '^(ok|not ok) ' "$out"; then
    echo "not ok - $label reported no result"; echo "not ok - $label reported no result" >>"$LOG"
  fi
  rm -f "$out"
}

for t in build/tests/test_*; do
  [[ -x "$t" ]] && run_one "$(basename "$t")" "$t"
done

export HPROF_ROOT=$ROOT HPROF_LIB=$ROOT/build/libhprof.so HPROF_DUMP=$ROOT/build/hprof-dump
# Tool tests need no JVM (or pick one themselves): run once.
for s in tests/tools/*.sh; do
  [[ -f "$s" ]] && run_one "$(basename "$s")" bash "$s"
done

if [[ $UNIT_ONLY -eq 0 ]]; then
  mapfile -t JDKS < <(tests/lib/jdks.sh)
  [[ ${#JDKS[@]} -gt 0 ]] || { echo "not ok - no JDK found"; echo "not ok - no JDK" >>"$LOG"; }
  for jdk in "${JDKS[@]}"; do
    export JAVA_HOME=$jdk
    # Test programs are compiled once per JDK, for its own release.
    export TEST_CLASSES=$ROOT/build/tests/classes-$(basename "$jdk")
    if [[ ! -d "$TEST_CLASSES" || -n "$(find tests/java -newer "$TEST_CLASSES" -name '*.java' 2>/dev/null)" ]]; then
      rm -rf "$TEST_CLASSES"; mkdir -p "$TEST_CLASSES"
      "$jdk/bin/javac" -nowarn -d "$TEST_CLASSES" tests/java/*.java || echo "not ok - javac of tests/java on $jdk" | tee -a "$LOG"
    fi
    for s in tests/integration/*.sh; do
      [[ -f "$s" ]] || continue
      [[ "$s" =~ $ONLY ]] || continue
      run_one "$(basename "$s") on $(basename "$jdk")" bash "$s"
    done
  done
fi

passed=$(grep -c '^ok ' "$LOG"); failed=$(grep -c '^not ok ' "$LOG")
echo
grep '^not ok ' "$LOG" | sed 's/^/FAILED: /'
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
