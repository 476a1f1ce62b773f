#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: unit tests, fuzz replays, the tools' tests, then the integration
# tests on every JDK found. Ends with "# JDKs: ..." and "N passed, N failed, N skipped".
#
# Fast loops while working:
#   make unit                          the unit tests, fuzz replays and tools' tests
#   tests/run.sh --only REGEX          those, and the integration scripts whose path
#                                      matches REGEX (e.g. --only 'heap_dump|views'), on
#                                      every JDK (HPROF_JDKS="DIR" for one)
#   tests/run.sh --scripts REGEX       those integration scripts alone (a minute, not ten)
#   tests/check.sh --only REGEX        the same under ASan+UBSan (after make check built
#                                      build-asan once)
#   bash tests/integration/NAME.sh     one script by hand (export what run_job exports)
#
# Options: --unit-only (no integration scripts), --only REGEX, --scripts REGEX, --jobs N (scripts run side
# by side, default one more than the CPUs, as most scripts spend part of their time waiting
# on a JVM; HPROF_TEST_JOBS too). A script whose text holds the line "# hprof-test: alone"
# runs with nothing else beside it (it measures CPU or time); one with "# hprof-test:
# two-slots" takes two of the N (it measures memory growth, which a third JVM beside it
# on 2 CPUs has been seen to blur); a tool test with "# hprof-test: per-jdk" runs as one
# job per JDK.
# Every script or test program has 900 s. Each one's result line says its wall time and
# the CPU time (user+system) it and its children used, with a running count.
# HPROF_BUILD picks the build tree under test (default build; make check uses build-asan);
# HPROF_PRELOAD is put in LD_PRELOAD of every `java` the integration tests run (the
# sanitizer's runtime, which must come first in a JVM that loads a sanitized agent): they
# get a JAVA_HOME whose bin/java is a wrapper, the rest links to the JDK. Only java: the
# runtime in every awk and grep would report those tools' own bugs as ours. A script with
# the line "# hprof-test: plain-jvm" gets the real JDK and build/libhprof.so even then, its
# tools still from HPROF_BUILD: its JVMs load the agent in ways the preloaded runtime breaks
# (as another user, who cannot exec the wrapper; a refused agent, whose name JDK 17 reads
# after unloading it, a use-after-free the runtime stops the JVM on).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
UNIT_ONLY=0; SCRIPTS_ONLY=0; ONLY="."; JOBS=${HPROF_TEST_JOBS:-$(( $(nproc 2>/dev/null || echo 1) + 1 ))}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --unit-only) UNIT_ONLY=1 ;;
    --only) ONLY=$2; shift ;;
    --scripts) ONLY=$2; SCRIPTS_ONLY=1; shift ;;
    --jobs) JOBS=$2; shift ;;
  esac
  shift
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || JOBS=1

LOG=$(mktemp); SHADOW=$(mktemp -d); RUNS=$(mktemp -d); trap 'rm -rf "$LOG" "$SHADOW" "$RUNS"' EXIT

# The jobs: job_label[i], job_jdk[i] (the index of its JDK in the arrays below, or -1),
# job_alone[i] (1: runs with nothing beside it; 2: takes two slots), job_plain[i] (1: plain-jvm), job_cmd[i]
# (the command's words joined by \x1f).
job_label=(); job_jdk=(); job_cmd=(); job_alone=(); job_plain=()
# The JDKs: the JAVA_HOME the scripts get (the preloading wrapper, if any), the real one,
# their compiled test programs, feature version.
jdk_home=(); jdk_real=(); jdk_classes=(); jdk_feature=()
# add_job LABEL JDK ALONE COMMAND...
add_job() {
  local label=$1 jdk=$2 alone=$3; shift 3
  job_label+=("$label"); job_jdk+=("$jdk"); job_alone+=("$alone"); job_plain+=("${PLAIN:-0}")
  local IFS=$'\x1f'; job_cmd+=("$*")
}

# run_job I: runs job I in the background: its output in RUNS/I.out, its exit status in
# RUNS/I.rc (written last: the job is done when it exists), "wall user sys" in RUNS/I.time.
run_job() {
  local i=$1 j=${job_jdk[$1]} cmd
  IFS=$'\x1f' read -r -a cmd <<<"${job_cmd[$i]}"
  (
    if [[ $j -ge 0 ]]; then
      export JAVA_HOME=${jdk_home[$j]} TEST_CLASSES=${jdk_classes[$j]} HPROF_JDK_FEATURE=${jdk_feature[$j]}
      if [[ ${job_plain[$i]} == 1 && -n "${HPROF_PRELOAD:-}" ]]; then
        export JAVA_HOME=${jdk_real[$j]} HPROF_LIB=$ROOT/build/libhprof.so HPROF_AGENT=$ROOT/build/libhprof.so
      fi
    fi
    TIMEFORMAT='%R %U %S'
    { time timeout 900 "${cmd[@]}" >"$RUNS/$i.out" 2>&1 </dev/null; echo $? >"$RUNS/$i.tmp"; } 2>"$RUNS/$i.time"
    mv "$RUNS/$i.tmp" "$RUNS/$i.rc"
  ) &
}

