#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unexpected-skips.sh FILE...: the SKIP lines ("ok - ... # SKIP reason") of the test
# outputs FILE... that no entry of tests/expected-skips.txt matches, one a line.
set -u
LIST=$(cd "$(dirname "$0")/.." && pwd)/expected-skips.txt
mapfile -t res < <(grep -v '^#' "$LIST" | grep . | sed 's/  *## .*//')
grep -h '^ok .* # SKIP ' "$@" | while IFS= read -r line; do
  known=0
  for re in "${res[@]}"; do [[ $line =~ $re ]] && { known=1; break; }; done
  [[ $known -eq 1 ]] || echo "$line"
done
