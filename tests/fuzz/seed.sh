#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Seeds the fuzz corpus (dir $1) once: a few hundred small classes of the first JDK found,
# the hand-assembled jsr/ret class, and classes made by the unit tests' assembler.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
[[ -f "$OUT/.seeded" ]] && exit 0
mkdir -p "$OUT"
JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
if [[ -n "$JDK" && -x "$JDK/bin/jimage" ]]; then
  "$JDK/bin/jimage" extract --dir "$TMP/x" --include 'regex:/java.base/java/(util|lang)/.*' "$JDK/lib/modules" 2>/dev/null ||
    "$JDK/bin/jimage" extract --dir "$TMP/x" "$JDK/lib/modules"
  i=0
  while IFS= read -r f; do
    cp "$f" "$OUT/jdk-$i.class"; i=$((i + 1))
  done < <(find "$TMP/x" -name '*.class' -size -24k | sort | awk 'NR % 7 == 0' | head -n 300)
fi
"$ROOT/build/cf-rewrite" --emit-jsr "$TMP/jsr" && cp "$TMP/jsr/cfjsr/Jsr.class" "$OUT/jsr.class"
if [[ -x "$ROOT/build/tests/test_classfile" ]]; then
  CF_TEST_DUMP="$OUT" "$ROOT/build/tests/test_classfile" >/dev/null || true
fi
touch "$OUT/.seeded"
echo "corpus: $(ls "$OUT" | wc -l) files in $OUT"
