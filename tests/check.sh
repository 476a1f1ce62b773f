#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make check: the sanitized builds under test (the Makefile's `check` builds them first).
#   build-asan/  agent, tools, unit tests and fuzz replayers with ASan + UBSan: the unit
#                tests, the tools' tests, the fuzz corpora and regressions, and a
#                representative part of the integration suite on every JDK
#   build-tsan/  tests/unit/test_tables.c and test_site_objects.c with TSan (the tables
#                and the logs are read and filled by many threads at once)
# Every sanitizer report is written to a log (log_path) and counted as a failure here,
# whether or not the test that met it noticed. Ends with "N passed, N failed, N skipped",
# the JDKs on the line before.
# --only REGEX (or CHECK_ONLY=REGEX) picks the integration scripts (default: the list
# below); the unit tests, the tools' tests and the fuzz replays always run. The tools
# (the hprof CLI, hprof view, hprof-dump) run from build-asan too.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ONLY=${CHECK_ONLY:-}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --only) ONLY=$2; shift ;;
    *) echo "HPROF ERROR: tests/check.sh: unknown argument $1 (--only REGEX)" >&2; exit 2 ;;
  esac
  shift
done
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/hprof-check-XXXXXX")
trap 'rm -rf "$LOGS"' EXIT

# cpu=samples, cpu=times, heap=sites, heap=dump (binary through the JVM's dump and the
# JVMTI walk, and text; every thread's stack in them), monitor=y, net= with the socket
# commands, the hprof CLI attaching to running JVMs (attach.sh and attach_safety.sh say
# "hprof-test: plain-jvm": their JVMs run the unsanitized agent of build/, the tool is
# sanitized), and the views (view=, hprof view).
ONLY=${ONLY:-'/(cpu_samples|cpu_times|heap_sites|heap_dump|heap_dump_threads|monitor|net_commands|views|attach|attach_safety)\.sh$'}

# ASan, in a JVM (LD_PRELOAD: the runtime must be loaded before anything it intercepts,
# and the launcher is not linked with it):
#   handle_segv=0, handle_sigbus=0, handle_sigfpe=0  the JVM takes these signals on purpose
#       (implicit null checks, safepoint polls, stack banging) and handles them itself;
#       ASan would report each as a crash
#   allow_user_segv_handler=1  let the JVM install its own handlers for them
#   detect_leaks=0  LeakSanitizer stops every thread at exit and walks their stacks, which
#       fails in a JVM ("Tracer caught signal 11"); the unit tests keep what they build till
#       they exit, so leaks would be noise there too (the fuzz targets check leaks)
#   detect_stack_use_after_return=0  (its default) the fake stacks confuse the JVM's
#       stack walking and the agent's frame-pointer walk
#   abort_on_error=0, exitcode=23  a report ends the process with a status the tests see
#   log_path  reports go to files counted below (a JVM's stderr is often only in a test's
#       work dir)
export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:handle_sigfpe=0:allow_user_segv_handler=1:detect_leaks=0:detect_stack_use_after_return=0:exitcode=23:log_path=$LOGS/asan"
# UBSan: stop at the first report (built with -fno-sanitize-recover), with its stack. In a
# JVM its log_path is not honoured (the report goes to the JVM's stderr, beside the
# preloaded ASan runtime): the JVM stops there, so the test that met it fails.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$LOGS/ubsan"
# TSan: every report is a failure; second_deadlock_stack for lock-order reports.
export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:exitcode=66:log_path=$LOGS/tsan"

LIBASAN=$(${CC:-gcc} -print-file-name=libasan.so)
[[ -f "$LIBASAN" ]] || { echo "not ok - check: no libasan.so for ${CC:-gcc}"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

OUT=$(mktemp "$LOGS/run-XXXXXX")
# ASan JVMs are slower and larger: one per CPU, not run.sh's one more.
HPROF_BUILD=build-asan HPROF_PRELOAD=$LIBASAN tests/run.sh --jobs "${HPROF_TEST_JOBS:-$(nproc)}" --only "$ONLY" 2>&1 | tee "$OUT"
last=$(tail -n 1 "$OUT")
skipped=0
if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
  passed=${BASH_REMATCH[1]}; failed=${BASH_REMATCH[2]}; skipped=${BASH_REMATCH[4]:-0}
else
  passed=0; failed=1; echo "not ok - check: tests/run.sh did not end with its summary"
fi

# TSan: the tables' test, with its threads filling and reading the tables at once, and
# site_objects', with a thread appending to its log while another sweeps it.
for t in test_tables test_site_objects; do
  tsan_out=$(build-tsan/tests/$t 2>&1); rc=$?
  echo "$tsan_out" | sed 's/^\(not \)\{0,1\}ok - /&[tsan] /'
  passed=$((passed + $(grep -c '^ok ' <<<"$tsan_out")))
  failed=$((failed + $(grep -c '^not ok ' <<<"$tsan_out")))
  if [[ $rc -ne 0 ]] && ! grep -q '^not ok ' <<<"$tsan_out"; then
    echo "not ok - [tsan] $t exited with status $rc"; failed=$((failed + 1))
  fi
done

# Every sanitizer report is a failure.
reports=0
for f in "$LOGS"/asan.* "$LOGS"/ubsan.* "$LOGS"/tsan.*; do
  [[ -s "$f" ]] || continue
  reports=$((reports + 1))
  echo "not ok - sanitizer report $(basename "$f"): $(grep -m1 -E 'ERROR|WARNING|runtime error' "$f")"
  sed 's/^/#   /' "$f" | head -n 60
done
if [[ $reports -eq 0 ]]; then echo "ok - no sanitizer reports"; passed=$((passed + 1)); fi
failed=$((failed + reports))
echo
grep '^# JDKs: ' "$OUT" | tail -n 1
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
