#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the shell blocks of README.md and docs/*.md that are marked runnable, so that a
# documented command that breaks fails here. The convention (README.md's "Build and test"):
#   <!-- run -->      on the line before a ```sh block: run it as written
#   <!-- run: jvm --> the same, with a JVM already running (tests/java/AttachTarget) whose
#                     process id is in $PID, for the commands that attach to one
# Other blocks are not run (make test itself, make check, commands needing another
# machine or a peer). Each block runs with bash -e in a fresh folder that looks like the
# top of a built checkout: build/ holds links to the tree under test ($HPROF_BIN) and
# build/sample/classes the compiled sample program; the JDK (tests/lib/jdks.sh --first)
# is first on PATH. Prints ok / not ok per block.
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${HPROF_BIN:-$ROOT/build}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-readme-XXXXXX")
JVM_PID=""
cleanup() {
  [[ -n $JVM_PID ]] && kill "$JVM_PID" 2>/dev/null
  [[ -n ${HPROF_KEEP_WORK:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT

ok()     { echo "ok - readme: $*"; }
not_ok() { echo "not ok - readme: $*"; }

JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
if [[ -z $JDK || ! -x $JDK/bin/javac ]]; then not_ok "no JDK found"; exit 1; fi
[[ -x $BIN/hprof && -f $BIN/libhprof.so ]] || { not_ok "$BIN is not built"; exit 1; }
export JAVA_HOME=$JDK PATH=$JDK/bin:$PATH
# Under make check the agent is sanitized: its runtime must be preloaded, in java only
# (tests/run.sh does the same for the integration tests).
if [[ -n ${HPROF_PRELOAD:-} ]]; then
  mkdir -p "$WORK/jdk-bin"
  printf '#!/bin/sh\nLD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD} exec %s "$@"\n' "$HPROF_PRELOAD" "$JDK/bin/java" \
    >"$WORK/jdk-bin/java"
  chmod +x "$WORK/jdk-bin/java"
  PATH=$WORK/jdk-bin:$PATH
fi

CLASSES=$WORK/classes
mkdir -p "$CLASSES/sample" "$CLASSES/tests"
# (one javac for both, a JVM start less; AttachTarget's classes then moved to their own folder)
javac -nowarn -d "$CLASSES/sample" "$ROOT/bench/java/Sample.java" "$ROOT/tests/java/AttachTarget.java" &&
  mv "$CLASSES/sample"/AttachTarget*.class "$CLASSES/tests/" ||
  { not_ok "javac of the sample programs"; exit 1; }

# blocks FILE: "LINE KIND" for each marked block (KIND: plain or jvm), its body in
# $WORK/blocks/FILE-LINE.sh.
blocks() {
  local file=$1 name; name=$(basename "$file" .md)
  awk -v out="$WORK/blocks/$name" '
    /^<!-- run(: jvm)? -->$/ { kind = ($0 ~ /jvm/) ? "jvm" : "plain"; armed = NR; next }
    armed == NR - 1 && /^```sh$/ { body = out "-" NR ".sh"; print NR, kind; inside = 1; armed = 0; next }
    inside && /^```$/ { inside = 0; close(body); next }
    inside { print > body; next }
    { armed = 0 }
  ' "$file"
}

# fresh DIR: a folder like the top of a built checkout.
fresh() {
  local d=$1 f
  mkdir -p "$d/build/sample"
  for f in "$BIN"/*; do [[ $(basename "$f") == sample ]] || ln -s "$f" "$d/build/"; done
  ln -s "$CLASSES/sample" "$d/build/sample/classes"
}

# start_jvm DIR: a JVM to attach to, its pid in JVM_PID, ready.
start_jvm() {
  local d=$1
  : >"$d/.running"
  java -cp "$CLASSES/tests" AttachTarget "$d/.running" 120 0 >"$d/.jvm.out" 2>&1 &
  JVM_PID=$!
  for _ in $(seq 100); do grep -q ready "$d/.jvm.out" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

stop_jvm() {
  local d=$1
  rm -f "$d/.running"
  wait "$JVM_PID" 2>/dev/null
  JVM_PID=""
}

mkdir -p "$WORK/blocks"
n=0; failed=0
for doc in "$ROOT/README.md" "$ROOT"/docs/*.md; do
  [[ -f $doc ]] || continue
  rel=${doc#"$ROOT/"}
  while read -r line kind; do
    n=$((n + 1))
    body=$WORK/blocks/$(basename "$doc" .md)-$line.sh
    dir=$WORK/run-$n
    fresh "$dir"
    if [[ $kind == jvm ]] && ! start_jvm "$dir"; then
      failed=$((failed + 1)); not_ok "$rel:$line: the JVM to attach to did not start"; stop_jvm "$dir"; continue
    fi
    (cd "$dir" && PID=$JVM_PID timeout 300 bash -e "$body") >"$dir/.out" 2>&1
    rc=$?
    [[ $kind == jvm ]] && stop_jvm "$dir"
    if [[ $rc -eq 0 ]]; then
      ok "$rel:$line runs"
    else
      failed=$((failed + 1))
      not_ok "$rel:$line exited with status $rc:"
      sed 's/^/# /' "$dir/.out" | tail -n 15
    fi
  done < <(blocks "$doc")
done
[[ $n -gt 0 ]] || { not_ok "no runnable block found in README.md or docs/"; exit 1; }
[[ $failed -eq 0 ]]