DONE=0
# report_job I: prints job I's output and its result line; its ok/not ok lines go to LOG.
report_job() {
  local i=$1 label=${job_label[$1]} out=$RUNS/$1.out rc; rc=$(cat "$RUNS/$1.rc")
  cat "$out"; grep -E '^(ok|not ok) ' "$out" >>"$LOG"
  if [[ $rc -ne 0 ]] && ! grep -q '^not ok ' "$out"; then
    echo "not ok - $label exited with status $rc"; echo "not ok - $label exited with status $rc" >>"$LOG"
  fi
  if ! grep -qE '^(ok|not ok) ' "$out"; then
    echo "not ok - $label reported no result"; echo "not ok - $label reported no result" >>"$LOG"
  fi
  local sk ok nok wall user sys
  sk=$(grep -c '^ok .*# SKIP' "$out"); ok=$(( $(grep -c '^ok ' "$out") - sk )); nok=$(grep -c '^not ok ' "$out")
  read -r wall user sys <"$RUNS/$1.time"
  DONE=$((DONE + 1))
  printf '%s\t%.0f\n' "$label" "$wall" >>"$RUNS/times"
  printf '# [%d/%d] %s: %d passed, %d failed, %d skipped (%.0f s, CPU %.1f s)%s\n' \
    "$DONE" "${#job_label[@]}" "$label" "$ok" "$nok" "$sk" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
    "$( [[ $rc -eq 124 ]] && echo ', TIMED OUT after 900 s')"
  rm -f "$out"
}

# slots I: how many of the JOBS slots job I takes.
slots() { if [[ ${job_alone[$1]} == 2 ]]; then echo 2; else echo 1; fi; }

