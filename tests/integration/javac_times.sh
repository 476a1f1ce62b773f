#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# javac compiling a generated corpus under cpu=times with -Xverify:all: no VerifyError,
# and the same class files as without the agent.
source "$(dirname "$0")/../lib/common.sh"

GEN="$WORK/gen-corpus"
gcc -O1 -o "$GEN" "$HPROF_ROOT/bench/gen-corpus.c" 2>gen.err || { not_ok "gen-corpus builds: $(head -2 gen.err)"; exit 0; }
"$GEN" corpus 3 >/dev/null
cd corpus
set +e
"$JAVA_HOME/bin/javac" -d "$WORK/plain" @sources.txt >"$WORK/plain.txt" 2>&1
PLAIN=$?
"$JAVA_HOME/bin/javac" -J-Xverify:all -J-Xcheck:jni "-J$(agent cpu=times,file=$WORK/jt.txt,verbose=n)" \
  -d "$WORK/timed" @sources.txt >"$WORK/timed.txt" 2>&1
TIMED=$?
cat "$WORK/timed.txt" >>"$WORK/all-runs.txt"
set -e
cd "$WORK"
check "javac without the agent compiles the corpus ($(wc -l <corpus/sources.txt) files)" test "$PLAIN" -eq 0
check "javac under cpu=times + -Xverify:all succeeds" bash -c "[[ $TIMED -eq 0 ]] && ! grep -Eq 'VerifyError|LinkageError' timed.txt"
check "same class files as without the agent" bash -c "[[ -n \$(ls plain) ]] && diff -r plain timed"
check "the profile counts javac's own methods" bash -c "grep -q 'com.sun.tools.javac' jt.txt && grep -q '^CPU TIME (ms) END' jt.txt"
jni_clean
