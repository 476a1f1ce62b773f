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
bad=$(git ls-files '*.c' '*.h' | while IFS= read -r f; do
  clang-format "$f" | cmp -s - "$f" || echo "$f"
done)
n=$(git ls-files '*.c' '*.h' | wc -l)
if [[ -z "$bad" ]]; then echo "ok - format: all $n C files as .clang-format says"
else echo "not ok - format: run make format; these files differ: $(echo $bad)"; fi