# run_pool I...: runs the jobs I..., in that order as far as they fit in the JOBS slots
# (one that does not fit yet lets the next ones pass), each reported whole as it ends.
run_pool() {
  local -a waiting=("$@") running=()
  local i k used=0 need
  while [[ ${#waiting[@]} -gt 0 || ${#running[@]} -gt 0 ]]; do
    for k in "${!waiting[@]}"; do
      i=${waiting[$k]}; need=$(slots "$i")
      if ((used + need <= JOBS || ${#running[@]} == 0)); then
        run_job "$i"; running+=("$i"); used=$((used + need)); unset 'waiting[k]'
      fi
    done
    waiting=("${waiting[@]}")
    wait -n 2>/dev/null || sleep 0.2
    local -a still=()
    for i in "${running[@]}"; do
      if [[ -e "$RUNS/$i.rc" ]]; then report_job "$i"; used=$((used - $(slots "$i"))); else still+=("$i"); fi
    done
    running=("${still[@]}")
  done
}
# is_alone SCRIPT: 1 when the script says "# hprof-test: alone" (it measures CPU or time,
# or changes what the machine gives other tests, and must not share it with them), 2
# when it says "# hprof-test: two-slots", else 0.
is_alone() {
  if grep -qx '# hprof-test: alone' "$1"; then echo 1
  elif grep -qx '# hprof-test: two-slots' "$1"; then echo 2
  else echo 0; fi
}

B=${HPROF_BUILD:-build}
export HPROF_ROOT=$ROOT HPROF_BIN=$ROOT/$B HPROF_LIB=$ROOT/$B/libhprof.so HPROF_DUMP=$ROOT/$B/hprof-dump
for t in "$B"/tests/test_*; do
  [[ $SCRIPTS_ONLY -eq 0 && -x "$t" ]] && add_job "$(basename "$t")" -1 0 "$t"
done
# Every fuzz target over its committed corpus and regressions (tests/fuzz/fuzz.mk).
for r in "$B"/fuzz-replay/*; do
  [[ $SCRIPTS_ONLY -eq 0 && -x "$r" ]] || continue
  n=$(basename "$r")
  add_job "fuzz replay $n" -1 0 "$r" "$n" "tests/fuzz/corpus/$n" "tests/fuzz/regressions/$n"
done
# Tool tests need no JVM, or take every JDK themselves: run once. One that says
# "# hprof-test: per-jdk" runs once per JDK instead (HPROF_JDKS set to it), side by side.
for s in tests/tools/*.sh; do
  [[ $SCRIPTS_ONLY -eq 0 && -f "$s" ]] || continue
  if grep -qx '# hprof-test: per-jdk' "$s"; then
    while IFS= read -r jdk; do
      add_job "$(basename "$s") on $(basename "$jdk")" -1 "$(is_alone "$s")" env HPROF_JDKS="$jdk" bash "$s"
    done < <(tests/lib/jdks.sh)
  else
    add_job "$(basename "$s")" -1 "$(is_alone "$s")" bash "$s"
  fi
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
# java_feature JDK: its java.specification.version (17, 25...).
java_feature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

JDKS=(); JDK_LABELS=""
if [[ $UNIT_ONLY -eq 0 ]]; then
  mapfile -t JDKS < <(tests/lib/jdks.sh)
  [[ ${#JDKS[@]} -gt 0 ]] || { echo "not ok - no JDK found"; echo "not ok - no JDK" >>"$LOG"; }
  for k in "${!JDKS[@]}"; do
    jdk=${JDKS[$k]}
    home=$jdk
    [[ -n "${HPROF_PRELOAD:-}" ]] && home=$(preloading_jdk "$jdk")
    feature=$(java_feature "$jdk")
    JDK_LABELS+="${JDK_LABELS:+, }$(basename "$jdk") (${feature:-?})"
    # Test programs are compiled once per JDK, for its own release.
    classes=$ROOT/build/tests/classes-$(basename "$jdk")
    jdk_home[$k]=$home; jdk_real[$k]=$jdk; jdk_classes[$k]=$classes; jdk_feature[$k]=$feature
    if [[ ! -d "$classes" || -n "$(find tests/java -newer "$classes" -name '*.java' 2>/dev/null)" ]]; then
      rm -rf "$classes"; mkdir -p "$classes"
      "$jdk/bin/javac" -nowarn -d "$classes" tests/java/*.java || echo "not ok - javac of tests/java on $jdk" | tee -a "$LOG"
    fi
    for s in tests/integration/*.sh; do
      [[ -f "$s" ]] || continue
      [[ "$s" =~ $ONLY ]] || continue
      PLAIN=$(grep -qx '# hprof-test: plain-jvm' "$s" && echo 1 || echo 0) \
        add_job "$(basename "$s") on $(basename "$jdk")" "$k" "$(is_alone "$s")" bash "$s"
    done
  done
fi

# Each job's wall time in the last run (LABEL<tab>seconds), to start the longest first,
# so that no long one is left running alone at the end.
TIMES=$B/tests/last-times.txt
# by_last_time I...: the jobs, the longest last time first (a job not timed yet first).
by_last_time() {
  local i
  for i in "$@"; do
    printf '%s\t%s\n' "$(awk -F'\t' -v l="${job_label[$i]}" '$1 == l { t = $2 } END { print (t == "" ? 1e9 : t) }' "$TIMES" 2>/dev/null || echo 1e9)" "$i"
  done | sort -s -t$'\t' -k1,1gr | cut -f2
}
# The jobs that must run alone first, one at a time; then the others side by side.
alone=(); shared=()
for i in "${!job_label[@]}"; do
  if [[ ${job_alone[$i]} == 1 ]]; then alone+=("$i"); else shared+=("$i"); fi  # 2: shared, two slots
done
mapfile -t shared < <(by_last_time "${shared[@]}")
echo "# ${#job_label[@]} test scripts and programs: ${#alone[@]} alone, the others $JOBS at a time"
T0=$SECONDS
for i in "${alone[@]}"; do run_pool "$i"; done
[[ ${#shared[@]} -gt 0 ]] && run_pool "${shared[@]}"
echo "# all done in $((SECONDS - T0)) s"
# This run's times replace those of the same jobs.
if [[ -s "$RUNS/times" ]] && mkdir -p "$(dirname "$TIMES")"; then
  awk -F'\t' 'NR == FNR { t[$1] = $2; next } !($1 in t) { print } END { for (l in t) print l "\t" t[l] }' \
    "$RUNS/times" "$TIMES" 2>/dev/null >"$RUNS/times.new" || cp "$RUNS/times" "$RUNS/times.new"
  mv "$RUNS/times.new" "$TIMES"
fi

skipped=$(grep -c '^ok .*# SKIP' "$LOG"); passed=$(( $(grep -c '^ok ' "$LOG") - skipped ))
failed=$(grep -c '^not ok ' "$LOG")
echo
grep '^not ok ' "$LOG" | sed 's/^/FAILED: /'
grep '^ok .*# SKIP' "$LOG" | sed 's/^/SKIPPED: /'
echo "# JDKs: ${JDK_LABELS:-none (no integration tests run)}"
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
