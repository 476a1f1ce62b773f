#!/usr/bin/env bash
# The whole test suite: unit tests, then integration tests on every JDK found.
# Ends with "N passed, N failed". Options: --unit-only, --only REGEX (integration scripts).
# HPROF_BUILD picks the build tree under test (default build; make check uses build-asan);
# HPROF_PRELOAD is put in LD_PRELOAD of every `java` the integration tests run (the
# sanitizer's runtime, which must come first in a JVM that loads a sanitized agent): they
# get a JAVA_HOME whose bin/java is a wrapper, the rest links to the JDK. Only java: the
# runtime in every awk and grep would report those tools' own bugs as ours.
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

LOG=$(mktemp); SHADOW=$(mktemp -d); trap 'rm -rf "$LOG" "$SHADOW"' EXIT
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

B=${HPROF_BUILD:-build}
for t in "$B"/tests/test_*; do
  [[ -x "$t" ]] && run_one "$(basename "$t")" "$t"
done

# Every fuzz target over its committed corpus and regressions (tests/fuzz/fuzz.mk).
for r in "$B"/fuzz-replay/*; do
  [[ -x "$r" ]] || continue
  n=$(basename "$r")
  run_one "fuzz replay $n" "$r" "$n" "tests/fuzz/corpus/$n" "tests/fuzz/regressions/$n"
done

export HPROF_ROOT=$ROOT HPROF_BIN=$ROOT/$B HPROF_LIB=$ROOT/$B/libhprof.so HPROF_DUMP=$ROOT/$B/hprof-dump
# Tool tests need no JVM (or pick one themselves): run once.
for s in tests/tools/*.sh; do
  [[ -f "$s" ]] && run_one "$(basename "$s")" bash "$s"
done

# preloading_jdk JDK: a JDK of the same name whose java preloads HPROF_PRELOAD.
preloading_jdk() {
  local real=$1 w; w=$SHADOW/$(basename "$1")
  mkdir -p "$w/bin"
  for e in "$real"/*; do [[ "$(basename "$e")" == bin ]] || ln -s "$e" "$w/"; done
  for e in "$real"/bin/*; do [[ "$(basename "$e")" == java ]] || ln -s "$e" "$w/bin/"; done
  printf '#!/bin/sh\nLD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD} exec %s "$@"\n' "$HPROF_PRELOAD" "$real/bin/java" >"$w/bin/java"
  chmod +x "$w/bin/java"
  echo "$w"
}

# jdk_label JDK: "name (feature version)", for the summary.
jdk_label() {
  local v; v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  echo "$(basename "$1") (${v:-?})"
}

JDKS=()
if [[ $UNIT_ONLY -eq 0 ]]; then
  mapfile -t JDKS < <(tests/lib/jdks.sh)
  [[ ${#JDKS[@]} -gt 0 ]] || { echo "not ok - no JDK found"; echo "not ok - no JDK" >>"$LOG"; }
  for jdk in "${JDKS[@]}"; do
    export JAVA_HOME=$jdk
    [[ -n "${HPROF_PRELOAD:-}" ]] && JAVA_HOME=$(preloading_jdk "$jdk")
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

skipped=$(grep -c '^ok .*# SKIP' "$LOG"); passed=$(( $(grep -c '^ok ' "$LOG") - skipped ))
failed=$(grep -c '^not ok ' "$LOG")
echo
grep '^not ok ' "$LOG" | sed 's/^/FAILED: /'
grep '^ok .*# SKIP' "$LOG" | sed 's/^/SKIPPED: /'
jdks=""; for jdk in "${JDKS[@]}"; do jdks+="${jdks:+, }$(jdk_label "$jdk")"; done
echo "# JDKs: ${jdks:-none (no integration tests run)}"
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
