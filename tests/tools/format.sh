#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tree's C is in its one style (.clang-format): `make format` would change nothing.
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
if ! command -v clang-format >/dev/null; then
  echo "ok - format: every C file as .clang-format says # SKIP clang-format not installed (apt-get install clang-format)"
  exit 0
fi
# One clang-format for every file (one a file cost 50 s, nearly all of it start-up):
# --dry-run -Werror says "FILE:LINE:COL: error: code should be clang-formatted" for each
# place a file differs, and fails.
out=$(git ls-files -z '*.c' '*.h' | xargs -0 clang-format --dry-run -Werror 2>&1); rc=$?
bad=$(grep -o '^[^:]*:[0-9]*:[0-9]*: error' <<<"$out" | cut -d: -f1 | sort -u)
n=$(git ls-files '*.c' '*.h' | wc -l)
if [[ $rc == 0 && -z "$bad" ]]; then echo "ok - format: all $n C files as .clang-format says"
elif [[ -n "$bad" ]]; then echo "not ok - format: run make format; these files differ: $(echo $bad)"
else echo "not ok - format: clang-format failed (exit $rc): $(head -c 300 <<<"$out")"; fi
