#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs fuzz targets (built by `make fuzz-build`) for FUZZ_SECONDS each, one after the
# other: `tests/fuzz/run.sh [NAME...]` (default: all). Each starts from its committed
# corpus and regressions (read only) plus what earlier runs here found (build/fuzz/NAME/
# corpus, where new inputs go). Prints one ok / not ok line a target, then
# "N passed, N failed". A crash is saved as build/fuzz/NAME/crash-* (leak-*, timeout-*,
# oom-*); then fix the parser, add the input to tests/fuzz/regressions/NAME/, and
# `make test` replays it from then on.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${FUZZ_OUT:-build/fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
[[ $# -gt 0 ]] || set -- classfile options socket_commands jdk_dump hprof_dump text_profile perfdata maps elf eh_frame demangle
passed=0; failed=0

max_len() {   # inputs longer than any the parser meets in practice only slow the search;
  case "$1" in  # the files' readers meet counts and depths that only big inputs reach
    options) echo 1024 ;;
    demangle) echo 4200 ;;
    socket_commands) echo 2048 ;;
    hprof_dump|text_profile|jdk_dump) echo 1048576 ;;
    *) echo 65536 ;;
  esac
}

for name in "$@"; do
  bin=$OUT/fuzz_$name
  if [[ ! -x "$bin" ]]; then
    echo "not ok - fuzz $name: $bin not built (make fuzz-build)"; failed=$((failed + 1)); continue
  fi
  work=$OUT/$name
  mkdir -p "$work/corpus"
  rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
  dirs=("$work/corpus" "tests/fuzz/corpus/$name")
  [[ -d "tests/fuzz/regressions/$name" ]] && dirs+=("tests/fuzz/regressions/$name")
  [[ -d "$work/extra" ]] && dirs+=("$work/extra")
  # -close_fd_mask=3: the parsers' messages about bad input (most inputs) are not shown;
  # libFuzzer's and the sanitizers' reports still are.
  "$bin" -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$name")" -timeout=10 -rss_limit_mb=2048 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$work/" "${dirs[@]}" >"$work/log.txt" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt")
  found=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null | head -n 1)
  if [[ $rc -eq 0 && -z "$found" ]]; then
    echo "ok - fuzz $name: ${runs:-?} inputs in ${SECONDS_EACH}s, corpus $(ls "$work/corpus" | wc -l) found here"
    passed=$((passed + 1))
  else
    echo "not ok - fuzz $name: exit status $rc${found:+, input $found}"
    grep -E 'ERROR|SUMMARY|invariant|#[0-9]+ 0x' "$work/log.txt" | head -n 30 | sed 's/^/#   /'
    # Again with its messages, for the reason an invariant gave.
    [[ -n "$found" ]] && "$bin" "$found" 2>&1 | grep -m3 'invariant broken' | sed 's/^/#   /'
    failed=$((failed + 1))
  fi
done
echo
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
