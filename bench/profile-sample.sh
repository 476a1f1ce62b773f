#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/profile-sample.sh (what `make sample` runs): profiles bench/java/Sample.java, a small
# word-frequency program whose hot method is Sample.normalize, with cpu=samples, and prints
# where the profile went and the top of its CPU SAMPLES section.
#
#   bench/profile-sample.sh [EXTRA_HPROF_OPTIONS]     e.g. depth=8  or  interval=1
#
# It builds nothing but the sample: run `make` first (make sample does). The JDK is
# JAVA_HOME, or else the first one tests/lib/jdks.sh finds.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

fail() { echo "make sample: $*" >&2; exit 1; }

LIB=$ROOT/build/libhprof.so
[[ -f "$LIB" ]] || fail "$LIB is missing: build it with 'make' first"
JDK=${JAVA_HOME:-$(tests/lib/jdks.sh --first 2>/dev/null)}
[[ -n "$JDK" && -x "$JDK/bin/java" && -x "$JDK/bin/javac" ]] ||
  fail "no JDK 17+ found: set JAVA_HOME (Debian: apt-get install openjdk-17-jdk-headless)"

OUTDIR=$ROOT/build/sample
CLASSES=$OUTDIR/classes
OUT=$OUTDIR/java.hprof.txt
mkdir -p "$CLASSES"
if [[ ! -f "$CLASSES/Sample.class" || bench/java/Sample.java -nt "$CLASSES/Sample.class" ]]; then
  "$JDK/bin/javac" --release 17 -nowarn -d "$CLASSES" bench/java/Sample.java || fail "javac of bench/java/Sample.java failed"
fi
rm -f "$OUT"

OPTIONS="cpu=samples,file=$OUT${1:+,$1}"
echo "JDK:     $JDK"
echo "running: java -agentpath:$LIB=$OPTIONS -cp $CLASSES Sample"
echo
"$JDK/bin/java" "-agentpath:$LIB=$OPTIONS" -cp "$CLASSES" Sample
rc=$?
echo
[[ $rc -eq 0 ]] || fail "the JVM exited with status $rc"
[[ -s "$OUT" ]] || fail "the agent wrote no profile to $OUT"

echo "profile: $OUT ($(wc -c <"$OUT") bytes)"
echo
# The header line, the column titles and the first 10 ranks of the CPU SAMPLES section.
top=$(awk '
  /^CPU SAMPLES BEGIN/ { inside = 1; print; next }
  inside && /^CPU SAMPLES END/ { print; exit }
  inside && /^rank/ { print; next }
  inside && shown < 10 { print; shown++; next }
  inside && shown == 10 { print "..."; shown++ }
' "$OUT")
[[ -n "$top" ]] || fail "$OUT has no CPU SAMPLES section"
echo "$top"
echo
# The stack of the top-ranked trace, so the hot method is seen in context.
top_trace=$(awk '/^CPU SAMPLES BEGIN/ { inside = 1; next } inside && /^ *1 / { print $5; exit }' "$OUT")
if [[ -n "$top_trace" ]]; then
  echo "TRACE $top_trace (rank 1):"
  awk -v t="TRACE $top_trace:" '$0 ~ "^" t { on = 1; next } on && /^\t/ { print; next } on { exit }' "$OUT"
  echo
fi
echo "The whole profile is in $OUT."
