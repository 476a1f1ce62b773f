#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent loads three ways and prints its help.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent help)" HotMethod 10
check "help exits 0" test "$RC" -eq 0
check "help prints the option table" has_line out.txt '^cpu=samples\|times\|old  CPU usage +off$'
check "help names every option" bash -c 'for o in heap= cpu= monitor= format= file= net= depth= interval= cutoff= lineno= thread= doe= msa= force= verbose= gc_okay=; do grep -q "^$o" out.txt || exit 1; done'
check "help does not run the program" bash -c 'grep -q "^cpu=" out.txt && ! grep -q "^done" out.txt'
check "help has our own title" has_line out.txt 'HPROF: Heap and CPU Profiling Agent for modern JDKs'

run_java "$(agent cpu=samples,file=ap.txt)" HotMethod 300
check "-agentpath loads and profiles" bash -c "[[ $RC -eq 0 ]] && grep -q '^CPU SAMPLES END' ap.txt"

set +e
LD_LIBRARY_PATH="$(dirname "$HPROF_LIB")" "$JAVA" -Xcheck:jni -agentlib:hprof=cpu=samples,file=al.txt \
  -cp "$TEST_CLASSES" HotMethod 300 >out.txt 2>&1
RC=$?
set -e
check "-agentlib:hprof loads from LD_LIBRARY_PATH" bash -c "[[ $RC -eq 0 ]] && grep -q '^CPU SAMPLES END' al.txt"

set +e
LD_LIBRARY_PATH="$(dirname "$HPROF_LIB")" "$JAVA" -Xcheck:jni -Xrunhprof:cpu=samples,file=xr.txt \
  -cp "$TEST_CLASSES" HotMethod 300 >out.txt 2>&1
RC=$?
set -e
check "-Xrunhprof loads" bash -c "[[ $RC -eq 0 ]] && grep -q '^CPU SAMPLES END' xr.txt"

# make install puts the library where -agentlib:hprof finds it without LD_LIBRARY_PATH.
JDKCOPY="$WORK/jdkcopy"
mkdir -p "$JDKCOPY"
cp -a "$JAVA_HOME/." "$JDKCOPY/" 2>/dev/null
make -s -C "$HPROF_ROOT" install JAVA_HOME="$JDKCOPY" >install.txt 2>&1
set +e
"$JDKCOPY/bin/java" -agentlib:hprof=cpu=samples,file=inst.txt -cp "$TEST_CLASSES" HotMethod 200 >out.txt 2>&1
RC=$?
set -e
check "make install: -agentlib:hprof finds the library in the JDK" bash -c "[[ $RC -eq 0 ]] && grep -q '^CPU SAMPLES END' inst.txt"
rm -rf "$JDKCOPY"
jni_clean
